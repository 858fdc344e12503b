import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation

extension HueBridge {
    /// `POST /api {"devicetype"}`: a new user, while the link button is pressed.
    func pair(_ request: HTTPRequest) async throws -> HTTPResponse {
        let body = try bodyObject(request, address: "/")
        guard let deviceType = body["devicetype"]?.stringValue, (1...40).contains(deviceType.count) else {
            // Addressed `/devicetype`, as a bridge names the parameter of a body sent to `/api`.
            throw HueError.invalidValue(body["devicetype"] ?? .null, of: "devicetype", at: "")
        }
        let user: HueBridgeState.User
        do {
            let paired = try await pair(deviceType: deviceType, username: nil)
            user = paired.user
            for forgotten in paired.forgotten {
                logger.notice(
                    "the Hue bridge's whitelist is full: it forgot '\(forgotten.deviceType)', "
                        + "unused longest, to pair '\(deviceType)'; --hue-users keeps more",
                    [("user", Self.sender(forgotten.username))])
            }
        } catch {
            throw HueError(type: 101, address: "", description: "link button not pressed")
        }
        try await commit()
        var success: JSONObject = ["username": .string(user.username)]
        if body["generateclientkey"] == true {
            // An entertainment key, which Lumen does not use: derived from the user, so it is stable.
            let key = FNV1a.hash((user.username + "#client").utf8)
            success["clientkey"] = .string(
                (0..<8).map { HueValues.hex(key >> UInt64(8 * $0), uppercase: true) }.joined()
                    + user.username.prefix(16).uppercased())
        }
        return .json(.array([.object(["success": .object(success)])]))
    }

    /// What `GET /api/config` tells anyone, paired or not, for a home called `name`.
    func shortConfig(name: String) -> JSONValue {
        .object([
            "name": .string(name), "datastoreversion": "131", "swversion": "1956106000",
            "apiversion": "1.56.0", "mac": .string(identity.mac), "bridgeid": .string(identity.bridgeID),
            "factorynew": false, "replacesbridgeid": .null, "modelid": "BSB002", "starterkitid": "",
        ])
    }

    /// The whole configuration (`GET /api/<user>/config`), as `username` may read it, from what one visit to the
    /// home read: its own entry of the whitelist, not the others', whose names would let it act as them.
    func config(for username: String, in snapshot: Snapshot) -> JSONValue {
        guard case .object(var config) = shortConfig(name: snapshot.name) else { return .null }
        let now = snapshot.wallTime.utcText
        var whitelist = JSONObject()
        for user in snapshot.state.users where user.username == username {
            whitelist[user.username] = .object([
                "last use date": .string(now), "create date": .string(now), "name": .string(user.deviceType),
            ])
        }
        config["zigbeechannel"] = 25
        config["dhcp"] = true
        config["ipaddress"] = "127.0.0.1"
        config["netmask"] = "255.0.0.0"
        config["gateway"] = "127.0.0.1"
        config["proxyaddress"] = "none"
        config["proxyport"] = 0
        config["UTC"] = .string(now)
        config["localtime"] = .string(snapshot.wallTime.localText)
        config["timezone"] = .string(Self.zoneName(utcOffsetSeconds: snapshot.wallTime.utcOffsetSeconds))
        config["whitelist"] = .object(whitelist)
        config["linkbutton"] = .bool(snapshot.isLinkButtonPressed)
        config["portalservices"] = false
        config["portalconnection"] = "disconnected"
        config["swupdate2"] = .object([
            "checkforupdate": false, "lastchange": .string(now), "state": "noupdates",
            "bridge": .object(["state": "noupdates", "lastinstall": .string(now)]),
            "autoinstall": .object(["on": false, "updatetime": "T14:00:00"]),
        ])
        return .object(config)
    }

    /// `GET /api/<user>`: everything at once, as Home Assistant reads it.
    func fullState(for username: String) async -> JSONValue {
        let snapshot = await snapshot()
        return .object([
            "lights": lightsObject(snapshot.lights),
            "groups": Self.groupsObject(snapshot),
            "config": config(for: username, in: snapshot),
            "schedules": .object([:]), "scenes": Self.scenesObject(snapshot.state.scenes, for: username),
            "rules": .object([:]), "sensors": .object([:]),
            "resourcelinks": .object([:]),
        ])
    }

    /// What a request that shows several parts of the bridge reads of the home, in one visit, so that they agree.
    struct Snapshot: Sendable {
        var lights: [HueLight]
        var rooms: [HueRoom]
        var name: String
        var isLinkButtonPressed: Bool
        /// What the bridge keeps: its users, its scenes and the groups apps created among it.
        var state: HueBridgeState
        /// The simulated wall clock's time.
        var wallTime: WallTime
        /// The scenes whose lights are as their last recall left them (by v1 ID), as API v2 calls them active.
        var activeScenes: Set<String> = []
        /// The active scenes recalled to play their palette (by v1 ID): API v2's `dynamic_palette`.
        var dynamicScenes: Set<String> = []
        /// When each scene was last recalled (by v1 ID), as API v2's `status.last_recall` gives it.
        var lastRecalls: [String: String] = [:]
    }

    /// The bridge as the home shows it now.
    func snapshot() async -> Snapshot {
        await visit { home, memory in
            let lights = memory.withPaletteSpeeds(memory.lights(in: home))
            let active = memory.activeScenes(lights: lights)
            return Snapshot(
                lights: lights, rooms: memory.rooms(in: home, lights: lights), name: home.name,
                isLinkButtonPressed: memory.isLinkButtonPressed(atMs: home.nowMilliseconds),
                state: memory.state, wallTime: home.wallTime, activeScenes: active,
                dynamicScenes: memory.dynamicScenes, lastRecalls: memory.lastRecalls)
        }
    }

    /// Pairs an app, as ``HueBridgeMemory/pair(deviceType:username:atMs:)`` does, on the simulation's clock. A
    /// user with an event stream open is in use now, so the last a full whitelist forgets; one it forgets all the
    /// same has its streams ended.
    func pair(deviceType: String, username: String?) async throws(LumenError) -> HuePairing {
        let streaming = events.streamingKeys
        let paired = try await visit { home, memory throws(LumenError) in
            for key in streaming { _ = memory.use(key) }
            return try memory.pair(deviceType: deviceType, username: username, atMs: home.nowMilliseconds)
        }
        for user in paired.forgotten { events.closeStreams(of: user.username) }
        return paired
    }

    /// The zone a bridge names for an offset from UTC: `Etc/UTC`, or the `Etc/GMT` zone of whole hours (whose
    /// sign is the other way round: `Etc/GMT-1` is an hour east). An offset of part of an hour has no such
    /// zone, and is named `Etc/UTC` (`localtime` still shows it).
    static func zoneName(utcOffsetSeconds offset: Int) -> String {
        guard offset != 0, offset % 3_600 == 0 else { return "Etc/UTC" }
        return "Etc/GMT\(offset > 0 ? "-" : "+")\(abs(offset) / 3_600)"
    }
}

extension HueBridge: PairingControls {
    /// Presses the link button: for the next 30 seconds of simulation time an app may pair.
    public func pressLinkButton() async {
        await visit { home, memory in memory.linkButtonUntilMs = home.nowMilliseconds + Self.linkButtonMs }
    }

    /// Pairs `username` at once, without the link button.
    public func pairUser(_ username: String, deviceType: String) async throws(LumenError) {
        _ = try await pair(deviceType: deviceType, username: username)
    }
}
