import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

@Suite("Command receipts")
struct CommandReceiptTests {
    @Test func anInstantLightOnTheRealClockAnswersInTheReceiptItself() async throws {
        let home = Home(fixture: try Fixture(json: Array(singleLight().utf8)), clock: .real)
        let receipt = try await home.send(LightChange(isOn: false), to: "bulb")
        guard case .settled(let result) = receipt else {
            Issue.record("an instant light on the real clock gave a ticket to wait on")
            return
        }
        #expect(try result.get().isOn == false)
        #expect(try await home.light("bulb").state.isOn == false)
        #expect(receipt.ticket.settledResult != nil)
        await home.shutDown()
    }

    @Test func aLightWithLatencyGivesATicketThatSettlesWhenItApplies() async throws {
        let (home, log) = try await makeHome(singleLight(settings: #""latency": {"kind": "fixed", "ms": 40}"#))
        let receipt = try await home.send(LightChange(isOn: false), to: "bulb")
        guard case .waiting(let ticket) = receipt else {
            Issue.record("a light 40 ms away answered before the clock moved")
            return
        }
        #expect(ticket.settledResult == nil)
        try await home.advance(byMilliseconds: 40)
        #expect(try await ticket.value.isOn == false)
        #expect(log.values("isOn", of: "bulb").map(\.ms) == [40])
    }

    @Test func aRefusalMadeAtOnceComesInTheReceipt() async throws {
        let home = Home(
            fixture: try Fixture(
                json: Array(
                    singleLight(settings: #""latency": "instant", "whileOff": "refuse""#, state: #"{"isOn": false}"#)
                        .utf8)),
            clock: .real)
        let receipt = try await home.send(LightChange(brightness: 10), to: "bulb")
        guard case .settled(.failure(let error)) = receipt else {
            Issue.record("a light that is off and refuses took brightness: \(receipt)")
            return
        }
        #expect(error.code == .deviceOff)
        await #expect(throws: LumenError.self) { try await receipt.ticket.value }
        await home.shutDown()
    }

    @Test func settingsChangedAfterACommandGovernTheNextOne() async throws {
        let (home, log) = try await makeHome(singleLight())
        let first = try await home.submit(LightChange(isOn: false), to: "bulb")
        try await home.advance(byMilliseconds: 0)
        #expect(try await first.value.isOn == false)
        try await home.updateSettings(DeviceSettings(latency: .fixed(ms: 250)), light: "bulb")
        let second = try await home.submit(LightChange(isOn: true), to: "bulb")
        try await home.advance(byMilliseconds: 249)
        #expect(second.settledResult == nil)
        try await home.advance(byMilliseconds: 1)
        #expect(try await second.value.isOn)
        #expect(log.values("isOn", of: "bulb").map(\.ms) == [0, 250])
    }
}
