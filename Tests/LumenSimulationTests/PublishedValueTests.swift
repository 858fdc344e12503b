import LumenModel
import LumenSimulation
import LumenTestSupport
import Testing

@Suite("Reads without a hop")
struct PublishedValueTests {
    func makeHome() throws -> Home {
        Home(fixture: try Fixture(json: Array(TestFixtures.instantHome.utf8)), clock: .virtual)
    }

    @Test func aReadAfterAChangeSeesTheChange() async throws {
        let home = try makeHome()
        #expect(try await home.read("isOn", of: .light("lab.color")) == true)
        #expect(try await home.read("brightness", of: .light("lab.color")) == .double(100))
        let ticket = try await home.submit(LightChange(isOn: false, brightness: 40), to: "lab.color")
        try await home.advance(byMilliseconds: 0)
        _ = try await ticket.value
        // Both were read (and so kept) before the change; neither may be stale after it.
        #expect(try await home.read("isOn", of: .light("lab.color")) == false)
        #expect(try await home.read("brightness", of: .light("lab.color")) == .double(40))
        // A fade is read step by step, as subscribers are told.
        _ = try await home.submit(LightChange(brightness: 80), to: "lab.color", transitionMs: 1_000)
        try await home.advance(byMilliseconds: 500)
        let midway = try await home.read("brightness", of: .light("lab.color"))
        #expect(midway == (try await home.value(of: "brightness", of: .light("lab.color"))))
        #expect(midway != .double(40) && midway != .double(80))
    }

    @Test func renamesAndTopologyChangesAreSeen() async throws {
        let home = try makeHome()
        #expect(try await home.read("name", of: .room("lab")) == "Lab")
        #expect(try await home.read("roomIDs", of: .home) == ["lab", "attic"])
        try await home.setName("Workshop", of: .room("lab"))
        try await home.addRoom(id: "loft", name: "Loft")
        #expect(try await home.read("name", of: .room("lab")) == "Workshop")
        #expect(try await home.read("roomIDs", of: .home) == ["lab", "attic", "loft"])
    }

    @Test func aRemovedLightCannotBeReadFromWhatWasKept() async throws {
        let home = try makeHome()
        #expect(try await home.read("name", of: .light("lab.plug")) == "Plug")
        try await home.removeLight("lab.plug")
        await #expect(throws: LumenError.self) { try await home.read("name", of: .light("lab.plug")) }
        // A new light with the same ID is read afresh, not from the old one's values.
        try await home.addLight(
            LightFixture(
                id: "lab.plug", name: "New plug", model: DeviceModel(kind: .onoff, manufacturer: "L", product: "P")),
            to: "lab")
        #expect(try await home.read("name", of: .light("lab.plug")) == "New plug")
    }

    @Test func reachabilityFromForcedAndScheduledOutagesIsSeen() async throws {
        let home = try makeHome()
        #expect(try await home.read("isReachable", of: .light("lab.dim")) == true)
        try await home.powerCycle(light: "lab.dim", durationMs: 100)
        #expect(try await home.read("isReachable", of: .light("lab.dim")) == false)
        try await home.advance(byMilliseconds: 100)
        #expect(try await home.read("isReachable", of: .light("lab.dim")) == true)
    }
}
