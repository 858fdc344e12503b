import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import Testing

@testable import LumenLIFX

/// A colour light named a Ceiling, unless named the 13x26 (``LIFXWideCeilingTests``), is the LIFX Ceiling (product
/// 176, the US 8×8 one): a matrix of one 8×8 tile, no chain. Its last pixel is the uplight, which aiolifx and
/// lifx-async read and set as a pixel like the others; it runs the firmware's sky, which Home Assistant offers on a
/// Ceiling alone. What a matrix of one tile shares with the Candle (no second tile to read, paint or place) is the
/// Candle's suite's.
@Suite("LIFX Ceiling")
struct LIFXCeilingTests: LIFXBulbSuite {
    static let fixture = """
        {"schema": 1, "id": "flat", "name": "Flat", "seed": 4, "rooms": [
          {"id": "den", "name": "Den", "lights": [
            {"id": "den.ceiling", "name": "Ceiling", "kind": "color", "manufacturer": "LIFX",
             "product": "LIFX Ceiling", "latency": {"kind": "fixed", "ms": 10},
             "state": {"isOn": true, "brightness": 50}}
          ]}
        ]}
        """

    static let bulb: LightID = "den.ceiling"
    static let rowWidth: UInt8 = 8

    let home: Home
    let front: LIFXFront

    @Test func aColourCeilingIsTheCeilingAMatrixOfOneEightByEightTile() async throws {
        for name in ["LIFX Ceiling", "ceiling 15\"", "LIFX CEILING 13\""] {
            #expect(
                DeviceModel(kind: .color, manufacturer: "LIFX", product: name).lifxProductID == 176,
                "a colour Ceiling not named the 13x26 (16×8) one is the 8×8 one: \(name)")
        }
        #expect(
            DeviceModel(kind: .ambiance, manufacturer: "LIFX", product: "LIFX Ceiling").lifxProductID == 50,
            "LIFX makes no white Ceiling: a white light named one is a white bulb")
        #expect(try await replies(32).first?.payload.prefix(8) == [1, 0, 0, 0, 176, 0, 0, 0])
        #expect(LIFXProduct.capabilities(of: 176) == .matrix, "a matrix: no zones, infrared or HEV")
        #expect(
            DeviceModel(kind: .color, manufacturer: "LIFX", product: "LIFX Ceiling").lifxKelvinRange == 1_500...9_000,
            "LIFX's products list widens it to 1,000–10,000 K only from firmware 4.148")
        let chain = try await replies(701)
        try #require(chain.map(\.type) == [702])
        let payload = chain[0].payload
        #expect(payload[0] == 0 && payload[881] == 1, "one tile, from the first")
        var tile = LIFXReader(Array(payload[1 + 8..<1 + 55]))
        #expect(tile.uint32() == 0 && tile.uint32() == 0, "placed at the origin")
        #expect(tile.uint8() == 8 && tile.uint8() == 8, "eight wide, eight high")
        tile.skip(1)
        #expect(tile.uint32() == 1 && tile.uint32() == 176)
    }

    /// aiolifx's Ceiling reads the uplight as the last of the 64 colours one `Get64` gives, and sets it alone with a
    /// `Set64` of one colour at (7, 7), padded to 64: the padding falls off the tile, and the downlight (the other
    /// 63) keeps its colours. Turned off, the uplight keeps its hue, saturation and kelvin at brightness 0.
    @Test func theUplightIsTheLastPixelAndTakesAColourOfItsOwn() async throws {
        let light = try await light()
        #expect(try await state64() == Array(repeating: light, count: 64), "64 pixels: no zeros after them")
        let downlight = (0..<63).map { $0 % 8 < 4 ? Self.red : Self.blue }
        let warm = HSBK(hue: 5_461, saturation: 13_107, brightness: 19_661, kelvin: 2_700)
        _ = try await replies(715, LIFXMatrixTests.set64(tile: 0, width: 8, downlight + [warm]))
        #expect(try await state64() == downlight + [warm])
        var dark = warm
        dark.brightness = 0
        _ = try await replies(715, LIFXMatrixTests.set64(tile: 0, x: 7, y: 7, width: 8, [dark]))
        #expect(try await state64() == downlight + [dark])
        #expect(Array(try await state64(y: 7).prefix(8)) == Array(downlight[56...]) + [dark], "the last row")
        #expect(try await home.light(Self.bulb).state.isOn, "the downlight still lit")
    }

    /// lifx-async and Home Assistant draw a frame into buffer 1 and copy it to 0; the 64 pixels are saved, and a
    /// Ceiling's count (64) is its own among the shapes a saved record is placed by.
    @Test func sixtyFourPixelsCopiedFromAFrameBufferReadBackAfterARestart() async throws {
        let drawn = (0..<64).map { $0 < 24 ? Self.red : Self.blue }
        var hidden = LIFXMatrixTests.set64(tile: 0, width: 8, drawn)
        hidden[2] = 1
        #expect(try await replies(715, hidden, ack: true).map(\.type) == [45])
        #expect(
            try await replies(716, LIFXMatrixTests.copyFrame(tile: 0, from: 1, to: 0), ack: true).map(\.type) == [45])
        #expect(try await state64() == drawn)
        let again = try await Self.restarted(from: home)
        #expect(try await again.state64() == drawn)
    }

    /// Home Assistant's `lifx.effect_sky` sends the sky (5) through aiolifx with its sky type at the parameters'
    /// first byte, the least cloud saturation at the fifth and the most at the ninth; the Ceiling reports them as
    /// sent (Home Assistant reads them back on every poll) until an effect of none stops it.
    @Test func theCeilingRunsTheSkyAsSent() async throws {
        var parameters = [UInt8](repeating: 0, count: 32)
        (parameters[0], parameters[4], parameters[8]) = (2, 50, 180)
        let sky = try await replies(719, LIFXMatrixTests.tileEffect([Self.blue], type: 5, parameters: parameters))
        try #require(sky.map(\.type) == [720])
        #expect(sky[0].payload[5] == 5, "the sky")
        #expect(Array(sky[0].payload[26..<58]) == parameters, "clouds, saturations 50 to 180")
        #expect(try await replies(718)[0].payload == sky[0].payload, "kept")
        _ = try await replies(719, LIFXMatrixTests.tileEffect([], type: 0))
        #expect(try await replies(718)[0].payload[5] == 0, "stopped")
    }
}
