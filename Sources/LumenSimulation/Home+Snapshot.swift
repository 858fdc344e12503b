import LumenModel

extension Home {
    /// The home as it is now, as a fixture: what the state store writes, and what a harness can replay.
    ///
    /// A light mid-transition is saved at its target, as a real bulb that lost power would come back.
    package func snapshot() -> Fixture {
        var fixture = Fixture(
            id: fixtureIdentity.id, name: name, seed: fixtureIdentity.seed,
            rooms: roomOrder.compactMap { id in
                guard var fixtureRoom = roomFixture(of: id) else { return nil }
                fixtureRoom.lights = rooms[id]!.lightIDs.compactMap { light in
                    lights.slot(of: light).map { fixtureEntry(at: $0) }
                }
                return fixtureRoom
            })
        fixture.durability = durability
        fixture.start = fixtureStart
        fixture.defaults = defaults
        fixture.discovery = discovery.settings
        fixture.bridge = bridge.settings
        fixture.fronts = frontRecords
        fixture.faultSchedule = faults.fixtureFaults
        return fixture
    }

    /// The saved form of one entity as it is now: what the state journal records when it changes.
    func record(of entity: Entity) -> StateRecord {
        switch entity {
        case .home:
            return .home(name: name, roomIDs: roomOrder)
        case .room(let id):
            guard let header = roomFixture(of: id) else { return .removedRoom(id) }
            return .room(header, lightIDs: rooms[id]!.lightIDs)
        case .light(let id):
            guard let index = lights.slot(of: id) else { return .removedLight(id) }
            return .light(fixtureEntry(at: index), room: lights[slot: index].room)
        }
    }

    /// A room's own fields as a fixture room, its lights left out.
    func roomFixture(of id: RoomID) -> RoomFixture? {
        guard let room = rooms[id] else { return nil }
        var fixture = RoomFixture(id: id, name: room.name, lights: [], undiscovered: room.undiscovered)
        fixture.defaults = room.defaults
        return fixture
    }
}
