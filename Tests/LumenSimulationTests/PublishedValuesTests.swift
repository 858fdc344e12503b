import LumenModel
import LumenProtocol
import LumenSimulation
import LumenTestSupport
import Testing

/// Reads that need not wait for the `Home` actor answer what a read on the actor would.
@Suite("Published values")
struct PublishedValuesTests {
    @Test func aReadFillsTheTableAndEachAnnouncedChangeKeepsItCurrent() async throws {
        let (home, _) = try await makeHome(TestFixtures.instantHome)
        #expect(home.published.value(for: .light("lab.plug", .name)) == nil)
        #expect(try await home.read(.light("lab.plug", .name)) == "Plug")
        #expect(home.published.value(for: .light("lab.plug", .name)) == "Plug")
        try await home.setName("Kettle", of: .light("lab.plug"))
        #expect(home.published.value(for: .light("lab.plug", .name)) == "Kettle")
        #expect(try await home.read(.light("lab.plug", .name)) == "Kettle")
    }

    @Test func aRemovedLightsValuesAreForgottenSoItsReadsFail() async throws {
        let (home, _) = try await makeHome(TestFixtures.instantHome)
        _ = try await home.read(.light("lab.plug", .isReachable))
        try await home.removeLight("lab.plug")
        #expect(home.published.value(for: .light("lab.plug", .isReachable)) == nil)
        await #expect(throws: LumenError.self) { try await home.read(.light("lab.plug", .isReachable)) }
    }

    @Test func aPropertyTheDeviceLacksIsAnErrorEveryTimeNeverAStoredValue() async throws {
        let (home, _) = try await makeHome(TestFixtures.instantHome)
        for _ in 0..<2 {
            await #expect(throws: LumenError.self) { try await home.read(.light("lab.plug", .brightness)) }
        }
        #expect(home.published.count == 0)
    }
}
