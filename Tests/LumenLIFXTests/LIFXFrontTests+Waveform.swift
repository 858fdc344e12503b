import LumenModel
import LumenScopes
import LumenSimulation
import Testing

@testable import LumenLIFX

/// `SetWaveformOptional`: a waveform for only the parts of the colour the client names, as photons and
/// lifx-async set a brightness or a hue alone.
extension LIFXFrontTests {
    func waveformOptional(_ color: HSBK, fields: LIFXColorFields, transient: Bool = false, sequence: UInt8 = 1)
        -> LIFXPacket
    {
        var writer = LIFXWriter()
        writer.uint8(0)
        writer.uint8(transient ? 1 : 0)
        color.write(&writer)
        writer.uint32(200)  // period
        writer.uint32(Float(1).bitPattern)  // cycles
        writer.uint16(0)  // skew ratio
        writer.uint8(4)  // half sine
        for field in [LIFXColorFields.hue, .saturation, .brightness, .kelvin] {
            writer.uint8(fields.contains(field) ? 1 : 0)
        }
        return LIFXPacket(
            source: 8, target: bulbSerial + [0, 0], wantsAcknowledgement: true, sequence: sequence, type: 119,
            payload: writer.output)
    }

    @Test func aWaveformForTheBrightnessAloneDimsAndLeavesTheColour() async throws {
        let before = try await home.light("den.bulb").state
        let red = HSBK(hue: 0, saturation: 65_535, brightness: 16_384, kelvin: 9_000)
        #expect(try await replies(waveformOptional(red, fields: .brightness)).map(\.type) == [45])
        try await home.advance(byMilliseconds: 1_000)
        let after = try await home.light("den.bulb").state
        #expect(abs(after.brightness - 25) < 0.001, "the brightness asked (16,384 of 65,535), over the wave's 200 ms")
        #expect(after.color == before.color && after.colorTemperature == before.colorTemperature)
    }

    /// A kelvin alone leaves a bulb showing a colour on it, as a bulb keeps its kelvin for its whites.
    @Test func aWaveformForTheKelvinAloneLeavesAColourShowing() async throws {
        let green = HSBK(hue: 21_845, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
        _ = try await replies(waveformOptional(green, fields: [.hue, .saturation], sequence: 1))
        try await home.advance(byMilliseconds: 1_000)
        let before = try await home.light("den.bulb").state
        _ = try await replies(waveformOptional(green, fields: .kelvin, sequence: 2))
        try await home.advance(byMilliseconds: 1_000)
        let after = try await home.light("den.bulb").state
        #expect(after.color == before.color && !after.showsColorTemperature, "\(after)")
        #expect(after.colorTemperature == 286)
    }

    @Test func aWaveformForHueAndSaturationTurnsTheColourAndKeepsTheBrightness() async throws {
        let red = HSBK(hue: 0, saturation: 65_535, brightness: 0, kelvin: 3_500)
        _ = try await replies(waveformOptional(red, fields: [.hue, .saturation]))
        try await home.advance(byMilliseconds: 1_000)
        let after = try await home.light("den.bulb").state
        #expect(after.color.x > 0.6 && after.brightness == 50, "red, at the brightness it had")
    }

    @Test func aTransientWaveformForOnePartLeavesTheLightAsItWas() async throws {
        let before = try await home.light("den.bulb").state
        let dim = HSBK(hue: 0, saturation: 0, brightness: 0, kelvin: 3_500)
        _ = try await replies(waveformOptional(dim, fields: .brightness, transient: true))
        try await home.advance(byMilliseconds: 1_000)
        #expect(try await home.light("den.bulb").state == before)
    }

    /// A `SetWaveform` (103) to `light` of `home` (on the virtual clock) behind `front`.
    static func waveform(
        _ color: HSBK, transient: Bool, periodMs: UInt32, cycles: Float, to light: LightID, of home: String
    ) -> LIFXPacket {
        var writer = LIFXWriter()
        writer.uint8(0)
        writer.uint8(transient ? 1 : 0)
        color.write(&writer)
        writer.uint32(periodMs)
        writer.uint32(cycles.bitPattern)
        writer.uint16(0)  // skew ratio
        writer.uint8(1)  // sine
        return LIFXPacket(
            source: 8, target: DeviceSerial.of(home: home, light: light) + [0, 0], wantsAcknowledgement: true,
            sequence: 1, type: 103, payload: writer.output)
    }

    @Test func aWaveformOfSeveralCyclesEndsOnItsColourOnceEveryCycleIsDone() async throws {
        let red = HSBK(hue: 0, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
        let packet = Self.waveform(red, transient: false, periodMs: 200, cycles: 3, to: "den.mini", of: "flat")
        #expect(try await replies(packet).map(\.type) == [45])
        try await home.advance(byMilliseconds: 300)
        #expect(try await home.light("den.mini").state.color.x < 0.6, "half way through the cycles, not there yet")
        try await home.advance(byMilliseconds: 400)
        let after = try await home.light("den.mini").state
        #expect(after.color.x > 0.6 && after.brightness == 100, "red at full brightness: the target stays")
    }

    @Test func aWaveformReachesAWhiteBulbAsItsColourWouldAndATransientOneLeavesIt() async throws {
        let fixture = """
            {"schema": 1, "id": "flat", "name": "Flat", "seed": 4, "rooms": [
              {"id": "den", "name": "Den", "lights": [
                {"id": "den.white", "name": "White", "kind": "ambiance", "manufacturer": "LIFX",
                 "product": "LIFX Mini White to Warm", "latency": {"kind": "fixed", "ms": 10}}
              ]}
            ]}
            """
        let home = Home(fixture: try Fixture(json: Array(fixture.utf8)), clock: .virtual)
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
        let before = try await home.light("den.white").state
        let dim = HSBK(hue: 0, saturation: 0, brightness: 16_384, kelvin: 4_000)
        let transient = Self.waveform(dim, transient: true, periodMs: 100, cycles: 2, to: "den.white", of: "flat")
        _ = try await front.replies(to: transient, movingClockOf: home)
        try await home.advance(byMilliseconds: 1_000)
        #expect(try await home.light("den.white").state == before, "a transient wave returns to where it began")
        let kept = Self.waveform(dim, transient: false, periodMs: 100, cycles: 2, to: "den.white", of: "flat")
        _ = try await front.replies(to: kept, movingClockOf: home)
        try await home.advance(byMilliseconds: 1_000)
        let after = try await home.light("den.white").state
        #expect(abs(after.brightness - 25) < 0.001 && after.colorTemperature == 250, "\(after)")
    }
}
