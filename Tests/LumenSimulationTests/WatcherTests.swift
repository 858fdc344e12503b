import LumenModel
import LumenProtocol
import LumenSimulation
import LumenTestSupport
import Testing

/// A watcher (a server's subscriptions) hears of the changes to watched properties and of every removal; an
/// observer hears of every change.
@Suite("Watchers")
struct WatcherTests {
    @Test func aWatcherHearsOnlyWatchedPropertiesAndEveryRemoval() async throws {
        let (home, everything) = try await makeHome(TestFixtures.instantHome)
        let watched = EventLog()
        await home.addWatcher { watched.record($0) }
        await home.watch(.light("lab.dim", .brightness))
        await home.watch(.room("lab", .allOn))
        _ = try await home.submit(LightChange(isOn: true, brightness: 20), to: "lab.dim")
        _ = try await home.submit(LightChange(isOn: true), to: "lab.plug")
        try await home.advance(byMilliseconds: 0)
        // The commands' changes: the dimmer's brightness and the room's allOn, not the two lights switching on.
        let expected: [ChangeEvent.Change] = [
            .property(.light("lab.dim", .brightness), 20), .property(.room("lab", .allOn), true),
        ]
        #expect(watched.all.map(\.change) == expected)
        try await home.removeLight("attic.tunable")
        #expect(watched.all.map(\.change).contains(.removed(.light("attic.tunable"))))
        // The observer heard of everything: both lights switching on too, and the attic's light list.
        #expect(everything.all.count > watched.all.count)
        #expect(everything.values("isOn", of: "lab.plug").map(\.value) == [true])
    }

    @Test func aWatchedPropertyOfALightAddedLaterIsHeardOnceWatched() async throws {
        let (home, _) = try await makeHome(TestFixtures.instantHome)
        let watched = EventLog()
        await home.addWatcher { watched.record($0) }
        let model = DeviceModel(kind: .color, manufacturer: "x", product: "y")
        try await home.addLight(LightFixture(id: "lab.new", name: "New", model: model), to: "lab")
        _ = try await home.submit(LightChange(isOn: false), to: "lab.new")
        try await home.advance(byMilliseconds: 0)
        #expect(watched.values("isOn", of: "lab.new").isEmpty)
        await home.watch(.light("lab.new", .isOn))
        _ = try await home.submit(LightChange(isOn: true), to: "lab.new")
        try await home.advance(byMilliseconds: 0)
        #expect(watched.values("isOn", of: "lab.new").map(\.value) == [true])
    }

    @Test func aRemovedWatcherHearsNothingMoreAndTheOthersStillDo() async throws {
        let (home, _) = try await makeHome(TestFixtures.instantHome)
        let (removed, kept) = (EventLog(), EventLog())
        let id = await home.addWatcher { removed.record($0) }
        await home.addWatcher { kept.record($0) }
        await home.watch(.light("lab.dim", .brightness))
        await home.removeWatcher(id)
        _ = try await home.submit(LightChange(isOn: true, brightness: 20), to: "lab.dim")
        try await home.advance(byMilliseconds: 0)
        #expect(removed.all.isEmpty)
        #expect(kept.all.map(\.change) == [.property(.light("lab.dim", .brightness), 20)])
    }
}
