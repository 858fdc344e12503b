import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

/// A group command that gives each light its own change (``Home/setEach(_:transitionMs:network:)``): how a Hue
/// bridge's scene recall reaches its lights.
@Suite("Group commands with a change for each light")
struct GroupCommandEachTests {
    @Test func eachLightTakesItsOwnChangeAndLeavesOutWhatItLacks() async throws {
        let (home, _) = try await makeHome(GroupCommandTests.room)
        let ticket = try await home.setEach(
            [
                ("den.a", LightChange(isOn: true, color: CIEColor(x: 0.2, y: 0.3))),
                ("den.b", LightChange(isOn: true, brightness: 30, color: CIEColor(x: 0.5, y: 0.4))),
                ("den.d", LightChange()),
            ])
        try await home.advance(byMilliseconds: 100)
        let outcome = try await ticket.outcome
        #expect(outcome.map(\.light) == ["den.a", "den.b", "den.d"])
        #expect(outcome[1] == .init(light: "den.b", applied: [.isOn, .brightness], ignored: [.color], missed: nil))
        #expect(try await home.light("den.a").state.color == CIEColor(x: 0.2, y: 0.3))
        #expect(try await home.light("den.b").state.brightness == 30)
        #expect(try await !home.light("den.d").state.isOn)
        #expect(await home.commandRecords(light: "den.d").isEmpty, "an empty change is sent to nobody")
    }

    @Test func aGroupCommandThatChangesNothingIsRefused() async throws {
        let (home, _) = try await makeHome(GroupCommandTests.room)
        await #expect(throws: LumenError.self) { try await home.setEach([("den.a", LightChange())]) }
        await #expect(throws: LumenError.self) { try await home.setEach([]) }
    }
}
