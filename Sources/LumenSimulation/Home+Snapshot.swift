import LumenModel

extension Home {
    /// The home as it is now, as a fixture: what the state store writes, and what a harness can replay.
    ///
    /// A light mid-transition is saved at its target, as a real bulb that lost power would come back.
    public func snapshot() -> Fixture {
        var fixture = Fixture(
            id: fixtureIdentity.id, name: name, seed: fixtureIdentity.seed,
            rooms: roomOrder.compactMap { id in
                guard let room = rooms[id] else { return nil }
                var fixtureRoom = RoomFixture(
                    id: id, name: room.name, lights: room.lightIDs.compactMap { fixtureEntry(of: $0) },
                    undiscovered: room.undiscovered)
                fixtureRoom.defaults = room.defaults
                return fixtureRoom
            })
        fixture.durability = durability
        fixture.defaults = defaults
        fixture.discovery = discovery
        // Run-time power cycles are not part of the home's description.
        fixture.faultSchedule = Array(faultSchedule.prefix(fixtureFaultCount))
        return fixture
    }
}
