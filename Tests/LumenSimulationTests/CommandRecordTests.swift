import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

/// The command record: every command a light received, who sent it, and what became of it.
@Suite("The command record")
struct CommandRecordTests {
    static let twoRooms = """
        {"schema": 1, "id": "t", "name": "T", "seed": 3, "defaults": {"latency": {"kind": "fixed", "ms": 100}},
         "rooms": [
           {"id": "kitchen", "name": "Kitchen", "lights": [
             {"id": "kitchen.spot", "name": "Spot", "kind": "dimmable"},
             {"id": "kitchen.plug", "name": "Plug", "kind": "onoff"}]},
           {"id": "hall", "name": "Hall", "lights": [
             {"id": "hall.lamp", "name": "Lamp", "kind": "color", "dropProbability": 1, "timeoutMs": 500}]}]}
        """

    @Test func eachCommandIsRecordedWithItsSenderTimeAndOutcome() async throws {
        let (home, _) = try await makeHome(Self.twoRooms)
        try await home.advance(byMilliseconds: 1_000)
        try await CommandSource.$current.withValue("automation") {
            _ = try await home.submit(LightChange(brightness: 40), to: "kitchen.spot", transitionMs: 2_000)
            await #expect(throws: LumenError.self) {
                try await home.submit(LightChange(brightness: 40), to: "kitchen.plug")
            }
            _ = try await home.submit(LightChange(isOn: false), to: "hall.lamp")
        }
        #expect(await home.commandRecords().map(\.outcome) == [.pending, .refused(.notSupported), .pending])
        _ = try await home.advanceUntilIdle(maxMs: 10_000)
        let records = await home.commandRecords()
        #expect(records.map(\.outcome) == [.applied, .refused(.notSupported), .dropped])
        let dimmed = try #require(records.first)
        #expect(dimmed.number == 1 && dimmed.atMs == 1_000 && dimmed.source == "automation")
        #expect(dimmed.change == LightChange(brightness: 40) && dimmed.transitionMs == 2_000)
        #expect(
            dimmed.jsonValue
                == [
                    "number": 1, "atMs": 1_000, "at": "2026-01-01T00:00:01.000Z", "source": "automation",
                    "light": "kitchen.spot",
                    "change": ["brightness": 40], "transitionMs": 2_000, "outcome": "applied",
                ])
        #expect(records[1].jsonValue["code"] == .int(LumenError.Code.notSupported.rawValue))
    }

    @Test func theRecordAndTheClockShowTheSimulatedWallClock() async throws {
        let home = Home(
            fixture: try Fixture(json: Array(Self.twoRooms.utf8)), clock: .virtual,
            start: try WallClock(parsing: "2026-12-04T22:59:59.5+01:00"))
        try await home.advance(byMilliseconds: 500)
        _ = try await home.submit(LightChange(isOn: true), to: "kitchen.spot")
        let record = try #require(await home.commandRecords().first)
        #expect(record.jsonValue["at"] == "2026-12-04T23:00:00.000+01:00")
        try await home.advance(byMilliseconds: 3_600_000)
        #expect(await home.clockValue["wallTime"] == "2026-12-05T00:00:00.000+01:00")
        #expect(await home.wallTime.utcText == "2026-12-04T23:00:00")
    }

    @Test func aCommandThatReachedNoLightIsNotRecorded() async throws {
        let (home, _) = try await makeHome(Self.twoRooms)
        await #expect(throws: LumenError.self) { try await home.submit(LightChange(isOn: true), to: "kitchen.typo") }
        #expect(await home.commandRecords().isEmpty)
        await home.shutDown()
        await #expect(throws: LumenError.self) { try await home.submit(LightChange(isOn: true), to: "kitchen.spot") }
        #expect(await home.commandRecords().isEmpty)
    }

    @Test func theRecordIsReadForALightARoomOrSinceATime() async throws {
        let (home, _) = try await makeHome(Self.twoRooms)
        _ = try await home.submit(LightChange(isOn: true), to: "kitchen.spot")
        try await home.advance(byMilliseconds: 200)
        _ = try await home.setAll(LightChange(isOn: false), in: "kitchen")
        _ = try await home.submit(LightChange(isOn: true), to: "hall.lamp")
        _ = try await home.advanceUntilIdle(maxMs: 10_000)
        #expect(await home.commandRecords(light: "kitchen.spot").map(\.number) == [1, 2])
        #expect(await home.commandRecords(room: "kitchen").map(\.number) == [1, 2, 3])
        #expect(await home.commandRecords(room: "kitchen").map(\.room) == [nil, "kitchen", "kitchen"])
        #expect(await home.commandRecords(sinceMs: 200).map(\.number) == [2, 3, 4])
    }

    @Test func onlyTheLastCommandsAreKept() async throws {
        let json = singleLight(settings: #""latency": "instant""#)
        let home = Home(fixture: try Fixture(json: Array(json.utf8)), clock: .virtual, commandRecordLimit: 3)
        for brightness in 1...5 {
            _ = try await home.submit(LightChange(brightness: Double(brightness)), to: "bulb")
            _ = try await home.advanceUntilIdle(maxMs: 1_000)
        }
        #expect(await home.commandRecords().map(\.number) == [3, 4, 5])
        #expect(await home.commandRecords().map(\.change.brightness) == [3, 4, 5])
        #expect(await home.commandRecords().allSatisfy { $0.outcome == .applied })
    }

    @Test func aClearedRecordHoldsOnlyWhatCameAfterAndNumbersGoOn() async throws {
        let (home, _) = try await makeHome(Self.twoRooms)
        _ = try await home.submit(LightChange(isOn: true), to: "kitchen.spot")
        _ = try await home.submit(LightChange(isOn: true), to: "hall.lamp")
        #expect(await home.clearCommandRecords() == 2)
        #expect(await home.commandRecords().isEmpty)
        _ = try await home.submit(LightChange(brightness: 10), to: "kitchen.spot")
        // The two sent before the clear settle now: their outcomes go nowhere, the later record keeps its own.
        _ = try await home.advanceUntilIdle(maxMs: 10_000)
        let records = await home.commandRecords()
        #expect(records.map(\.number) == [3] && records.map(\.outcome) == [.applied])
    }

    @Test func aFullRingClearedFillsAgainFromTheStart() async throws {
        let json = singleLight(settings: #""latency": {"kind": "fixed", "ms": 50}"#)
        let home = Home(fixture: try Fixture(json: Array(json.utf8)), clock: .virtual, commandRecordLimit: 2)
        for brightness in 1...3 { _ = try await home.submit(LightChange(brightness: Double(brightness)), to: "bulb") }
        #expect(await home.clearCommandRecords() == 2)
        _ = try await home.submit(LightChange(brightness: 4), to: "bulb")
        _ = try await home.advanceUntilIdle(maxMs: 1_000)
        #expect(await home.commandRecords().map(\.number) == [4])
        #expect(await home.commandRecords().map(\.outcome) == [.applied])
    }

    @Test func theLastOutcomeIsToldToWatchersOnceSomeoneWatchesIt() async throws {
        let (home, log) = try await makeHome(singleLight(settings: #""latency": {"kind": "fixed", "ms": 50}"#))
        let watched = EventLog()
        await home.addWatcher { watched.record($0) }
        _ = try await home.submit(LightChange(isOn: false), to: "bulb")
        try await home.advance(byMilliseconds: 50)
        #expect(watched.all.isEmpty)
        #expect(try await home.value(of: .home(.lastCommand))["number"] == 1)
        await home.watch(.home(.lastCommand))
        _ = try await home.submit(LightChange(isOn: true), to: "bulb")
        try await home.advance(byMilliseconds: 50)
        let last = try await home.value(of: .home(.lastCommand))
        #expect(last["number"] == 2 && last["outcome"] == "applied")
        #expect(watched.all.map(\.change) == [.property(.home(.lastCommand), last)])
        // Not a change of the home's state: observers, which hear every change, do not hear of it.
        #expect(!log.all.contains { $0.change == .property(.home(.lastCommand), last) })
    }
}
