import LumenModel
import LumenScopes
import LumenSimulation
import Synchronization
import Testing

@testable import LumenLIFX

/// Infrared and HEV, answered by the products that have them (LIFX's products list) and `StateUnhandled` by the
/// others, as their firmware answers.
@Suite("LIFX infrared and HEV")
struct LIFXCapabilityTests {
    static let home = """
        {"schema": 1, "id": "flat", "name": "Flat", "seed": 4, "rooms": [
          {"id": "den", "name": "Den", "lights": [
            {"id": "den.nv", "name": "NV", "kind": "color", "manufacturer": "LIFX", "product": "LIFX A19 Night Vision",
             "latency": {"kind": "fixed", "ms": 10}, "state": {"isOn": true}},
            {"id": "den.clean", "name": "Clean", "kind": "color", "manufacturer": "LIFX", "product": "LIFX Clean",
             "latency": {"kind": "fixed", "ms": 10}, "state": {"isOn": false}},
            {"id": "den.plain", "name": "Plain", "kind": "color", "manufacturer": "LIFX", "product": "LIFX A19"}
          ]}
        ]}
        """

    let home: Home
    let front: LIFXFront

    init() throws {
        home = Home(fixture: try Fixture(json: Array(Self.home.utf8)), clock: .virtual)
        front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
    }

    /// The one reply of `light`'s bulb to a message of `type`, moving the clock until it comes.
    func reply(
        _ light: LightID, _ type: UInt16, payload: [UInt8] = [], wantsReply: Bool = false, sequence: UInt8 = 1
    ) async throws -> LIFXPacket {
        let packet = LIFXPacket(
            source: 3, target: DeviceSerial.of(home: "flat", light: light) + [0, 0], wantsReply: wantsReply,
            sequence: sequence, type: type, payload: payload)
        let replies = try await front.replies(to: packet, movingClockOf: home)
        try #require(replies.count == 1, "\(replies.map(\.type))")
        return replies[0]
    }

    static func uint32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> (8 * UInt32($0)) & 0xFF) } }

    @Test func aNightVisionBulbKeepsItsInfraredLevelAndOthersDoNotHandleIt() async throws {
        #expect(try await reply("den.nv", 32).payload.prefix(8) == [1, 0, 0, 0, 109, 0, 0, 0], "A19 Night Vision")
        #expect(try await reply("den.nv", 120).payload == [0, 0], "infrared off to begin with")
        let set = try await reply("den.nv", 122, payload: [0x00, 0x80], wantsReply: true, sequence: 2)
        #expect(set.type == 121 && set.payload == [0x00, 0x80])
        #expect(try await reply("den.nv", 120, sequence: 3).payload == [0x00, 0x80])
        let plain = try await reply("den.plain", 120)
        #expect(plain.type == 223 && plain.payload == [120, 0], "an A19 without infrared: StateUnhandled")
    }

    @Test func aCleanRunsAHEVCycleOnTheSimulationClock() async throws {
        #expect(try await reply("den.clean", 32).payload.prefix(8) == [1, 0, 0, 0, 90, 0, 0, 0], "LIFX Clean")
        #expect(try await reply("den.clean", 148).payload == [255], "no cycle yet")
        #expect(try await reply("den.clean", 145).payload == [0] + Self.uint32(7_200), "two hours by default")
        // A cycle of a minute, started with the light off.
        let started = try await reply("den.clean", 143, payload: [1] + Self.uint32(60), wantsReply: true)
        #expect(started.type == 144 && started.payload == Self.uint32(60) + Self.uint32(60) + [0])
        try await home.advance(byMilliseconds: 30_000)
        let half = try await reply("den.clean", 142, sequence: 2)
        #expect(half.payload == Self.uint32(60) + Self.uint32(30) + [0], "half a minute left")
        try await home.advance(byMilliseconds: 31_000)
        #expect(try await reply("den.clean", 142, sequence: 3).payload == Self.uint32(60) + Self.uint32(0) + [0])
        #expect(try await reply("den.clean", 148, sequence: 4).payload == [0], "done")
        // Another, stopped over the LAN.
        _ = try await reply("den.clean", 143, payload: [1] + Self.uint32(0), wantsReply: true, sequence: 5)
        #expect(try await reply("den.clean", 142, sequence: 6).payload.prefix(4) == Self.uint32(7_200)[...])
        _ = try await reply("den.clean", 143, payload: [0] + Self.uint32(0), wantsReply: true, sequence: 7)
        #expect(try await reply("den.clean", 148, sequence: 8).payload == [4], "interrupted over the LAN")
        #expect(try await reply("den.nv", 142).type == 223, "a bulb without HEV: StateUnhandled")
    }

    /// Once a cycle is over, `StateHevCycle` still tells of it, as a LIFX Clean does: its length and whether the
    /// light was on before it, with nothing left; before any cycle, the configured length.
    @Test func aCycleOverStillReportsItsLengthAndThePowerBeforeIt() async throws {
        let idle = try await reply("den.clean", 142)
        #expect(idle.payload == Self.uint32(7_200) + Self.uint32(0) + [0], "the configured length before any cycle")
        _ = try await home.submit(LightChange(isOn: true), to: "den.clean")
        try await home.advance(byMilliseconds: 100)

        // A cycle of a minute, started with the light on, runs its length.
        _ = try await reply("den.clean", 143, payload: [1] + Self.uint32(60), wantsReply: true, sequence: 2)
        try await home.advance(byMilliseconds: 61_000)
        let done = try await reply("den.clean", 142, sequence: 3)
        #expect(done.payload == Self.uint32(60) + Self.uint32(0) + [1], "its length and the power before it")

        // One of the configured length, stopped over the LAN; the configured length changed after it.
        _ = try await reply("den.clean", 143, payload: [1] + Self.uint32(0), wantsReply: true, sequence: 4)
        _ = try await reply("den.clean", 143, payload: [0] + Self.uint32(0), wantsReply: true, sequence: 5)
        _ = try await reply("den.clean", 146, payload: [0] + Self.uint32(30), wantsReply: true, sequence: 6)
        let stopped = try await reply("den.clean", 142, sequence: 7)
        #expect(stopped.payload == Self.uint32(7_200) + Self.uint32(0) + [1], "the cycle stopped, not the setting")
    }
}
