import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import LumenTestSupport
import Synchronization
import Testing

@testable import LumenLIFX

/// A reset or a checkpoint's restore brings back what the bulbs keep beside their lights, as the rest of the
/// home; a light removed takes its entry with it at once.
@Suite("LIFX bulbs' records on a reset and a restore")
final class LIFXDeviceRecordsRestoreTests: Sendable {
    typealias Saving = LIFXDeviceRecordsSavingTests

    let fixture: Fixture
    let home: Home
    let front: LIFXFront
    let journal = Locked<[StateRecord]>([])

    init() async throws {
        var fixture = try Fixture(json: Array(Saving.home.utf8))
        // The fixture gives the Night Vision an infrared level: a reset brings it back.
        fixture.fronts["lifx"] = .object(["den.nv": .object(["infrared": .int(5)])])
        self.fixture = fixture
        home = Home(fixture: fixture, clock: .virtual)
        front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
        await home.setPersistenceSink { [self] record in journal.withLock { $0.append(record) } }
    }

    func send(_ type: UInt16, _ payload: [UInt8], to light: LightID) async throws {
        _ = try await Saving.replies(type, payload, to: light, of: front, home: home)
    }

    /// Changes something of every kind the bulbs keep.
    func changeEverything(_ seed: UInt8) async throws {
        let red = HSBK(hue: UInt16(seed) * 100, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
        let blue = HSBK(hue: 43_690, saturation: 65_535, brightness: 32_768, kelvin: 3_500)
        try await send(501, [0, 7] + Saving.color(red) + [0, 0, 0, 0, 1], to: "den.strip")
        // An effect without a duration, which is kept: one with a duration ends with a restore.
        try await send(
            508,
            [seed, 0, 0, 0, 1, 0, 0, 0x10, 0x27, 0, 0] + [UInt8](repeating: 0, count: 16)
                + [UInt8](repeating: 3, count: 32), to: "den.strip")
        let membership = [UInt8](repeating: seed, count: 16) + Array("Place".utf8) + [UInt8](repeating: 0, count: 27)
        try await send(49, membership + [seed, 0, 0x5C, 0xB2, 0xEC, 0x22, 0x49, 0x18], to: "den.strip")
        try await send(52, membership + [seed, 0, 0x5C, 0xB2, 0xEC, 0x22, 0x49, 0x18], to: "den.strip")
        try await send(
            715, [2, 1, 0, 0, 0, 8, 0, 0, 0, 0] + (0..<64).flatMap { Saving.color($0 < 32 ? red : blue) },
            to: "den.tile")
        try await send(703, [1, 0, 0, seed, 0, 0x20, 0x40, 0, 0, 0, 0], to: "den.tile")
        try await send(122, [seed, 0x12], to: "den.nv")
        try await send(146, [1, seed, 0x0E, 0, 0], to: "den.clean")
    }

    @Test func aCheckpointsRestoreBringsBackWhatTheBulbsKept() async throws {
        try await changeEverything(7)
        try await home.checkpoint("before")
        let before = try await Saving.answers(of: front, home: home)
        try await changeEverything(9)
        #expect(try await Saving.answers(of: front, home: home) != before)

        try await home.restore(checkpoint: "before")
        #expect(try await Saving.answers(of: front, home: home) == before)
        // Saved as restored: a restart from the journal answers the same.
        let saved = try journal.withLock { records in
            try records.map {
                try StateRecord(cursor: JSONCursor(JSONParser.parse(Array($0.jsonValue.serialized().utf8))))
            }
        }
        let again = Home(fixture: try fixture.applying(saved), clock: .virtual)
        let restarted = LIFXFront(scopeContext: ScopeContext(home: again), port: 56_700)
        #expect(try await Saving.answers(of: restarted, home: again) == before)
    }

    @Test func aResetBringsBackTheFixturesRecords() async throws {
        let fresh = try await Saving.answers(of: front, home: home)
        try await changeEverything(9)
        try await home.restore(to: fixture)
        #expect(try await Saving.answers(of: front, home: home) == fresh)
        #expect(await home.snapshot().fronts == fixture.fronts)
    }

    /// Starts an effect for a minute on the strip and a transient wave of 10 s cycles on the Night Vision, and
    /// moves the clock into them.
    func startATimedEffectAndAWave() async throws {
        let minute = (0..<8).map { UInt8(UInt64(60_000_000_000) >> (8 * UInt64($0)) & 0xFF) }
        try await send(
            508, [4, 0, 0, 0, 1, 0, 0, 0x10, 0x27, 0, 0] + minute + [UInt8](repeating: 2, count: 40), to: "den.strip")
        let blue = HSBK(hue: 43_690, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
        let cycles = (0..<4).map { UInt8((5 as Float).bitPattern >> (8 * UInt32($0)) & 0xFF) }
        try await send(103, [0, 1] + Saving.color(blue) + [0x10, 0x27, 0, 0] + cycles + [0, 0, 1], to: "den.nv")
        try await home.advance(byMilliseconds: 2_500)
    }

    /// What the strip reports of its effect and what the Night Vision shows.
    func effectAndColor() async throws -> [[UInt8]] {
        let effect = try await Saving.replies(507, [], to: "den.strip", of: front, home: home)
        let color = try await Saving.replies(101, [], to: "den.nv", of: front, home: home)
        return (effect + color).map(\.payload)
    }

    @Test func aTimedEffectAndAWaveEndWithARestoreOrAReset() async throws {
        try await home.checkpoint("before")
        let before = try await effectAndColor()
        try await startATimedEffectAndAWave()
        let running = try await effectAndColor()
        #expect(running[0] != before[0] && running[1] != before[1], "both under way")
        try await home.restore(checkpoint: "before")
        #expect(try await effectAndColor() == before)

        try await startATimedEffectAndAWave()
        try await home.restore(to: fixture)
        #expect(try await effectAndColor() == before)
    }

    @Test func aRemovedLightsTimedEffectAndWaveGoWithIt() async throws {
        try await startATimedEffectAndAWave()
        #expect(front.records.timedEffects.withLock { $0["den.strip"] } != nil)
        #expect(front.records.waveforms.withLock { $0["den.nv"] } != nil)
        try await home.removeLight("den.strip")
        try await home.removeLight("den.nv")
        #expect(front.records.timedEffects.withLock { $0["den.strip"] } == nil)
        #expect(front.records.waveforms.withLock { $0["den.nv"] } == nil)
    }

    @Test func aLightRemovedTakesItsEntryAtOnce() async throws {
        try await changeEverything(7)
        try await home.removeLight("den.tile")
        // Nothing sent to the bulbs since: the entry and what the bulb held in memory are gone already.
        let record = try #require(await home.frontRecord("lifx"))
        #expect(record["den.tile"] == nil && record["den.nv"] != nil)
        #expect(front.records.matrixStates.withLock { $0["den.tile"] } == nil)
        #expect(front.records.tilePositions.withLock { $0["den.tile"] } == nil)
        let dropped = journal.withLock { $0 }.contains { $0 == .frontEntry("lifx", key: "den.tile", nil) }
        #expect(dropped, "the entry's removal is saved")
    }
}
