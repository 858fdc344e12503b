import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import Testing

@testable import LumenLIFX

/// Messages that keep something for a bulb (infrared, a HEV cycle, an effect, a reboot) hold a query read after them
/// in one go, as a bulb takes its messages in order: the query reports what they kept.
@Suite("LIFX messages that keep something, before a query")
struct LIFXHeldMessageTests {
    let home: Home
    let front: LIFXFront

    init() throws {
        home = Home(fixture: try Fixture(json: Array(LIFXDeviceRecordsSavingTests.home.utf8)), clock: .virtual)
        front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
    }

    func packet(_ type: UInt16, _ payload: [UInt8] = [], to light: LightID, sequence: UInt8) -> LIFXPacket {
        LIFXPacket(
            source: 8, target: DeviceSerial.of(home: "flat", light: light) + [0, 0], sequence: sequence, type: type,
            payload: payload)
    }

    @Test func anInfraredLevelAndAQueryReadInOneGoReachTheBulbInThatOrder() async throws {
        let replies = try await front.repliesReadInOneGo(
            [packet(122, [0x34, 0x12], to: "den.nv", sequence: 1), packet(120, to: "den.nv", sequence: 2)],
            movingClockOf: home)
        let state = try #require(replies.first { $0.type == 121 })
        #expect(state.payload == [0x34, 0x12])
    }

    @Test func aHEVCycleAndAQueryReadInOneGoReachTheBulbInThatOrder() async throws {
        let replies = try await front.repliesReadInOneGo(
            [packet(143, [1, 100, 0, 0, 0], to: "den.clean", sequence: 1), packet(142, to: "den.clean", sequence: 2)],
            movingClockOf: home)
        var reader = LIFXReader(try #require(replies.first { $0.type == 144 }).payload)
        #expect(reader.uint32() == 100, "the cycle's duration, once the bulb has it")
    }

    @Test func aStripsEffectAndAQueryReadInOneGoReachTheBulbInThatOrder() async throws {
        var effect = LIFXWriter()
        effect.uint32(9)
        effect.uint8(1)  // MOVE
        effect.zeros(2)
        effect.uint32(10_000)
        effect.zeros(8 + 8 + 32)
        let replies = try await front.repliesReadInOneGo(
            [packet(508, effect.output, to: "den.strip", sequence: 1), packet(507, to: "den.strip", sequence: 2)],
            movingClockOf: home)
        var reader = LIFXReader(try #require(replies.first { $0.type == 509 }).payload)
        #expect(reader.uint32() == 9, "the effect's instance, once the bulb has it")
        #expect(reader.uint8() == 1)
    }

    @Test func aTilesEffectAndAQueryReadInOneGoReachTheBulbInThatOrder() async throws {
        let replies = try await front.repliesReadInOneGo(
            [
                packet(719, LIFXMatrixTests.tileEffect([LIFXMatrixTests.red]), to: "den.tile", sequence: 1),
                packet(718, to: "den.tile", sequence: 2),
            ],
            movingClockOf: home)
        var reader = LIFXReader(try #require(replies.first { $0.type == 720 }).payload)
        reader.skip(1)
        #expect(reader.uint32() == 77, "the effect's instance, once the bulb has it")
        #expect(reader.uint8() == 2)
    }

    @Test func aRebootAndAQueryReadInOneGoLeaveTheQueryToTheDarkBulb() async throws {
        let settled = try await front.repliesReadInOneGo([packet(34, to: "den.nv", sequence: 1)], movingClockOf: home)
        #expect(settled.contains { $0.type == 35 }, "a bulb up answers")
        let replies = try await front.repliesReadInOneGo(
            [packet(38, to: "den.nv", sequence: 2), packet(34, to: "den.nv", sequence: 3)], movingClockOf: home)
        // The bulb takes the reboot first and is dark when the query reaches it: no StateInfo from before.
        #expect(!replies.contains { $0.type == 35 }, "\(replies.map(\.type))")
    }

    @Test func aBroadcastToEveryBulbAndAQueryReadInOneGoReachTheBulbInThatOrder() async throws {
        let label = Array("Porch".utf8) + [UInt8](repeating: 0, count: 27)
        let broadcast = LIFXPacket(tagged: true, source: 8, sequence: 1, type: 24, payload: label)
        let replies = try await front.repliesReadInOneGo(
            [broadcast, packet(23, to: "den.nv", sequence: 2)], movingClockOf: home)
        let state = try #require(replies.first { $0.type == 25 })
        #expect(Array(state.payload.prefix(5)) == Array("Porch".utf8), "the label, once every bulb has it")
        #expect(front.budget.inProgress == (0, 0), "every bulb's answer gave its share of the budget back")
    }

    @Test func aColourBroadcastToEveryBulbAndAQueryReadInOneGoReachTheBulbInThatOrder() async throws {
        // Green at full brightness, 3,500 K, at once.
        let green = LIFXPacket(
            tagged: true, source: 8, sequence: 1, type: 102,
            payload: [0, 0x55, 0x55, 0xFF, 0xFF, 0xFF, 0xFF, 0xAC, 0x0D, 0, 0, 0, 0])
        let replies = try await front.repliesReadInOneGo(
            [green, packet(101, to: "den.nv", sequence: 2)], movingClockOf: home)
        var reader = LIFXReader(try #require(replies.first { $0.type == 107 }).payload)
        #expect(reader.uint16() == 0x5555, "the hue, once every bulb has it")
        #expect(front.budget.inProgress == (0, 0), "every bulb's answer gave its share of the budget back")
    }

    @Test func aLabelAndAQueryReadInOneGoReachABulbWithNoLatencyInThatOrder() async throws {
        // A bulb that takes its messages at once: the label is due as the query is asked, and is taken in that turn.
        let fixture = LIFXDeviceRecordsSavingTests.home.replacingOccurrences(of: #""ms": 10"#, with: #""ms": 0"#)
        let home = Home(fixture: try Fixture(json: Array(fixture.utf8)), clock: .virtual)
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
        let label = Array("Porch".utf8) + [UInt8](repeating: 0, count: 27)
        let replies = try await front.repliesReadInOneGo(
            [packet(24, label, to: "den.nv", sequence: 1), packet(23, to: "den.nv", sequence: 2)],
            movingClockOf: home)
        let state = try #require(replies.first { $0.type == 25 })
        #expect(Array(state.payload.prefix(5)) == Array("Porch".utf8), "the label, once the bulb has it")
    }
}
