import LumenModel
import LumenProtocol

extension HueBridge {
    /// `POST /api/<user>/groups`: creates a `LightGroup` or a `Zone` of lights behind the bridge. A `Room` is
    /// refused: Lumen's rooms are the home's, and each light is in one already, so a bridge would refuse it too
    /// (error 306, a light is already in another room).
    func createGroup(_ request: HTTPRequest) async throws -> HTTPResponse {
        let address = "/groups"
        let body = try bodyObject(request, address: address)
        for key in body.keys where !["name", "type", "lights", "class"].contains(key) {
            throw HueError.parameterNotAvailable(key, at: address)
        }
        let snapshot = await snapshot()
        let lights = try Self.lightNumbers(body["lights"] ?? [], in: snapshot, at: address, allowingNone: true)
        let typeName = body["type"].map { $0.stringValue ?? "" } ?? "LightGroup"
        if typeName == "Room" {
            guard let first = lights.first else {
                throw HueError.invalidValue("Room", of: "type", at: address)
            }
            throw HueError(
                type: 306, address: "\(address)/lights", description: "Light \(first) is already used in another room")
        }
        guard let kind = HueBridgeState.Group.Kind(rawValue: typeName) else {
            throw HueError.invalidValue(body["type"] ?? .null, of: "type", at: address)
        }
        let roomClass = try Self.roomClass(body["class"], at: address) ?? "Other"
        if kind == .lightGroup, body["class"] != nil { throw HueError.parameterNotAvailable("class", at: address) }
        let name = try body["name"].map { value throws(HueError) in try HueValues.name(value, at: address) }
        let number = try await changeState { state throws(HueError) in
            guard state.groups.count < HueBridgeState.groupLimit else {
                throw HueError(
                    type: 301, address: address, description: "group could not be created. Group table is full.")
            }
            return state.addGroup(
                name: name ?? "Group \(state.groups.count + 1)", type: kind, lights: lights, roomClass: roomClass)
        }
        try await commit()
        return .json([["success": ["id": .string(String(number))]]])
    }

    /// `PUT /api/<user>/groups/<n>`: a created group's `name`, `lights` and (a zone's) `class`; a room's `name`,
    /// which renames the home's room, and `class`, which the bridge keeps. A room's lights are the home's, and
    /// group 0 is every light: changing either is refused as a bridge refuses it (error 305). Any other parameter
    /// (a light group's `class`, phue's `transitiontime`) is answered with error 6, beside the others taken.
    func changeGroup(_ number: String, _ request: HTTPRequest) async throws -> HTTPResponse {
        let address = "/groups/\(number)"
        let snapshot = await snapshot()
        guard let value = Int(number), snapshot.groupLights(value) != nil else { throw HueError.notAvailable(address) }
        let body = try bodyObject(request, address: address)
        let group = snapshot.state.groups.first(where: { $0.number == value })
        // A light group has no class; a zone and a room have.
        let hasClass = group.map { $0.kind == .zone } ?? true
        let attributes: Set<String> = hasClass ? ["name", "lights", "class"] : ["name", "lights"]
        let answer = Self.answer(to: body, taking: attributes, at: address)
        guard body.keys.contains(where: attributes.contains) else { return .json(.array(answer)) }
        guard let group else {
            guard let room = snapshot.rooms.first(where: { $0.number == value }), body["lights"] == nil else {
                throw Self.notModifiable(address)
            }
            try await changeRoom(room.id, body, at: address)
            return .json(.array(answer))
        }
        var changed = group
        if let name = body["name"] { changed.name = try HueValues.name(name, at: address) }
        if let lights = body["lights"] {
            changed.lights = try Self.lightNumbers(lights, in: snapshot, at: address, allowingNone: true)
        }
        if let roomClass = body["class"], group.kind == .zone {
            changed.roomClass = try Self.roomClass(roomClass, at: address) ?? group.roomClass
        }
        try await changeState { [changed] state throws(HueError) in
            guard state.updateGroup(value, { $0 = changed }) else { throw HueError.notAvailable(address) }
        }
        try await commit()
        return .json(.array(answer))
    }

    /// A room's `name` (the home's room renamed) and `class` (kept by the bridge), each checked before either
    /// is changed.
    private func changeRoom(_ room: RoomID, _ body: JSONObject, at address: String) async throws {
        let newName = try body["name"].map { value throws(HueError) in try HueValues.name(value, at: address) }
        let roomClass = try Self.roomClass(body["class"], at: address)
        if let newName {
            try await renameEntity(.room(room), to: newName) {
                HueError(type: 7, address: "\(address)/name", description: $0.message)
            }
        }
        if let roomClass {
            await changeState { state in state.roomClasses[room] = roomClass }
            try await commit()
        }
    }

    /// `DELETE /api/<user>/groups/<n>`: forgets a group an app created, and the scenes stored for it. A room
    /// and group 0 stay (error 305).
    func deleteGroup(_ number: String) async throws -> HTTPResponse {
        let address = "/groups/\(number)"
        let snapshot = await snapshot()
        guard let value = Int(number), snapshot.groupLights(value) != nil else { throw HueError.notAvailable(address) }
        guard snapshot.state.groups.contains(where: { $0.number == value }) else { throw Self.notModifiable(address) }
        try await changeState { state throws(HueError) in
            guard state.removeGroup(value) else { throw HueError.notAvailable(address) }
        }
        try await commit()
        return .json([["success": .string("\(address) deleted")]])
    }

    /// Hue's refusal to change or delete a group of a kind apps may not change.
    static func notModifiable(_ address: String) -> HueError {
        HueError(type: 305, address: address, description: "It is not allowed to update or delete group of this type")
    }

    /// The classes a room or zone may take, as the Hue API v1 lists them (those of 1.30 included): each a name
    /// the Hue app shows as an icon, written as listed.
    static let roomClasses: Set<String> = [
        "Living room", "Kitchen", "Dining", "Bedroom", "Kids bedroom", "Bathroom", "Nursery", "Recreation", "Office",
        "Gym", "Hallway", "Toilet", "Front door", "Garage", "Terrace", "Garden", "Driveway", "Carport", "Other",
        "Home", "Downstairs", "Upstairs", "Top floor", "Attic", "Guest room", "Staircase", "Lounge", "Man cave",
        "Computer", "Studio", "Music", "TV", "Reading", "Closet", "Storage", "Laundry room", "Balcony", "Porch",
        "Barbecue", "Pool", "Free",
    ]

    /// A room's or zone's class, when given: one of ``roomClasses``.
    /// - Throws: ``HueError`` 7 for any other value, as a bridge answers it.
    static func roomClass(_ value: JSONValue?, at address: String) throws(HueError) -> String? {
        guard let value else { return nil }
        guard let name = value.stringValue, roomClasses.contains(name) else {
            throw HueError.invalidValue(value, of: "class", at: address)
        }
        return name
    }
}
