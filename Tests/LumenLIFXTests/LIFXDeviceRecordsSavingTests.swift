import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import Testing

@testable import LumenLIFX

/// What the bulbs keep beside their lights (zones, pixels, infrared, HEV settings, location and group, the colour
/// as a client gave it, effects, tile positions) is saved with the home and read back after a restart.
@Suite("LIFX bulbs' records across restarts")
struct LIFXDeviceRecordsSavingTests {
    static let home = """
        {"schema": 1, "id": "flat", "name": "Flat", "seed": 4, "rooms": [
          {"id": "den", "name": "Den", "lights": [
            {"id": "den.strip", "name": "Strip", "kind": "color", "manufacturer": "LIFX", "product": "LIFX Z Strip",
             "latency": {"kind": "fixed", "ms": 10}},
            {"id": "den.tile", "name": "Tile", "kind": "color", "manufacturer": "LIFX", "product": "LIFX Tile",
             "latency": {"kind": "fixed", "ms": 10}},
            {"id": "den.nv", "name": "NV", "kind": "color", "manufacturer": "LIFX", "product": "LIFX A19 Night Vision",
             "latency": {"kind": "fixed", "ms": 10}},
            {"id": "den.clean", "name": "Clean", "kind": "color", "manufacturer": "LIFX", "product": "LIFX Clean",
             "latency": {"kind": "fixed", "ms": 10}}
          ]}
        ]}
        """

    /// The replies of `light`'s bulb behind `front` to a message of `type`, moving the clock until they come.
    static func replies(
        _ type: UInt16, _ payload: [UInt8] = [], to light: LightID, of front: LIFXFront, home: Home
    ) async throws -> [LIFXPacket] {
        let packet = LIFXPacket(
            source: 3, target: DeviceSerial.of(home: "flat", light: light) + [0, 0], wantsReply: true, sequence: 1,
            type: type, payload: payload)
        return try await front.replies(to: packet, movingClockOf: home)
    }

    /// Each question whose answer a client's message changed, by the bulb asked.
    static let questions: [(light: LightID, type: UInt16, payload: [UInt8])] = [
        ("den.strip", 511, []), ("den.strip", 507, []), ("den.strip", 101, []), ("den.strip", 48, []),
        ("den.strip", 51, []), ("den.tile", 707, [0, 5, 0, 0, 0, 8]), ("den.tile", 701, []), ("den.tile", 718, []),
        ("den.nv", 120, []), ("den.nv", 101, []), ("den.clean", 145, []),
    ]

    /// The answers to ``questions``.
    static func answers(of front: LIFXFront, home: Home) async throws -> [[[UInt8]]] {
        var answers: [[[UInt8]]] = []
        for question in questions {
            let replies = try await replies(question.type, question.payload, to: question.light, of: front, home: home)
            answers.append(replies.map(\.payload))
        }
        return answers
    }

    static func color(_ color: HSBK) -> [UInt8] {
        var writer = LIFXWriter()
        color.write(&writer)
        return writer.output
    }

