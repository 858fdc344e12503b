import LumenModel
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
}
