import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
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
        try await send(
            508, [seed, 0, 0, 0, 1, 0, 0, 0x10, 0x27, 0, 0] + [UInt8](repeating: 3, count: 40), to: "den.strip")
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