    @Test func everythingAClientGaveTheBulbsReadsBackAfterARestart() async throws {
        let home = Home(fixture: try Fixture(json: Array(Self.home.utf8)), clock: .virtual)
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
        let fresh = try await Self.answers(of: front, home: home)
        func send(_ type: UInt16, _ payload: [UInt8], to light: LightID) async throws {
            _ = try await Self.replies(type, payload, to: light, of: front, home: home)
        }
        // A strip: zones of two colours, an effect running for ever, a location and a group.
        let red = HSBK(hue: 0, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
        let blue = HSBK(hue: 43_690, saturation: 65_535, brightness: 32_768, kelvin: 3_500)
        try await send(501, [0, 7] + Self.color(red) + [0, 0, 0, 0, 1], to: "den.strip")
        try await send(501, [8, 15] + Self.color(blue) + [0, 0, 0, 0, 1], to: "den.strip")
        try await send(
            508,
            [9, 0, 0, 0, 1, 0, 0, 0x10, 0x27, 0, 0] + [UInt8](repeating: 0, count: 8)
                + [UInt8](repeating: 3, count: 32), to: "den.strip")
        let membership = [UInt8](repeating: 7, count: 16) + Array("Upstairs".utf8) + [UInt8](repeating: 0, count: 24)
        try await send(49, membership + [0, 0, 0x5C, 0xB2, 0xEC, 0x22, 0x49, 0x18], to: "den.strip")
        try await send(52, membership + [1, 0, 0x5C, 0xB2, 0xEC, 0x22, 0x49, 0x18], to: "den.strip")
        // A tile: pixels of two colours, a tile moved, an effect with a palette running for ever.
        try await send(
            715, [2, 1, 0, 0, 0, 8, 0, 0, 0, 0] + (0..<64).flatMap { Self.color($0 < 32 ? red : blue) }, to: "den.tile")
        try await send(
            703, [1, 0, 0] + Array((2.5 as Float).bitPattern.littleEndianBytes) + [0, 0, 0, 0], to: "den.tile")
        try await send(
            719,
            [0, 0, 5, 0, 0, 0, 2, 1, 1, 1, 1] + [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 1, count: 38) + [2]
                + Self.color(red) + Self.color(blue),
            to: "den.tile")
        // A colour given with a hue under no saturation, which Lumen's state does not hold; infrared; HEV settings.
        try await send(
            102, [0] + Self.color(HSBK(hue: 12_345, saturation: 0, brightness: 40_000, kelvin: 4_321)) + [0, 0, 0, 0],
            to: "den.nv")
        try await send(122, [0x34, 0x12], to: "den.nv")
        try await send(146, [1, 0x10, 0x0E, 0, 0], to: "den.clean")
        let given = try await Self.answers(of: front, home: home)
        for (index, question) in Self.questions.enumerated() where question.type != 101 || question.light == "den.nv" {
            #expect(given[index] != fresh[index], "\(question.light) \(question.type) changed")
        }

        let snapshot = await home.snapshot()
        let read = try Fixture(json: Array(snapshot.jsonValue.serialized().utf8))
        #expect(read.fronts["lifx"] != nil && read.fronts == snapshot.fronts)
        let again = Home(fixture: read, clock: .virtual)
        let restarted = try await Self.answers(
            of: LIFXFront(scopeContext: ScopeContext(home: again), port: 56_700), home: again)
        for (index, question) in Self.questions.enumerated() {
            #expect(restarted[index] == given[index], "\(question.light) \(question.type) after a restart")
        }
    }

    @Test func theSameColourAgainIsNoChangeToSave() async throws {
        let home = Home(fixture: try Fixture(json: Array(Self.home.utf8)), clock: .virtual)
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
        let setColor =
            [0] + Self.color(HSBK(hue: 100, saturation: 0, brightness: 30_000, kelvin: 3_000)) + [0, 0, 0, 0]
        _ = try await Self.replies(102, setColor, to: "den.nv", of: front, home: home)
        let saved = front.records.changes.load(ordering: .relaxed)
        #expect(saved > 0 && front.records.unsaved.withLock { $0.isEmpty }, "the first is saved")
        // A client flooding the bulb with the colour it shows costs no save.
        _ = try await Self.replies(102, setColor, to: "den.nv", of: front, home: home)
        #expect(front.records.changes.load(ordering: .relaxed) == saved)
    }

    /// An effect of a type the device lacks, kept by a lumend that took any, runs as none once read back: Home
    /// Assistant would fail on every poll of the bulb, restart after restart.
    @Test func anEffectOfATypeTheDeviceLacksIsNotReadBack() async throws {
        let home = Home(fixture: try Fixture(json: Array(Self.home.utf8)), clock: .virtual)
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
        func effect(_ type: UInt8) -> JSONValue {
            var effect = LIFXEffect.none
            effect.type = type
            return effect.jsonValue
        }
        front.records.load(
            [
                "den.nv": ["multiZoneEffect": effect(2), "tileEffect": effect(4)],
                "den.clean": ["multiZoneEffect": effect(1), "tileEffect": effect(3)],
            ], atMs: 0, booting: true)
        #expect(front.records.effect(.multiZone, of: "den.nv", atMs: 0) == .none)
        #expect(front.records.effect(.tile, of: "den.nv", atMs: 0) == .none)
        #expect(front.records.effect(.multiZone, of: "den.clean", atMs: 0).type == 1)
        #expect(front.records.effect(.tile, of: "den.clean", atMs: 0).type == 3)
    }

    @Test func theRecordReadsBackFromAJournalLineAndForgetsALightRemoved() async throws {
        let home = Home(fixture: try Fixture(json: Array(Self.home.utf8)), clock: .virtual)
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
        _ = try await Self.replies(122, [0x34, 0x12], to: "den.nv", of: front, home: home)
        let record = try #require(await home.snapshot().fronts["lifx"])
        #expect(record["den.nv"]?["infrared"] == .int(0x1234))
        let line = StateRecord.front("lifx", record).jsonValue.serialized()
        let journaled = try StateRecord(cursor: JSONCursor(JSONParser.parse(Array(line.utf8))))
        let fixture = try Fixture(json: Array(Self.home.utf8)).applying([journaled])
        #expect(fixture.fronts["lifx"] == record)

        _ = try await Self.replies(146, [0, 0x10, 0x0E, 0, 0], to: "den.clean", of: front, home: home)
        try await home.removeLight("den.nv")
        let after = try #require(await home.snapshot().fronts["lifx"])
        #expect(after["den.nv"] == nil && after.objectValue?.count == 1, "one entry a bulb, for bulbs there are")
    }
}

extension UInt32 {
    fileprivate var littleEndianBytes: [UInt8] { (0..<4).map { UInt8(self >> (8 * UInt32($0)) & 0xFF) } }
}
