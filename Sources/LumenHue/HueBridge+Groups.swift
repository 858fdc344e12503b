import LumenModel
import LumenProtocol
import LumenSimulation

extension HueBridge {
    /// `GET /api/<user>/groups`: every room as a group of type `Room` and every group an app created, by number
    /// (group 0 is not listed, as on a bridge), from what one visit to the home read.
    static func groupsObject(_ snapshot: Snapshot) -> JSONValue {
        var groups = snapshot.rooms.map { room in (number: room.number, value: json(of: room, lights: snapshot.lights))
        }
        groups += snapshot.state.groups.map { group in
            (number: group.number, value: json(of: group, in: snapshot))
        }
        return .object(
            JSONObject(groups.sorted { $0.number < $1.number }.map { (key: String($0.number), value: $0.value) }))
    }

    /// `GET /api/<user>/groups/<n>`; group 0 is every light behind the bridge.
    func group(_ number: String) async throws(HueError) -> JSONValue {
        let snapshot = await snapshot()
        let lights = snapshot.lights
        if number == "0" {
            let all = HueRoom(number: 0, id: "", name: "Group 0", lights: lights.map(\.number))
            guard case .object(var group) = Self.json(of: all, lights: lights) else { return .null }
            group["type"] = "LightGroup"
            group["class"] = nil
            return .object(group)
        }
        guard let value = Int(number) else { throw HueError.notAvailable("/groups/\(number)") }
        if let room = snapshot.rooms.first(where: { $0.number == value }) { return Self.json(of: room, lights: lights) }
        guard let group = snapshot.state.groups.first(where: { $0.number == value }) else {
            throw HueError.notAvailable("/groups/\(number)")
        }
        return Self.json(of: group, in: snapshot)
    }

    /// A group an app created, as the Hue API v1 shows it: as a room is shown, with its own type, and a class
    /// only for a zone.
    static func json(of group: HueBridgeState.Group, in snapshot: Snapshot) -> JSONValue {
        let members = snapshot.groupLights(group.number) ?? []
        let shown = HueRoom(number: group.number, id: "", name: group.name, lights: members)
        guard case .object(var object) = json(of: shown, lights: snapshot.lights) else { return .null }
        object["type"] = .string(group.kind.rawValue)
        object["class"] = group.kind == .zone ? .string(group.roomClass) : nil
        return .object(object)
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
            // The colour of its first light, in that light's colour mode, as a bridge reports a group's.
            for (key, value) in HueValues.colorFields(of: first.state, kind: first.model.kind) { action[key] = value }
        }
        return .object([
            "name": .string(room.name), "lights": .array(room.lights.map { .string(String($0)) }), "sensors": [],
            "type": "Room",
            "state": .object(["all_on": .bool(!members.isEmpty && on == members.count), "any_on": .bool(on > 0)]),
            "recycle": false, "class": .string(room.roomClass), "action": .object(action),
        ])
    }

    /// `PUT /api/<user>/groups/<n>/action`: a room's group command to its lights behind the bridge, for group 0
    /// one to every light behind the bridge, for a group an app created one to its lights; or, with `scene`, the
    /// scene's recall.
    func groupAction(_ number: String, _ request: HTTPRequest, from sender: String) async throws -> HTTPResponse {
        // The group must be there, whatever the body asks.
        let snapshot = await snapshot()
        guard let value = Int(number), let members = snapshot.groupLights(value) else {
            throw HueError.notAvailable("/groups/\(number)")
        }
        let address = "/groups/\(number)/action"
        let body = try bodyObject(request, address: address)
        if body["scene"] != nil {
            return try await recallScene(body, group: number, lights: value == 0 ? nil : members, from: sender)
        }
        let command = HueCommand(taking: body, kind: .color, at: address)
        let lights = snapshot.lights.filter { members.contains($0.number) }
        // The group's lights take no effect while off, as each refuses one; the bridge still answers a success.
        // Judged as the command leaves them: `"on": false` puts out those on too.
        let lit = lights.filter { command.change.isOn ?? $0.light.state.isOn }.map(\.light.id)
        guard command.changesSomething else {
            await applyEffects(of: command, to: lights.map(\.light.id), loopingOnly: lit)
            return .json(.array(command.results))
        }
        do {
            if command.movesFromEachLight {
                // Each light moves from where it is: one group command all the same, each its own change.
                let changes = lights.map { ($0.light.id, command.change(for: $0)) }
                // A group whose lights each take nothing (a `sat` to white lights) still takes its `alert`.
                if changes.contains(where: { !$0.1.properties.isEmpty }) {
                    try await scopeContext.performEach(
                        changes, transitionMs: command.transitionMs, network: .hueBridge, from: sender)
                }
            } else if let room = snapshot.rooms.first(where: { $0.number == value }) {
                try await scopeContext.performGroup(
                    command.change, in: room.id, transitionMs: command.transitionMs, network: .hueBridge, from: sender)
            } else if value == 0 {
                try await scopeContext.performGroup(
                    command.change, in: nil, transitionMs: command.transitionMs, network: .hueBridge, from: sender)
            } else {
                guard !lights.isEmpty else { return .json(.array(command.results)) }
                try await scopeContext.performEach(
                    lights.map { ($0.light.id, command.change(for: $0)) }, transitionMs: command.transitionMs,
                    network: .hueBridge, from: sender)
            }
        } catch {
            throw command.hueError(for: error)
        }
        await applyEffects(of: command, to: lights.map(\.light.id), loopingOnly: lit)
        return .json(.array(command.results))
    }
}
