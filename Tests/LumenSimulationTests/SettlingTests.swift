import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

/// Settling the virtual clock: to the next event, or until nothing is pending, without guessing how far.
@Suite("Settling the virtual clock")
struct SettlingTests {
    @Test func toTheNextEventGoesExactlyAsFarAsTheDeviceTakes() async throws {
        let (home, log) = try await makeHome(singleLight(settings: #""latency": {"kind": "fixed", "ms": 300}"#))
        let ticket = try await home.submit(LightChange(isOn: false), to: "bulb")
        #expect(try await home.advanceToNextEvent() == 300)
        #expect(ticket.settledResult != nil)
        #expect(log.values("isOn", of: "bulb").map(\.ms) == [300])
        // Nothing left: the clock stays.
        #expect(try await home.advanceToNextEvent() == 0)
        #expect(await home.nowMilliseconds == 300)
    }

    @Test func untilIdleRunsCommandsAndTheirFadesToTheEnd() async throws {
        let (home, log) = try await makeHome(
            singleLight(settings: #""latency": {"kind": "uniform", "minMs": 20, "maxMs": 400}"#))
        let ticket = try await home.submit(LightChange(brightness: 10), to: "bulb", transitionMs: 2_000)
        let settled = try await home.advanceUntilIdle(maxMs: 60_000)
        #expect(settled.idle)
        #expect(ticket.settledResult != nil)
        #expect(log.values("brightness", of: "bulb").last?.value == 10)
        // It went as far as the last step of the fade, no further.
        #expect(settled.advancedMs == log.values("brightness", of: "bulb").last?.ms)
        #expect(settled.advancedMs > 2_000 && settled.advancedMs <= 2_400)
    }

    @Test func untilIdleStopsAtItsLimitWhenWorkRemains() async throws {
        let (home, _) = try await makeHome(singleLight(settings: #""latency": {"kind": "fixed", "ms": 300}"#))
        let ticket = try await home.submit(LightChange(isOn: false), to: "bulb")
        let settled = try await home.advanceUntilIdle(maxMs: 100)
        #expect(!settled.idle && settled.advancedMs == 100)
        #expect(ticket.settledResult == nil)
        #expect(try await home.advanceUntilIdle(maxMs: 1_000) == (advancedMs: 200, idle: true))
    }

    @Test func scheduledFaultsAreNotPendingWork() async throws {
        let json = """
            {"schema": 1, "id": "t", "name": "T", "defaults": {"latency": "instant"},
             "rooms": [{"id": "r", "name": "R", "lights": [{"id": "bulb", "name": "Bulb", "kind": "color"}]}],
             "faultSchedule": [{"light": "bulb", "fault": "unreachable", "fromMs": 600000, "untilMs": 700000}]}
            """
        let (home, _) = try await makeHome(json)
        #expect(try await home.advanceUntilIdle(maxMs: 3_600_000) == (advancedMs: 0, idle: true))
        #expect(try await home.advanceToNextEvent() == 600_000)
    }

    @Test func theClockMovesAtMostADayAtATimeHoweverItIsMoved() async throws {
        let (home, _) = try await makeHome(singleLight(settings: #""latency": "instant""#))
        do {
            try await home.advance(byMilliseconds: 86_400_001)
            Issue.record("the clock moved more than a day")
        } catch {
            #expect(
                error.code == .invalidParams
                    && error.message == "ms must be from 0 to 86400000 ms (a day), got 86400001")
        }
        do {
            _ = try await home.advanceUntilIdle(maxMs: 86_400_001)
            Issue.record("the clock was let move more than a day")
        } catch {
            #expect(error.message == "maxMs must be from 0 to 86400000 ms (a day), got 86400001")
        }
        try await home.advance(byMilliseconds: SimulatedDurations.longestAdvanceMs)
        #expect(await home.clockValue["nowMs"] == 86_400_000)
    }
}
