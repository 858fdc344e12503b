import Foundation
import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

@Suite("Latency and ordering")
struct LatencyAndOrderTests {
    @Test func aFixed300msLightAppliesExactlyWhenTheClockPasses300ms() async throws {
        let (home, log) = try await makeHome(singleLight(settings: #""latency": {"kind": "fixed", "ms": 300}"#))
        let ticket = try await home.submit(LightChange(isOn: false), to: "bulb")
        try await home.advance(byMilliseconds: 299.999)
        #expect(ticket.settledResult == nil)
        #expect(try await home.light("bulb").state.isOn == true)
        try await home.advance(byMilliseconds: 0.001)
        #expect(ticket.settledResult != nil)
        #expect(try await ticket.value.isOn == false)
        #expect(log.values("isOn", of: "bulb").map(\.ms) == [300])
    }

    @Test func commandsToOneLightApplyInTheOrderReceivedUnderRandomLatency() async throws {
        let (home, log) = try await makeHome(
            singleLight(settings: #""latency": {"kind": "uniform", "minMs": 0, "maxMs": 500}"#))
        var tickets: [CommandTicket] = []
        for brightness in 1...50 {
            tickets.append(try await home.submit(LightChange(brightness: Double(brightness)), to: "bulb"))
            try await home.advance(byMilliseconds: 3)
        }
        try await home.advance(byMilliseconds: 1_000)
        let applied = log.values("brightness", of: "bulb").map { $0.value.doubleValue! }
        // 100 (the start) is skipped by the Equatable short-circuit only if sent; every value arrives in order.
        #expect(applied == (1...50).map(Double.init))
        let times = log.values("brightness", of: "bulb").map(\.ms)
        #expect(times == times.sorted())
        for ticket in tickets { #expect(ticket.settledResult != nil) }
    }

    /// A question that holds later messages (a LIFX wave that comes back) is taken, as a change is, before anything
    /// sent after it: a question from memory then waits for it, and the light takes its messages from when it is
    /// taken. A plain question holds nothing back.
    @Test func aQuestionThatHoldsLaterMessagesIsTakenBeforeThem() async throws {
        let (home, _) = try await makeHome(singleLight(settings: #""latency": {"kind": "fixed", "ms": 300}"#))
        let plain = try #require(try await home.query("bulb"))
        #expect(try await home.messagesTakenMs(of: "bulb") == 0)
        guard case .now? = try await home.queryAtOnce("bulb") else {
            Issue.record("a question from memory waited for a plain question")
            return
        }
        let holding = try #require(try await home.query("bulb", holdingLater: true))
        #expect(try await home.messagesTakenMs(of: "bulb") == 300)
        guard case .afterEarlierChanges(let waiting)? = try await home.queryAtOnce("bulb") else {
            Issue.record("a question from memory was answered before the holding question was taken")
            return
        }
        try await home.advance(byMilliseconds: 299)
        #expect(plain.settledResult == nil && holding.settledResult == nil && waiting.settledResult == nil)
        try await home.advance(byMilliseconds: 1)
        #expect(holding.settledResult != nil && waiting.settledResult != nil)
        #expect(try await home.messagesTakenMs(of: "bulb") == 300)
    }

    @Test func aChangeToTheSameValueEmitsNothing() async throws {
        let (home, log) = try await makeHome(singleLight())
        let ticket = try await home.submit(LightChange(isOn: true), to: "bulb")
        try await home.advance(byMilliseconds: 0)
        #expect(try await ticket.value.isOn)
        #expect(log.all.isEmpty)
    }

    @Test func writingBrightnessToAPlugIsNotSupported() async throws {
        let (home, _) = try await makeHome(singleLight(kind: "onoff"))
        await #expect(throws: LumenError.self) { try await home.submit(LightChange(brightness: 50), to: "bulb") }
        do {
            _ = try await home.submit(LightChange(brightness: 50), to: "bulb")
        } catch {
            #expect(error.code == .notSupported)
            #expect(error.message.contains("has no brightness"))
        }
    }

    @Test func outOfRangeValuesAreRefusedAtOnce() async throws {
        let (home, _) = try await makeHome(singleLight())
        for change in [
            LightChange(brightness: -1), LightChange(brightness: 101), LightChange(colorTemperature: 600),
            LightChange(color: CIEColor(x: 2, y: 0)),
        ] {
            do {
                _ = try await home.submit(change, to: "bulb")
                Issue.record("accepted \(change)")
            } catch { #expect(error.code == .invalidParams) }
        }
    }

    @Test func aSeededRunReplaysByteForByte() async throws {
        func run() async throws -> String {
            let (home, log) = try await makeHome(
                String(contentsOfFile: "\(TestFixturesPath.fixtures)/flaky-network.json", encoding: .utf8))
            var settled: [String] = []
            try await CommandSource.$current.withValue("replay") {
                for step in 0..<200 {
                    let lights: [LightID] = ["garage.main", "garden.path", "garden.shed", "cellar.bulb"]
                    let light = lights[step % lights.count]
                    _ = try? await home.submit(
                        LightChange(isOn: step % 3 != 0, brightness: Double(step % 100 + 1)), to: light)
                    if step == 120 {
                        // Back to the fixture halfway: a reset replays too.
                        let fixture = try Fixture(
                            json: Array(
                                try String(
                                    contentsOfFile: "\(TestFixturesPath.fixtures)/flaky-network.json", encoding: .utf8
                                ).utf8))
                        try await home.restore(to: fixture)
                    }
                    if step % 50 == 49 {
                        _ = try? await home.setAll(LightChange(isOn: true), in: "garden", transitionMs: 400)
                        let (advanced, idle) = try await home.advanceUntilIdle(maxMs: 120_000)
                        settled.append("settled \(advanced) \(idle)")
                    } else {
                        try await home.advance(byMilliseconds: 250)
                    }
                }
            }
            try await home.advance(byMilliseconds: 60_000)
            // The command record, with every outcome, replays too.
            let records = await home.commandRecords().map { $0.jsonValue.serialized() }
            return ([log.transcript] + settled + records).joined(separator: "\n")
        }
        let first = try await run()
        let second = try await run()
        #expect(first.count > 1_000)
        #expect(first == second)
    }
}

enum TestFixturesPath {
    static var fixtures: String {
        let here = #filePath
        return String(here[..<here.range(of: "/Tests/")!.lowerBound]) + "/fixtures"
    }
}
