import LumenProtocol

extension HueBridge {
    /// A `true`/`false` parameter, when given.
    static func flag(_ value: JSONValue?, _ name: String, at address: String) throws(HueError) -> Bool? {
        guard let value else { return nil }
        guard let flag = value.boolValue else { throw HueError.invalidValue(value, of: name, at: address) }
        return flag
    }

    /// A scene's `appdata` (`{"version": 1, "data": "…"}`), when given: kept whole, so it is kept small.
    static func appData(_ value: JSONValue?, at address: String) throws(HueError) -> JSONObject? {
        guard let value else { return nil }
        guard let object = value.objectValue, value.serialized().utf8.count <= 256 else {
            throw HueError.invalidValue(value, of: "appdata", at: address)
        }
        return object
    }

    /// A scene's `picture`, when given: at most 16 characters, as on a bridge.
    static func picture(_ value: JSONValue?, at address: String) throws(HueError) -> String? {
        guard let value else { return nil }
        guard let picture = value.stringValue, picture.count <= 16 else {
            throw HueError.invalidValue(value, of: "picture", at: address)
        }
        return picture
    }
}
