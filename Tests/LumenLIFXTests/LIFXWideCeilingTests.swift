import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import Testing

@testable import LumenLIFX

/// A colour light named a Ceiling 13x26 (or 16x8) is the LIFX Ceiling 13x26 (product 201, the US one): a matrix of
/// one tile 16 wide and 8 high, no chain, 128 pixels. A `Set64` or `State64` carries 64 colours, so clients read
/// and paint it in rectangles of four rows of 16 (lifx-async and aiolifx 1.2 at `y` 0 and 4), or draw those into
/// frame buffer 1 and copy the whole tile to 0 (lifx-async's `set_matrix_colors`, its animations). Its uplight is
/// the last pixel, (15, 7): 127. What the 8×8 Ceiling shares with it (the sky) is the Ceiling's suite's.
@Suite("LIFX Ceiling 13x26")
struct LIFXWideCeilingTests: LIFXBulbSuite {
    static let fixture = """
        {"schema": 1, "id": "flat", "name": "Flat", "seed": 4, "rooms": [
          {"id": "den", "name": "Den", "lights": [
            {"id": "den.ceiling", "name": "Ceiling", "kind": "color", "manufacturer": "LIFX",
             "product": "LIFX Ceiling 13x26\\"", "latency": {"kind": "fixed", "ms": 10},
             "state": {"isOn": true, "brightness": 50}},
            {"id": "den.small", "name": "Small Ceiling", "kind": "color", "manufacturer": "LIFX",
             "product": "LIFX Ceiling", "latency": {"kind": "fixed", "ms": 10},
             "state": {"isOn": true, "brightness": 50}}
          ]}
        ]}
        """

    static let bulb: LightID = "den.ceiling"
    static let rowWidth: UInt8 = 16

    let home: Home
    let front: LIFXFront
    /// What a `State64` reads off the tile.
    static let off = HSBK(hue: 0, saturation: 0, brightness: 0, kelvin: 0)
    /// What the padding of a `Set64` (`LIFXMatrixTests/set64`'s zeros) paints: black, its kelvin kept to the
    /// product's range.
    static let padding = HSBK(hue: 0, saturation: 0, brightness: 0, kelvin: 1_500)

    /// The 128 pixels, row by row: two `Get64`s of four rows of 16, as lifx-async and aiolifx 1.2 read them.
    func pixels(of light: LightID = Self.bulb) async throws -> [HSBK] {
        try await state64(y: 0, light: light) + state64(y: 4, light: light)
    }

    /// 128 colours, each row's left half `left` and right half `right` on rows 0–3, the other way round below.
    static func halves(_ left: HSBK, _ right: HSBK) -> [HSBK] {
        (0..<128).map { index in (index % 16 < 8) == (index < 64) ? left : right }
    }

