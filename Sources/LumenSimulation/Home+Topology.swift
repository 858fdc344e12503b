import LumenModel
import LumenProtocol

extension Home {
    /// Adds an empty room at the end.
    /// - Throws: ``LumenError`` `alreadyExists` or `invalidParams` for a bad ID.
    package func addRoom(id: RoomID, name roomName: String) throws(LumenError) {
        let room: JSONObject = ["room": .string(id.rawValue)]
        if let problem = EntityID.validate(id.rawValue) { throw LumenError(.invalidParams, problem, data: room) }
        if let problem = EntityName.validate(roomName) { throw LumenError(.invalidParams, problem, data: room) }
        guard rooms[id] == nil else {
            throw LumenError(.alreadyExists, "room '\(id)' already exists; give the new room another ID", data: room)
        }
        rooms[id] = SimulatedRoom(
            name: roomName, defaults: DeviceSettings(), lightIDs: [], undiscovered: [])
        roomOrder.append(id)
        emit(.home(.roomIDs), .array(roomOrder.map { .string($0.rawValue) }))
        persist(.room(id))
        persist(.home)
        topologyGeneration += 1
    }

    /// Removes a room and its lights. Each light's removal is emitted first, then the room's.
    package func removeRoom(_ id: RoomID) throws(LumenError) {
        guard let room = rooms[id] else { throw Self.noSuchRoom(id, listedBy: .simulation) }
        for light in room.lightIDs { try removeLight(light) }
        rooms[id] = nil
        discovery.forget(id)
        roomOrder.removeAll { $0 == id }
        topologyGeneration += 1
        emitRemoval(of: .room(id))
        emit(.home(.roomIDs), .array(roomOrder.map { .string($0.rawValue) }))
        persist(.room(id))
        persist(.home)
    }

    /// Adds a light to a room, as if it had been installed and paired.
    /// - Parameter asSaved: the light as the home saved it (a checkpoint's): not held to the colour temperatures
    ///   it takes, as a snapshot is not, since one an older lumend saved may lie outside them.
    /// - Throws: ``LumenError`` `noSuchEntity` for an unknown room, `alreadyExists` for a taken ID,
    ///   `invalidParams` for a colour temperature the light does not take.
    package func addLight(_ fixture: LightFixture, to roomID: RoomID, asSaved: Bool = false) throws(LumenError) {
        let light: JSONObject = ["room": .string(roomID.rawValue), "light": .string(fixture.id.rawValue)]
        if let problem = EntityID.validate(fixture.id.rawValue) {
            throw LumenError(.invalidParams, problem, data: light)
        }
        if let problem = EntityName.validate(fixture.name) { throw LumenError(.invalidParams, problem, data: light) }
        guard rooms[roomID] != nil else { throw Self.noSuchRoom(roomID, listedBy: .simulation) }
        guard lights[fixture.id] == nil else {
            throw LumenError(
                .alreadyExists, "light '\(fixture.id)' already exists; give the new light another ID", data: light)
        }
        if !asSaved,
            let problem = fixture.colorTemperatureProblem(
                settings: effectiveSettings(of: fixture.id, in: roomID, own: fixture.settings))
        {
            throw LumenError(.invalidParams, problem, data: light)
        }
        if let address = fixture.lifxAddress, let owner = lifxAddressOwner(of: address) {
            throw LumenError(
                .alreadyExists,
                "the LIFX address \(address) is light '\(owner)''s already; each bulb needs its own, so give the new "
                    + "light another lifx.address, or none to have one counted", data: light)
        }
        let before = rooms[roomID]!.groupState
        insertLight(fixture, room: roomID)
        rooms[roomID]?.lightIDs.append(fixture.id)
        emit(.room(roomID, .lightIDs), .array(rooms[roomID]!.lightIDs.map { .string($0.rawValue) }))
        emitGroupChange(of: roomID, since: before)
        persist(.light(fixture.id))
        persist(.room(roomID))
        tellFronts(.lightAdded(fixture.id))
    }

    /// The light, or the light waiting to be discovered, whose fixture gives it `address` on the LIFX LAN.
    func lifxAddressOwner(of address: IPv4Address) -> LightID? {
        if let owner = lifxAddresses.owner(of: address) { return owner }
        for room in rooms.values {
            if let pending = room.undiscovered.first(where: { $0.light.lifxAddress == address }) {
                return pending.light.id
            }
        }
        return nil
    }

    /// Removes a light. Commands still waiting for it fail with `noSuchEntity`.
    package func removeLight(_ id: LightID) throws(LumenError) {
        guard let before = lights[id].flatMap({ rooms[$0.room]?.groupState }), let light = forgetLight(id) else {
            throw Self.noSuchLight(id, listedBy: .simulation)
        }
        rooms[light.room]?.lightIDs.removeAll { $0 == id }
        for (_, command) in pending.removeCommands(to: id) { settle(command, .failure(Self.noSuchLight(id))) }
        emitRemoval(of: .light(id))
        if let room = rooms[light.room] {
            emit(.room(light.room, .lightIDs), .array(room.lightIDs.map { .string($0.rawValue) }))
            emitGroupChange(of: light.room, since: before)
        }
        persist(.light(id))
        persist(.room(light.room))
        forgetFrontEntries(of: id)
    }
}
