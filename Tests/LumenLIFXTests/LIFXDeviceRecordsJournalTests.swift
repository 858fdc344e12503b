import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import LumenTestSupport
import Synchronization
import Testing

@testable import LumenLIFX

/// The bulbs' record is journaled a bulb at a time, frame buffers out of sight never, a HEV cycle by the time it
/// has left (which a restart or reboot cuts short, and a checkpoint's restore brings back); records written before
/// still read.
@Suite("LIFX bulbs' records in the journal")
struct LIFXDeviceRecordsJournalTests {
    typealias Saving = LIFXDeviceRecordsSavingTests

    static func parsed(_ line: String) throws -> StateRecord {
        try StateRecord(cursor: JSONCursor(JSONParser.parse(Array(line.utf8))))
    }

    @Test func aJournalLineCarriesTheChangedBulbAloneAndAFrameOutOfSightNothing() async throws {
        let home = Home(fixture: try Fixture(json: Array(Saving.home.utf8)), clock: .virtual)
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
        let journal = Locked<[StateRecord]>([])
        await home.setPersistenceSink { record in journal.withLock { $0.append(record) } }
        func send(_ type: UInt16, _ payload: [UInt8], to light: LightID) async throws {
            _ = try await Saving.replies(type, payload, to: light, of: front, home: home)
        }
        let red = HSBK(hue: 0, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
        let blue = HSBK(hue: 43_690, saturation: 65_535, brightness: 32_768, kelvin: 3_500)
        // A tile's pixels: a large entry, which another bulb's change does not write again.
        try await send(
            715, [2, 1, 0, 0, 0, 8, 0, 0, 0, 0] + (0..<64).flatMap { Saving.color($0 < 32 ? red : blue) },
            to: "den.tile")
        journal.withLock { $0 = [] }
        try await send(122, [0x34, 0x12], to: "den.nv")
        let fronts = journal.withLock { $0 }.filter { $0.jsonValue["light"] == nil }
        #expect(fronts == [.frontEntry("lifx", key: "den.nv", .object(["infrared": .int(0x1234)]))])
        #expect(fronts.first?.jsonValue.serialized() == #"{"lifx":{"infrared":4660},"entry":"den.nv"}"#)

        // Into frame buffer 1, out of sight: no change to save.
        journal.withLock { $0 = [] }
        let changes = front.records.changes.load(ordering: .relaxed)
        try await send(
            715, [0, 1, 1, 0, 0, 8, 0, 0, 0, 0] + (0..<64).flatMap { _ in Saving.color(red) }, to: "den.tile")
        try await send(716, [0, 1, 0, 2, 0, 0, 0, 0, 8, 8, 0, 0, 0, 0, 0], to: "den.tile")
        #expect(journal.withLock { $0 }.isEmpty)
        #expect(front.records.changes.load(ordering: .relaxed) == changes)
    }

    @Test func aWholeRecordJournaledBeforeStillReplaysUnderEntries() async throws {
        let fixture = try Fixture(json: Array(Saving.home.utf8))
        let lines = [
            #"{"lifx": {"den.nv": {"infrared": 4660}, "den.strip": {"infrared": 1}}}"#,
            #"{"lifx": {"infrared": 5}, "entry": "den.nv"}"#,
            #"{"lifx": null, "entry": "den.strip"}"#,
        ]
        let replayed = try fixture.applying(batches: lines.map { [try Self.parsed($0)] })
        #expect(replayed.fronts["lifx"] == .object(["den.nv": .object(["infrared": .int(5)])]))
        let home = Home(fixture: replayed, clock: .virtual)
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
        let state = try await Saving.replies(120, [], to: "den.nv", of: front, home: home)
        #expect(state.first?.payload == [5, 0])
        // Only the LIFX bulbs' record goes an entry at a time.
        #expect(throws: JSONShapeError.self) { try Self.parsed(#"{"hue": {}, "entry": "x"}"#) }
    }

    /// The seconds a `StateHevCycle` says are left.
    static func hevLeft(of front: LIFXFront, home: Home) async throws -> (durationS: UInt32, leftS: UInt32) {
        let state = try await Saving.replies(142, [], to: "den.clean", of: front, home: home)
        var reader = LIFXReader(try #require(state.first).payload)
        return (reader.uint32(), reader.uint32())
    }

    /// The `LastHevCycleResult` the Clean reports.
    static func lastHEVResult(of front: LIFXFront, home: Home) async throws -> UInt8? {
        try await Saving.replies(148, [], to: "den.clean", of: front, home: home).first?.payload.first
    }

    @Test func aHEVCycleUnderWayEndsInterruptedByARestart() async throws {
        let home = Home(fixture: try Fixture(json: Array(Saving.home.utf8)), clock: .virtual)
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
        _ = try await Saving.replies(143, [1, 100, 0, 0, 0], to: "den.clean", of: front, home: home)
        try await home.advance(byMilliseconds: 30_000)
        #expect(try await Self.hevLeft(of: front, home: home) == (100, 70))
        #expect(try await Self.lastHEVResult(of: front, home: home) == 1, "BUSY while a cycle runs")

        // Started again on a simulated wall clock months later: a restart is a boot, which cuts a cycle short.
        guard case .object(var saved) = await home.snapshot().jsonValue else { return }
        saved["start"] = .string("2026-06-01T00:00:00Z")
        let again = Home(fixture: try Fixture(json: Array(JSONValue.object(saved).serialized().utf8)), clock: .virtual)
        let journal = Locked<[StateRecord]>([])
        await again.setPersistenceSink { record in journal.withLock { $0.append(record) } }
        let restarted = LIFXFront(scopeContext: ScopeContext(home: again), port: 56_700)
        #expect(try await Self.hevLeft(of: restarted, home: again) == (100, 0), "the cycle cut short, none left")
        #expect(try await Self.lastHEVResult(of: restarted, home: again) == 2, "INTERRUPTED_BY_RESET")
        // Saved so: a checkpoint or another restart does not bring the cycle back.
        let record = try #require(await again.frontRecord("lifx"))
        #expect(record["den.clean"]?["hev"]?["cycle"] == nil)
        #expect(record["den.clean"]?["hev"]?["lastResult"] == .int(2))
        #expect(record["den.clean"]?["hev"]?["lastCycle"]?["durationS"] == .int(100))
        #expect(journal.withLock { $0 }.contains { $0.jsonValue["entry"] == .string("den.clean") })
    }

    @Test func aRebootOrAPowerCutEndsAHEVCycleInterrupted() async throws {
        let home = Home(fixture: try Fixture(json: Array(Saving.home.utf8)), clock: .virtual)
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
        _ = try await Saving.replies(143, [1, 100, 0, 0, 0], to: "den.clean", of: front, home: home)
        _ = try await Saving.replies(38, [], to: "den.clean", of: front, home: home)
        try await home.advance(byMilliseconds: 3_000)
        #expect(try await Self.hevLeft(of: front, home: home) == (100, 0))
        #expect(try await Self.lastHEVResult(of: front, home: home) == 2)

        // A cycle that ran its length reports done; a power cut then has no cycle to cut short.
        _ = try await Saving.replies(143, [1, 10, 0, 0, 0], to: "den.clean", of: front, home: home)
        try await home.advance(byMilliseconds: 11_000)
        try await home.powerCycle(light: "den.clean", durationMs: 1_000)
        try await home.advance(byMilliseconds: 2_000)
        #expect(try await Self.lastHEVResult(of: front, home: home) == 0)

        // A power cut, with no message to the bulb after it: saved at once.
        _ = try await Saving.replies(143, [1, 100, 0, 0, 0], to: "den.clean", of: front, home: home)
        try await home.powerCycle(light: "den.clean", durationMs: 1_000)
        let record = try #require(await home.frontRecord("lifx"))
        #expect(record["den.clean"]?["hev"]?["cycle"] == nil)
        #expect(record["den.clean"]?["hev"]?["lastResult"] == .int(2))
        try await home.advance(byMilliseconds: 2_000)
        #expect(try await Self.hevLeft(of: front, home: home) == (100, 0))
        #expect(try await Self.lastHEVResult(of: front, home: home) == 2)
    }

    @Test func aCheckpointsRestoreBringsBackTheHEVCycleItHeld() async throws {
        let home = Home(fixture: try Fixture(json: Array(Saving.home.utf8)), clock: .virtual)
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
        _ = try await Saving.replies(143, [1, 100, 0, 0, 0], to: "den.clean", of: front, home: home)
        try await home.checkpoint("cleaning")
        _ = try await Saving.replies(143, [0, 0, 0, 0, 0], to: "den.clean", of: front, home: home)
        #expect(try await Self.lastHEVResult(of: front, home: home) == 4)
        try await home.restore(checkpoint: "cleaning")
        #expect(try await Self.hevLeft(of: front, home: home) == (100, 100), "a restore is no reboot")
        #expect(try await Self.lastHEVResult(of: front, home: home) == 1, "BUSY while a cycle runs")
    }

    @Test func aHEVCycleSavedByItsStartStillReads() async throws {
        var fixture = try Fixture(json: Array(Saving.home.utf8))
        // As records were written before: the cycle's start on the simulated wall clock, 2026-01-01T00:00:00Z.
        fixture.fronts["lifx"] = try JSONParser.parse(
            Array(
                #"""
                {"den.clean": {"hev": {"lastResult": 255, "indication": false, "defaultDurationS": 7200,
                  "cycle": {"startNs": 1767225600000000000, "durationS": 100, "lastPower": true}}}}
                """#.utf8))
        let home = Home(fixture: fixture, clock: .virtual)
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
        // Read by a reset to the fixture, which is no boot: a boot would cut the cycle short.
        try await home.restore(to: fixture)
        #expect(try await Self.hevLeft(of: front, home: home) == (100, 100))
    }
}