    @Test func aColourCeilingNamedThirteenByTwentySixIsTheCeilingOfSixteenByEight() async throws {
        for name in ["LIFX Ceiling 13x26\"", "ceiling 13X26", "LIFX Ceiling 16x8"] {
            #expect(DeviceModel(kind: .color, manufacturer: "LIFX", product: name).lifxProductID == 201, "\(name)")
        }
        #expect(
            DeviceModel(kind: .color, manufacturer: "LIFX", product: "LIFX Ceiling 15\"").lifxProductID == 176,
            "any other colour Ceiling is the 8×8 one")
        #expect(
            DeviceModel(kind: .ambiance, manufacturer: "LIFX", product: "LIFX Ceiling 13x26").lifxProductID == 50,
            "LIFX makes no white Ceiling")
        #expect(try await replies(32).first?.payload.prefix(8) == [1, 0, 0, 0, 201, 0, 0, 0])
        #expect(LIFXProduct.capabilities(of: 201) == .matrix, "a matrix: no zones, infrared or HEV")
        #expect(
            DeviceModel(kind: .color, manufacturer: "LIFX", product: "LIFX Ceiling 13x26").lifxKelvinRange
                == 1_500...9_000, "LIFX's products list widens it to 1,000–10,000 K only from firmware 4.148")
        let chain = try await replies(701)
        try #require(chain.map(\.type) == [702])
        let payload = chain[0].payload
        #expect(payload[0] == 0 && payload[881] == 1, "one tile, from the first")
        var tile = LIFXReader(Array(payload[1 + 8..<1 + 55]))
        #expect(tile.uint32() == 0 && tile.uint32() == 0, "placed at the origin")
        #expect(tile.uint8() == 16 && tile.uint8() == 8, "sixteen wide, eight high")
        tile.skip(1)
        #expect(tile.uint32() == 1 && tile.uint32() == 201)
        #expect(payload[1 + 55..<881].allSatisfy { $0 == 0 }, "no second tile")
    }

    /// Each `Get64` reads 64 colours of the rectangle it names, row by row at its width: four rows of 16, eight
    /// rows of one half eight wide, or (a width of 0) the tile's 16; what lies off the tile reads as zeros.
    @Test func get64ReadsAnyRectangleOfTheSixteenByEight() async throws {
        let light = try await light()
        #expect(try await pixels() == Array(repeating: light, count: 128), "128 pixels")
        let painted = Self.halves(Self.red, Self.blue)
        _ = try await replies(715, LIFXMatrixTests.set64(tile: 0, width: 16, Array(painted[..<64])))
        _ = try await replies(715, LIFXMatrixTests.set64(tile: 0, y: 4, width: 16, Array(painted[64...])))
        #expect(try await pixels() == painted)
        #expect(try await state64(width: 0) == Array(painted[..<64]), "a width of 0 reads as the tile's: 16")
        #expect(
            try await state64(x: 8, width: 8) == (0..<64).map { $0 < 32 ? Self.blue : Self.red },
            "the right half, eight rows of eight")
        #expect(
            try await state64(y: 6) == Array(painted[96...]) + Array(repeating: Self.off, count: 32),
            "two rows, then zeros past the eighth")
        #expect(try await replies(707, [1, 1, 0, 0, 0, 16]).isEmpty, "no second tile to read")
    }

    /// lifx-async's `CeilingLight` sets the uplight, (15, 7), with the whole tile; a `Set64` of one colour there,
    /// 16 wide (padded to 64), sets it alone: the padding falls off the tile and the downlight keeps its colours.
    /// aiolifx 1.1's `Ceiling` helper, written for the 8×8, sets (7, 7) eight wide instead: pixel 119.
    @Test func theUplightIsPixelOneHundredAndTwentySevenAndTakesAColourOfItsOwn() async throws {
        let downlight = Array(Self.halves(Self.red, Self.blue)[..<127])
        let warm = HSBK(hue: 5_461, saturation: 13_107, brightness: 19_661, kelvin: 2_700)
        _ = try await replies(715, LIFXMatrixTests.set64(tile: 0, width: 16, Array(downlight[..<64])))
        _ = try await replies(715, LIFXMatrixTests.set64(tile: 0, y: 4, width: 16, Array(downlight[64...]) + [warm]))
        #expect(try await pixels() == downlight + [warm])
        var dark = warm
        dark.brightness = 0
        _ = try await replies(715, LIFXMatrixTests.set64(tile: 0, x: 15, y: 7, width: 16, [dark]))
        #expect(try await pixels() == downlight + [dark])
        // The helper's 63 colours of padding (black) fill the row to (14, 7) past (7, 7), eight wide.
        _ = try await replies(715, LIFXMatrixTests.set64(tile: 0, x: 7, y: 7, width: 8, [warm]))
        var helped = downlight + [dark]
        helped[7 * 16 + 7] = warm
        for column in 8..<15 { helped[7 * 16 + column] = Self.padding }
        #expect(try await pixels() == helped, "(7, 7) is the 8×8's uplight, not the 16×8's")
        #expect(try await home.light(Self.bulb).state.isOn, "the downlight still lit")
    }

    /// lifx-async's `set_matrix_colors` on a tile of more than 64 pixels: two `Set64`s of four rows into frame
    /// buffer 1, then the whole tile, 16 × 8, copied to 0; the 128 pixels are saved, and their count (128) is the
    /// Ceiling 13x26's own among the shapes a saved record is placed by.
    @Test func aHundredAndTwentyEightPixelsCopiedFromAFrameBufferReadBackAfterARestart() async throws {
        let light = try await light()
        let drawn = Self.halves(Self.blue, Self.red)
        for half in 0..<2 {
            var hidden = LIFXMatrixTests.set64(
                tile: 0, y: UInt8(4 * half), width: 16, Array(drawn[64 * half..<64 * half + 64]))
            hidden[2] = 1
            #expect(try await replies(715, hidden, ack: true).map(\.type) == [45])
        }
        #expect(try await pixels() == Array(repeating: light, count: 128), "drawn out of sight")
        let copy = LIFXMatrixTests.copyFrame(tile: 0, from: 1, to: 0, width: 16, height: 8)
        #expect(try await replies(716, copy, ack: true).map(\.type) == [45])
        #expect(try await pixels() == drawn)
        let again = try await Self.restarted(from: home)
        #expect(try await again.pixels() == drawn)
        #expect(
            try await again.state64(width: 8, light: "den.small") == Array(repeating: light, count: 64), "the 8×8's own"
        )
    }

    /// 128 pixels of one colour, drawn out of sight and copied, are a change to the light; a copy of the 8×8's
    /// size (aiolifx's default height, a client that takes every Ceiling for the 8×8) leaves the right half alone.
    @Test func aFrameOfOneColourIsAChangeToTheLightAndAnEightByEightCopyCoversHalf() async throws {
        for half in 0..<2 {
            var hidden = LIFXMatrixTests.set64(
                tile: 0, y: UInt8(4 * half), width: 16, Array(repeating: Self.red, count: 64))
            hidden[2] = 1
            _ = try await replies(715, hidden)
        }
        _ = try await replies(716, LIFXMatrixTests.copyFrame(tile: 0, from: 1, to: 0, width: 16, height: 8))
        try await home.advance(byMilliseconds: 100)
        let state = try await home.light(Self.bulb).state
        #expect(state.brightness == 100 && state.color.x > 0.6, "red at full brightness")
        var hidden = LIFXMatrixTests.set64(tile: 0, width: 8, Array(repeating: Self.blue, count: 64))
        hidden[2] = 2
        _ = try await replies(715, hidden)
        _ = try await replies(716, LIFXMatrixTests.copyFrame(tile: 0, from: 2, to: 0))
        let shown = try await pixels()
        #expect(shown.enumerated().allSatisfy { $0.offset % 16 >= 8 || $0.element == Self.blue }, "the left half")
        #expect(
            shown.enumerated().allSatisfy { $0.offset % 16 < 8 || $0.element == shown[8] } && shown[8].hue == 0
                && shown[8].brightness > 60_000, "the right half still the light's red")
    }

    /// Pixels saved for the 8×8 Ceiling's shape (a fixture edited to make one Ceiling the other keeps the bulbs'
    /// record) are not the 13x26's: it shows its light's colour, and a `Set64` still paints it.
    @Test func pixelsSavedForTheEightByEightAreNotTheThirteenByTwentySixes() async throws {
        _ = try await replies(
            715, LIFXMatrixTests.set64(tile: 0, width: 8, (0..<64).map { $0 < 8 ? Self.red : Self.blue }),
            to: "den.small")
        let again = try await Self.restarted(from: home) { record in record["den.ceiling"] = record["den.small"] }
        let shown = try await again.light()
        #expect(try await again.pixels() == Array(repeating: shown, count: 128))
        _ = try await again.replies(715, LIFXMatrixTests.set64(tile: 0, y: 4, width: 16, [Self.red]))
        let painted = Array(repeating: shown, count: 64) + [Self.red] + Array(repeating: Self.padding, count: 63)
        #expect(try await again.pixels() == painted, "the last four rows: red, then the padding's black")
    }
}
