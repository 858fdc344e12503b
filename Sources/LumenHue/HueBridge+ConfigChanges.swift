import LumenModel
import LumenProtocol

extension HueBridge {
    /// The configuration's parameters an app may read but not change: error 8, as on a bridge.
    static let fixedConfiguration: Set<String> = [
        "bridgeid", "mac", "modelid", "apiversion", "swversion", "datastoreversion", "factorynew",
        "replacesbridgeid", "starterkitid", "whitelist", "localtime", "UTC", "timezone", "zigbeechannel", "dhcp",
        "ipaddress", "netmask", "gateway", "proxyaddress", "proxyport", "portalservices", "portalconnection",
        "swupdate2",
    ]

    /// `PUT /api/<user>/config`: the bridge's `name`, which is the home's (4 to 16 characters, as on a bridge),
    /// and `linkbutton: true`, which presses the link button as older apps do. The network, clock and update
    /// settings are Lumen's own, not the bridge's to change: error 8 (not modifiable); anything else error 6.
    func changeConfig(_ request: HTTPRequest) async throws -> HTTPResponse {
        let address = "/config"
        let body = try bodyObject(request, address: address)
        for (key, value) in body.members {
            switch key {
            case "name":
                guard let name = value.stringValue, (4...16).contains(name.count) else {
                    throw HueError.invalidValue(value, of: key, at: address)
                }
            case "linkbutton":
                guard value == true else { throw HueError.invalidValue(value, of: key, at: address) }
            case _ where Self.fixedConfiguration.contains(key):
                throw HueError(
                    type: 8, address: "\(address)/\(key)", description: "parameter, \(key), is not modifiable")
            default:
                throw HueError.parameterNotAvailable(key, at: address)
            }
        }
        if let name = body["name"]?.stringValue {
            try await renameEntity(.home, to: name) {
                HueError(type: 7, address: "\(address)/name", description: $0.message)
            }
        }
        if body["linkbutton"] != nil { await pressLinkButton() }
        return .json(.array(Self.successes(for: body, at: address)))
    }

    /// `DELETE /api/<user>/config/whitelist/<name>`: forgets the user `name` (which may be the one asking), so
    /// that its key opens nothing any more and its event streams end; answered once that is durable.
    func forgetUser(_ name: String) async throws -> HTTPResponse {
        let address = "/config/whitelist/\(name)"
        try await changeState { state throws(HueError) in
            guard let index = state.users.firstIndex(where: { $0.username == name }) else {
                throw HueError.notAvailable(address)
            }
            state.users.remove(at: index)
        }
        try await commit()
        events.closeStreams(of: name)
        logger.notice("an app forgot a Hue user through the bridge", [("user", Self.sender(name))])
        return .json([["success": .string("\(address) deleted")]])
    }
}
