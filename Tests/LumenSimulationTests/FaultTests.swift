import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

@Suite("Faults")
struct FaultTests {
    @Test func anUnreachableLightFailsAfterItsTimeout() async throws {
        let (home, log) = try await makeHome(singleLight(settings: #""latency": "instant", "timeoutMs": 1500"#))
        try await home.setReachable(false, light: "bulb")
        #expect(log.values("isReachable", of: "bulb").map(\.value) == [false])
        let ticket = try await home.submit(LightChange(isOn: false), to: "bulb")
        try await home.advance(byMilliseconds: 1_499)
        #expect(ticket.settledResult == nil)
        try await home.advance(byMilliseconds: 1)
        let result = await ticket.result
        guard case .failure(let error) = result else { Issue.record("succeeded"); return }
        #expect(error.code == .unreachable)
        #expect(try await home.light("bulb").state.isOn == true)
    }

    @Test func aDroppedCommandTimesOut() async throws {
        let (home, _) = try await makeHome(
            singleLight(settings: #""latency": "instant", "dropProbability": 1, "timeoutMs": 800"#))
        let ticket = try await home.submit(LightChange(isOn: false), to: "bulb")
        try await home.advance(byMilliseconds: 800)
        guard case .failure(let error) = await ticket.result else { Issue.record("succeeded"); return }
        #expect(error.code == .timedOut)
    }

    @Test func theDropRateMatchesItsSettingWithinStatisticalBounds() async throws {
        let (home, _) = try await makeHome(
            singleLight(settings: #""latency": "instant", "dropProbability": 0.3, "timeoutMs": 10"#))
        let count = 2_000
        var dropped = 0
        for step in 0..<count {
            let ticket = try await home.submit(LightChange(brightness: Double(step % 100 + 1)), to: "bulb")
            try await home.advance(byMilliseconds: 10)
            if case .failure(let error) = await ticket.result, error.code == .timedOut { dropped += 1 }
        }
        // Binomial(2000, 0.3): mean 600, standard deviation ≈ 20.5; four deviations either side.
        #expect((518...682).contains(dropped), "dropped \(dropped) of \(count)")
    }

    @Test func theRateLimitRefusesExcessCommandsWithBusy() async throws {
        let (home, _) = try await makeHome(singleLight(settings: #""latency": "instant", "rateLimitPerSecond": 20"#))
        for step in 0..<20 { _ = try await home.submit(LightChange(brightness: Double(step + 1)), to: "bulb") }
        do {
            _ = try await home.submit(LightChange(brightness: 50), to: "bulb")
            Issue.record("the 21st command in the same instant was accepted")
        } catch {
            #expect(error.code == .busy)
            #expect(error.message.contains("at most 20 commands a second"))
        }
        // 100 ms later two more tokens have come back.
        try await home.advance(byMilliseconds: 100)
        _ = try await home.submit(LightChange(brightness: 60), to: "bulb")
        _ = try await home.submit(LightChange(brightness: 61), to: "bulb")
        await #expect(throws: LumenError.self) { try await home.submit(LightChange(brightness: 62), to: "bulb") }
    }

    @Test func aLimitOfOneCommandASecondSaysCommandOnce() async throws {
        let (home, _) = try await makeHome(
            singleLight(settings: #""latency": "instant", "rateLimitPerSecond": 1, "timeoutMs": 1000"#))
        _ = try await home.submit(LightChange(brightness: 10), to: "bulb")
        let error = await #expect(throws: LumenError.self) {
            try await home.submit(LightChange(brightness: 20), to: "bulb")
        }
        #expect(error?.message.contains("at most 1 command a second;") == true, "\(error?.message ?? "")")
    }

    @Test func aScheduledFaultMakesALightUnreachableForItsWindowAsItsControllerNotices() async throws {
        let (home, log) = try await makeHome(
            String(contentsOfFile: "\(TestFixturesPath.fixtures)/flaky-network.json", encoding: .utf8))
        try await home.advance(byMilliseconds: 6_000)
        #expect(try await home.groundTruth(of: "garden.path").truth.isReachable == false)
        try await home.advance(byMilliseconds: 25_000)
        // A LIFX bulb: its client notices it gone only after 10 s of silence, and back at once.
        let changes = log.values("isReachable", of: "garden.path")
        #expect(changes.map(\.ms) == [15_000, 30_000])
        #expect(changes.map(\.value) == [false, true])
    }

    @Test func aPowerCycleRestoresOrResetsAsTheLightSays() async throws {
        // Two lights that never drop a command, power-cycled at 30 s: one comes back as it was, the other at
        // its factory default.
        let (home, _) = try await makeHome(
            """
            {"schema": 1, "id": "cycle", "name": "Cycle", "seed": 5,
             "defaults": {"latency": "instant", "dropProbability": 0, "powerOn": "default"},
             "rooms": [{"id": "room", "name": "Room", "lights": [
               {"id": "reset", "name": "Reset", "kind": "dimmable"},
               {"id": "kept", "name": "Kept", "kind": "dimmable", "powerOn": "restore"}]}],
             "faultSchedule": [
               {"light": "reset", "fault": "powerCycle", "fromMs": 30000, "untilMs": 31000},
               {"light": "kept", "fault": "powerCycle", "fromMs": 30000, "untilMs": 31000}]}
            """)
        for light: LightID in ["reset", "kept"] {
            _ = try await home.submit(LightChange(isOn: false, brightness: 10), to: light)
        }
        try await home.advance(byMilliseconds: 29_000)
        #expect(try await home.light("kept").state.brightness == 10)
        #expect(try await home.light("reset").state.brightness == 10)
        try await home.advance(byMilliseconds: 3_000)
        #expect(try await home.light("kept").state.brightness == 10)
        #expect(try await home.light("kept").state.isOn == false)
        #expect(try await home.light("reset").state == LightState.factoryDefault)
    }

    @Test func removingALightFailsItsPendingCommandsAndSaysItWasRemoved() async throws {
        let (home, log) = try await makeHome(singleLight(settings: #""latency": {"kind": "fixed", "ms": 100}"#))
        let ticket = try await home.submit(LightChange(isOn: false), to: "bulb")
        try await home.removeLight("bulb")
        guard case .failure(let error) = await ticket.result else { Issue.record("succeeded"); return }
        #expect(error.code == .noSuchEntity)
        #expect(log.all.contains { $0.entity == .light("bulb") && $0.change == .removed(.light("bulb")) })
        #expect(try await home.lightIDs(in: "room").isEmpty)
    }
}

@Suite("The ground truth as JSON")
struct DeviceTruthJSONTests {
    /// A light's ground truth is written with its state's keys in one order, the properties' own, in every
    /// process: a transcript that holds it replays byte for byte.
    @Test(arguments: ["onoff", "dimmable", "ambiance", "color"])
    func theStateKeysComeInThePropertiesOrder(kind: String) async throws {
        let (home, _) = try await makeHome(singleLight(kind: kind))
        let (truth, lightKind) = try await home.groundTruth(of: "bulb")
        let keys = truth.jsonValue(kind: lightKind)["state"]?.objectValue?.keys.map { $0 } ?? []
        let expected = LightProperty.allCases.filter { lightKind.capabilities.contains($0) }.map(\.rawValue)
        #expect(keys == expected)
    }
}
