import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

/// A running home brought back to a fixture or a checkpoint.
@Suite("Reset and checkpoints")
struct RestoreTests {
    static let home = """
        {"schema": 1, "id": "t", "name": "T", "seed": 3, "defaults": {"latency": "instant"},
         "rooms": [
           {"id": "kitchen", "name": "Kitchen", "lights": [
             {"id": "kitchen.spot", "name": "Spot", "kind": "dimmable", "state": {"isOn": true, "brightness": 50}},
             {"id": "kitchen.plug", "name": "Plug", "kind": "onoff"}]},
           {"id": "hall", "name": "Hall", "lights": [{"id": "hall.lamp", "name": "Lamp", "kind": "color"}]}]}
        """

    /// Changes of every kind: state, a fade under way, names, reachability, settings, topology.
    static func change(_ home: Home) async throws {
        _ = try await home.submit(LightChange(brightness: 90), to: "kitchen.spot", transitionMs: 5_000)
        _ = try await home.submit(LightChange(isOn: false), to: "kitchen.plug")
        try await home.advance(byMilliseconds: 1_000)
        try await home.setName("Cooking", of: .room("kitchen"))
        try await home.setName("Home", of: .home)
        try await home.setReachable(false, light: "hall.lamp")
        try await home.updateSettings(DeviceSettings(dropProbability: 0.5), light: "kitchen.plug")
        try await home.removeRoom("hall")
        try await home.addRoom(id: "attic", name: "Attic")
        try await home.addLight(
            LightFixture(
                id: "attic.bulb", name: "Bulb", model: DeviceModel(kind: .onoff, manufacturer: "Acme", product: "Plug")),
            to: "attic")
        try await home.removeLight("kitchen.spot")
        try await home.addLight(
            LightFixture(
                id: "kitchen.spot", name: "Spot",
                model: DeviceModel(kind: .color, manufacturer: "Acme", product: "Bulb")), to: "kitchen")
    }

    @Test func restoringACheckpointGivesBackTheHomeAsItWas() async throws {
        let (home, _) = try await makeHome(Self.home)
        try await home.advance(byMilliseconds: 100)
        try await home.checkpoint("start")
        let before = await home.snapshot()
        try await Self.change(home)
        await home.saveFrontRecord("hue", ["pairings": 1])
        #expect(await home.snapshot() != before)
        try await home.restore(checkpoint: "start")
        // What the fronts keep comes back too: the Hue bridge's record as the checkpoint had it (none).
        #expect(await home.snapshot() == before)
        #expect(await home.frontRecord("hue") == nil)
        // The fade that was under way does not go on afterwards.
        try await home.advance(byMilliseconds: 10_000)
        #expect(await home.snapshot() == before)
    }

    @Test func aLightThatStaysIsChangedInPlaceAndAnnouncedOnce() async throws {
        let (home, log) = try await makeHome(Self.home)
        let fixture = try Fixture(json: Array(Self.home.utf8))
        _ = try await home.submit(LightChange(brightness: 20), to: "kitchen.spot")
        try await home.advance(byMilliseconds: 0)
        let mark = log.all.count
        try await home.restore(to: fixture)
        let changes = log.all.dropFirst(mark).map(\.change)
        #expect(changes == [.property(.light("kitchen.spot", .brightness), 50)])
    }

    @Test func aCheckpointNeverTakenIsNamed() async throws {
        let (home, _) = try await makeHome(Self.home)
        try await home.checkpoint("a")
        await #expect(throws: LumenError.self) { try await home.restore(checkpoint: "b") }
        do {
            try await home.restore(checkpoint: "b")
        } catch {
            #expect(error.code == .noSuchEntity && error.message.contains("(taken: 'a')"), "\(error)")
        }
    }

    @Test func lumendKeepsAtMostSixtyFourCheckpointsUntilOneIsDropped() async throws {
        let (home, _) = try await makeHome(Self.home)
        for number in 1...Home.maxCheckpoints { try await home.checkpoint("c\(number)") }
        // Taking one again under a name it has replaces it: no more are kept.
        try await home.checkpoint("c1")
        do {
            try await home.checkpoint("one-more")
            Issue.record("a 65th checkpoint was kept")
        } catch {
            #expect(error.code == .limitExceeded && error.message.contains("dropCheckpoint"), "\(error)")
        }
        try await home.dropCheckpoint("c1")
        try await home.checkpoint("one-more")
        try await home.restore(checkpoint: "one-more")
        await #expect(throws: LumenError.self) { try await home.restore(checkpoint: "c1") }
    }

    @Test func aCheckpointNameFollowsTheRulesOfIDs() async throws {
        let (home, _) = try await makeHome(Self.home)
        for name in ["", String(repeating: "a", count: EntityID.maxLength + 1), "a b", "ünder"] {
            do {
                try await home.checkpoint(name)
                Issue.record("checkpoint '\(name)' was taken")
            } catch {
                #expect(error.code == .invalidParams, "\(error)")
            }
        }
        try await home.checkpoint(String(repeating: "a", count: EntityID.maxLength))
    }

    @Test func droppingACheckpointNeverTakenIsNamed() async throws {
        let (home, _) = try await makeHome(Self.home)
        try await home.checkpoint("a")
        do {
            try await home.dropCheckpoint("b")
            Issue.record("dropped a checkpoint never taken")
        } catch {
            #expect(error.code == .noSuchEntity && error.message.contains("(taken: 'a')"), "\(error)")
        }
    }
}
