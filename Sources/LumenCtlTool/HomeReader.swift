import LumenClient
import LumenProtocol

/// Reads what the commands show, through the same scopes any client uses.
struct HomeReader {
    let client: LumenClient

    struct Light {
        var id: String
        var room: String
        var values: JSONObject

        var kind: String { values["model"]?["kind"]?.stringValue ?? "?" }
        var json: JSONValue {
            var object: JSONObject = ["id": .string(id), "room": .string(room)]
            for member in values { object[member.key] = member.value }
            return .object(object)
        }
    }

    static let lightConnections = ["name", "model", "isOn", "brightness", "colorTemperature", "color", "isReachable"]
    /// The short words `set` takes, for the properties they stand for.
    static let propertyAliases = ["ct": "colorTemperature", "xy": "color"]

    func roomIDs() async throws(LumenClientError) -> [String] {
        try await client.get("roomIDs", in: .root).arrayValue?.compactMap(\.stringValue) ?? []
    }

    func openRoom(_ room: String) async throws(LumenClientError) -> ScopeID {
        try await client.open("room", in: .root, configuration: .string(room))
    }

    /// The room a light is in.
    func room(of light: String) async throws -> String {
        for room in try await roomIDs() {
            let scope = try await openRoom(room)
            let lights = try await client.get("lightIDs", in: scope).arrayValue?.compactMap(\.stringValue) ?? []
            try await client.close(scope)
            if lights.contains(light) { return room }
        }
        throw Failure("no light '\(light)'; list lights with 'lumenctl lights'")
    }

    /// Opens a light's scope (and its room's).
    func openLight(_ light: String) async throws -> (room: String, scope: ScopeID) {
        let room = try await room(of: light)
        let roomScope = try await openRoom(room)
        return (room, try await client.open("light", in: roomScope, configuration: .string(light)))
    }

    /// Every property of a light the device has (unsupported ones are left out).
    func read(_ light: String, room: String, scope: ScopeID) async throws(LumenClientError) -> Light {
        var values = JSONObject()
        for connection in Self.lightConnections {
            do throws(LumenClientError) {
                values[connection] = try await client.get(connection, in: scope)
            } catch  where error.code == .notSupported {
                continue
            }
        }
        return Light(id: light, room: room, values: values)
    }

    /// The lights of some rooms (all when `only` is nil), in order.
    func lights(inRooms only: [String]? = nil) async throws -> [(room: String, name: String, lights: [Light])] {
        var result: [(String, String, [Light])] = []
        let rooms: [String]
        if let only { rooms = only } else { rooms = try await roomIDs() }
        for room in rooms {
            let roomScope = try await openRoom(room)
            let name = try await client.get("name", in: roomScope).stringValue ?? room
            let ids = try await client.get("lightIDs", in: roomScope).arrayValue?.compactMap(\.stringValue) ?? []
            let client = client
            let lights = try await withThrowingTaskGroup(of: (Int, Light).self) { group in
                for (index, id) in ids.enumerated() {
                    group.addTask {
                        let scope = try await client.open("light", in: roomScope, configuration: .string(id))
                        let light = try await HomeReader(client: client).read(id, room: room, scope: scope)
                        return (index, light)
                    }
                }
                var found: [(Int, Light)] = []
                for try await item in group { found.append(item) }
                return found.sorted { $0.0 < $1.0 }.map(\.1)
            }
            try await client.close(roomScope)
            result.append((room, name, lights))
        }
        return result
    }
}
