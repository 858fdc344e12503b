import LumenModel
import LumenSimulation
import Testing

@testable import LumenLIFX

/// A colour given over the LAN reads back over the LAN exactly as given, as a bulb keeps its HSBK: a hue under
/// no saturation, the kelvin to the degree, a brightness below 1 %.
extension LIFXFrontTests {
    func setColor(_ color: HSBK, sequence: UInt8) -> LIFXPacket {
        var writer = LIFXWriter()
        writer.uint8(0)
        color.write(&writer)
        writer.uint32(0)
        return LIFXPacket(
            source: 8, target: bulbSerial + [0, 0], wantsAcknowledgement: true, sequence: sequence, type: 102,
            payload: writer.output)
    }

    func reportedColor(sequence: UInt8) async throws -> HSBK {
        let state = try await replies(
            LIFXPacket(source: 8, target: bulbSerial + [0, 0], sequence: sequence, type: 101))
        var reader = LIFXReader(try #require(state.first).payload)
        return HSBK(&reader)
    }

    @Test func aColourGivenOverTheLANReadsBackExactlyAsGiven() async throws {
        var sequence: UInt8 = 0
        for color in [
            HSBK(hue: 21_845, saturation: 0, brightness: 40_000, kelvin: 2_700),
            HSBK(hue: 100, saturation: 30_000, brightness: 300, kelvin: 9_000),
            HSBK(hue: 65_535, saturation: 65_535, brightness: 0, kelvin: 1_500),
        ] {
            sequence += 2
            #expect(try await replies(setColor(color, sequence: sequence)).map(\.type) == [45])
            #expect(try await reportedColor(sequence: sequence + 1) == color)
        }
        // Changed through another front, the bulb reports what the light now shows, worked out from its state.
        _ = try await home.submit(LightChange(colorTemperature: 250), to: "den.bulb")
        try await home.advance(byMilliseconds: 100)
        let white = try await reportedColor(sequence: 99)
        #expect(white.saturation == 0 && white.kelvin == 4_000, "\(white)")
    }
}
