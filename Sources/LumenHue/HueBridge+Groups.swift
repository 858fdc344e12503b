import LumenModel
import LumenProtocol
import LumenSimulation

extension HueBridge {
    /// `GET /api/<user>/groups`: every room as a group of type `Room`, by number (group 0 is not listed, as on
    /// a bridge).
    func groupsObject() async -> JSONValue {
        let (lights, rooms) = await home.reading { home in (home.hueLights(), home.hueRooms()) }
        return Self.groupsObject(lights: lights, rooms: rooms)
    }

    /// Every room as a group, by number, from what one visit to the home read.
    static func groupsObject(lights: [HueLight], rooms: [HueRoom]) -> JSONValue {
        .object(JSONObject(rooms.map { room in (key: String(room.number), value: json(of: room, lights: lights)) }))
    }

    /// `GET /api/<user>/groups/<n>`; group 0 is every light behind the bridge.
    func group(_ number: String) async throws(HueError) -> JSONValue {
        let (lights, rooms) = await home.reading { home in (home.hueLights(), home.hueRooms()) }
        if number == "0" {
            let all = HueRoom(number: 0, id: "", name: "Group 0", lights: lights.map(\.number))
            guard case .object(var group) = Self.json(of: all, lights: lights) else { return .null }
            group["type"] = "LightGroup"
            group["class"] = nil
            return .object(group)
        }
        guard let value = Int(number), let room = rooms.first(where: { $0.number == value }) else {
            throw HueError.notAvailable("/groups/\(number)")
        }
        return Self.json(of: room, lights: lights)
    }

    /// The room whose group number `number` gives.
    func hueRoom(_ number: String) async throws(HueError) -> HueRoom {
        guard let value = Int(number), let room = await home.hueRooms().first(where: { $0.number == value }) else {
            throw HueError.notAvailable("/groups/\(number)")
        }
        return room
    }

    /// A room as the Hue API v1 shows a group: its lights, whether any and all are on, and the state of its
    /// first light as its last action.
    static func json(of room: HueRoom, lights: [HueLight]) -> JSONValue {
        let members = lights.filter { room.lights.contains($0.number) }
        let on = members.filter(\.light.state.isOn).count
        var action: JSONObject = ["on": .bool(on > 0), "alert": "none"]
        if let first = members.first?.light {
            if first.model.kind.supports(.brightness) {
                action["bri"] = .int(HueValues.bri(brightness: first.state.brightness))
            }
            if first.model.kind.supports(.colorTemperature) { action["ct"] = .int(first.state.colorTemperature) }
            if first.model.kind.supports(.color) {
                action["xy"] = .array([.double(first.state.color.x), .double(first.state.color.y)])
            }
        }
        return .object([
            "name": .string(room.name), "lights": .array(room.lights.map { .string(String($0)) }), "sensors": [],
            "type": "Room",
            "state": .object(["all_on": .bool(!members.isEmpty && on == members.count), "any_on": .bool(on > 0)]),
            "recycle": false, "class": "Other", "action": .object(action),
        ])
    }

    /// `PUT /api/<user>/groups/<n>/action`: a room's group command to its lights behind the bridge, or for
    /// group 0 one to every light behind the bridge.
    func groupAction(_ number: String, _ request: HTTPRequest, from sender: String) async throws -> HTTPResponse {
        // Group 0 is every light; another number must name a room, or it is not there, whatever the body asks.
        let room = number == "0" ? nil : try await hueRoom(number).id
        let address = "/groups/\(number)/action"
        let body = try bodyObject(request, address: address)
        let command = try HueCommand(body, kind: .color, at: address)
        guard !command.change.properties.isEmpty else { return .json(.array(command.successes)) }
        do {
            try await scopeContext.performGroup(
                command.change, in: room, transitionMs: command.transitionMs, network: .hueBridge, from: sender)
        } catch {
            throw command.hueError(for: error)
        }
        return .json(.array(command.successes))
    }
}
