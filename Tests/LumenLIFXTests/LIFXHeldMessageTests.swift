import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import Testing

@testable import LumenLIFX

/// Messages that keep something for a bulb (infrared, a HEV cycle) hold a query read after them in one go, as a
/// bulb takes its messages in order: the query reports what they kept.
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
}
