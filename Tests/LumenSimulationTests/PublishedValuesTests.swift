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

    @Test func aLightsStateAndItsRoomsGroupValuesOnceReadFollowEveryCommand() async throws {
        let (home, _) = try await makeHome(TestFixtures.instantHome)
        let keys: [PropertyKey] = [
            .light("lab.plug", .isOn), .light("lab.dim", .brightness), .room("lab", .anyOn), .room("lab", .allOn),
        ]
        for key in keys { _ = try await home.read(key) }
        for (isOn, brightness) in [(true, 20.0), (false, 70.0), (true, 5.0)] {
            for light in ["lab.plug", "lab.dim"] {
                _ = try await home.submit(LightChange(isOn: isOn), to: LightID(light))
            }
            _ = try await home.submit(LightChange(brightness: brightness), to: "lab.dim")
            try await home.advance(byMilliseconds: 0)
            for key in keys {
                let actual = try await home.reading { home throws(LumenError) in try home.value(of: key) }
                #expect(home.published.value(for: key) == actual, "\(key)")
            }
        }
    }

    @Test func aChangeNobodyReadIsNotPublishedAndItsFirstReadIsCurrent() async throws {
        let (home, _) = try await makeHome(TestFixtures.instantHome)
        _ = try await home.submit(LightChange(isOn: true), to: "lab.plug")
        try await home.advance(byMilliseconds: 0)
        #expect(home.published.count == 0)
        #expect(try await home.read(.light("lab.plug", .isOn)) == true)
        #expect(try await home.read(.room("lab", .allOn)) == false)
    }

    @Test func aPropertyTheDeviceLacksIsAnErrorEveryTimeNeverAStoredValue() async throws {
        let (home, _) = try await makeHome(TestFixtures.instantHome)
        for _ in 0..<2 {
            await #expect(throws: LumenError.self) { try await home.read(.light("lab.plug", .brightness)) }
        }
        #expect(home.published.count == 0)
    }
}
