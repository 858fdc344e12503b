import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import Testing

@testable import LumenLIFX

/// A colour light named a Candle is the LIFX Candle Colour (product 137): a matrix of one 5×6 tile, no chain, which
/// clients read and paint with `Get64` and `Set64` as lifx-async, photons and aiolifx paint a real one. A white to
/// warm Candle stays a bulb of one colour, and the Tile keeps its chain of five 8×8 tiles.
@Suite("LIFX Candle")
struct LIFXCandleTests: LIFXBulbSuite {
    static let fixture = """
        {"schema": 1, "id": "flat", "name": "Flat", "seed": 4, "rooms": [
          {"id": "den", "name": "Den", "lights": [
            {"id": "den.candle", "name": "Candle", "kind": "color", "manufacturer": "LIFX",
             "product": "LIFX Candle Colour", "latency": {"kind": "fixed", "ms": 10},
             "state": {"isOn": true, "brightness": 50}},
            {"id": "den.warm", "name": "Warm Candle", "kind": "ambiance", "manufacturer": "LIFX",
             "product": "LIFX Candle White to Warm", "latency": {"kind": "fixed", "ms": 10}},
            {"id": "den.tile", "name": "Tile", "kind": "color", "manufacturer": "LIFX", "product": "LIFX Tile",
             "latency": {"kind": "fixed", "ms": 10}, "state": {"isOn": true, "brightness": 50}}
          ]}
        ]}
        """

    static let bulb: LightID = "den.candle"
    static let rowWidth: UInt8 = 5

    let home: Home
    let front: LIFXFront
    static let off = HSBK(hue: 0, saturation: 0, brightness: 0, kelvin: 0)

    /// The Candle's 30 pixels, row by row.
    func pixels() async throws -> [HSBK] { Array(try await state64().prefix(30)) }

    @Test func aColourCandleIsTheCandleColourAMatrixWithoutAChain() async throws {
        #expect(DeviceModel(kind: .color, manufacturer: "LIFX", product: "LIFX Candle Colour").lifxProductID == 137)
        #expect(
            DeviceModel(kind: .color, manufacturer: "LIFX", product: "Candle E14").lifxProductID == 137,
            "any colour Candle")
        #expect(try await replies(32).first?.payload.prefix(8) == [1, 0, 0, 0, 137, 0, 0, 0])
        #expect(LIFXProduct.capabilities(of: 137) == .matrix, "a matrix: no zones, infrared or HEV")
        #expect(
            DeviceModel(kind: .color, manufacturer: "LIFX", product: "LIFX Candle Colour").lifxKelvinRange
                == 1_500...9_000, "LIFX's products list gives the Candle Colour 1,500–9,000 K")
    }

    @Test func aWhiteToWarmCandleIsLIFXsCandleOfOneColour() async throws {
        let warm = DeviceModel(kind: .ambiance, manufacturer: "LIFX", product: "LIFX Candle White to Warm")
        #expect(warm.lifxProductID == 81, "the LIFX Candle White to Warm, as every client's products list names it")
        #expect(warm.lifxKelvinRange == 2_200...6_500, "LIFX's products list gives it 2,200–6,500 K")
        #expect(DeviceModel(kind: .dimmable, manufacturer: "LIFX", product: "Candle").lifxProductID == 51)
        #expect(try await replies(32, to: "den.warm").first?.payload.prefix(8) == [1, 0, 0, 0, 81, 0, 0, 0])
        #expect(LIFXProduct.capabilities(of: 81) == [], "one zone: no matrix, zones, infrared or HEV")
        #expect(try await replies(701, to: "den.warm").map(\.type) == [223], "no device chain")
        #expect(try await replies(707, [0, 1, 0, 0, 0, 5], to: "den.warm").map(\.type) == [223], "no pixels")
    }

    @Test func theChainIsOneTileFiveWideAndSixHighAtTheOrigin() async throws {
        let chain = try await replies(701)
        try #require(chain.map(\.type) == [702])
        let payload = chain[0].payload
        #expect(payload.count == 882 && payload[0] == 0 && payload[881] == 1, "one tile, from the first")
        var tile = LIFXReader(Array(payload[1..<1 + 55]))
        #expect((0..<3).map { _ in tile.uint16() } == [0, 0, 0], "no accelerometer reading: right side up")
        tile.skip(2)
        #expect(tile.uint32() == 0 && tile.uint32() == 0, "placed at the origin")
        #expect(tile.uint8() == 5 && tile.uint8() == 6, "five wide, six high")
        tile.skip(1)
        #expect(tile.uint32() == 1 && tile.uint32() == 137)
        #expect(payload[1 + 55..<881].allSatisfy { $0 == 0 }, "no second tile")
    }

    @Test func get64ReadsThirtyPixelsThenZerosAndNoTilePastTheFirst() async throws {
        let light = try await light()
        let shown = try await state64()
        #expect(shown == Array(repeating: light, count: 30) + Array(repeating: Self.off, count: 34))
        // photons asks for every tile at once (a length of 255) as wide as the chain: one State64.
        #expect(try await state64(length: 255) == shown)
        #expect(try await replies(707, [1, 1, 0, 0, 0, 5]).isEmpty, "no second tile to read")
        // A width of 0 reads as the tile's: five.
        #expect(try await state64(width: 0) == shown)
    }

    @Test func set64PaintsThePixelsFiveToARowAndLeavesOutWhatFallsOffTheTile() async throws {
        let painted = (0..<30).map { $0 % 5 < 2 ? Self.red : Self.blue }
        // As aiolifx sends them: the colours padded to 64 with black, which lands past the sixth row.
        let padding = Array(repeating: HSBK(hue: 0, saturation: 0, brightness: 0, kelvin: 3_500), count: 34)
        #expect(try await replies(715, LIFXMatrixTests.set64(tile: 0, width: 5, painted + padding)).isEmpty)
        #expect(try await pixels() == painted)
        // A rectangle at the bottom right corner, two wide: what falls past the sixth row is left out.
        _ = try await replies(
            715, LIFXMatrixTests.set64(tile: 0, x: 3, y: 5, width: 2, [Self.red, Self.red] + [Self.blue]))
        var expected = painted
        expected[5 * 5 + 3] = Self.red
        expected[5 * 5 + 4] = Self.red
        #expect(try await pixels() == expected)
        // A client that takes the Candle for a Tile paints eight to a row: the last three of each fall off.
        let eight = (0..<64).map { $0 % 8 < 5 ? Self.blue : Self.red }
        _ = try await replies(715, LIFXMatrixTests.set64(tile: 0, width: 8, eight))
        try await home.advance(byMilliseconds: 100)
        #expect(try await pixels() == Array(repeating: Self.blue, count: 30))
        #expect(try await home.light("den.candle").state.color.x < 0.3, "every pixel blue: the light is blue")
        // A tile past the first is not the Candle's: nothing changes.
        _ = try await replies(715, LIFXMatrixTests.set64(tile: 1, width: 5, Array(repeating: Self.red, count: 30)))
        #expect(try await pixels() == Array(repeating: Self.blue, count: 30))
    }

    @Test func thirtyPixelsOfOneColourAreAChangeToTheLight() async throws {
        _ = try await replies(715, LIFXMatrixTests.set64(tile: 0, width: 5, Array(repeating: Self.red, count: 30)))
        try await home.advance(byMilliseconds: 100)
        let state = try await home.light("den.candle").state
        #expect(state.brightness == 100 && state.color.x > 0.6, "red at full brightness")
    }

    /// lifx-async and aiolifx draw into frame buffer 1 and copy it to 0; aiolifx copies eight rows unless told
    /// otherwise, and the two past the Candle's sixth are left out.
    @Test func aFrameCopiedFromOutOfSightShowsTheCandlesThirtyPixels() async throws {
        let light = try await light()
        let drawn = (0..<30).map { $0 < 15 ? Self.red : Self.blue }
        var hidden = LIFXMatrixTests.set64(tile: 0, width: 5, drawn)
        hidden[2] = 1
        #expect(try await replies(715, hidden, ack: true).map(\.type) == [45])
        #expect(try await pixels() == Array(repeating: light, count: 30), "drawn out of sight")
        let copy = LIFXMatrixTests.copyFrame(tile: 0, from: 1, to: 0, width: 5, height: 8)
        #expect(try await replies(716, copy, ack: true).map(\.type) == [45])
        #expect(try await pixels() == drawn)
    }

    @Test func theOneTileCanBePlacedAndNoOther() async throws {
        func place(_ tile: UInt8, _ x: Float, _ y: Float) -> [UInt8] {
            var writer = LIFXWriter()
            writer.uint8(tile)
            writer.zeros(2)
            writer.uint32(x.bitPattern)
            writer.uint32(y.bitPattern)
            return writer.output
        }
        #expect(try await replies(703, place(0, 0.5, -1), ack: true).map(\.type) == [45])
        #expect(try await replies(703, place(1, 2, 2), ack: true).map(\.type) == [45])
        let payload = try await replies(701)[0].payload
        var tile = LIFXReader(Array(payload[9..<17]))
        #expect(tile.uint32() == Float(0.5).bitPattern && tile.uint32() == Float(-1).bitPattern)
        #expect(payload[881] == 1, "still one tile")
        #expect(front.records.tilePositions.withLock { $0["den.candle"] } == [0: SIMD2(0.5, -1)], "tile 1 not kept")
    }

    /// Home Assistant and photons start the firmware's flame and morph on a Candle as on a Tile.
    @Test func theCandleRunsAMatrixEffect() async throws {
        let flame = try await replies(719, LIFXMatrixTests.tileEffect([Self.red, Self.blue], type: 3))
        try #require(flame.map(\.type) == [720])
        #expect(flame[0].payload[5] == 3, "flame")
        #expect(try await replies(718)[0].payload == flame[0].payload, "kept")
    }

    @Test func theTileKeepsItsChainOfFiveEightByEightTiles() async throws {
        let chain = try await replies(701, to: "den.tile")[0].payload
        #expect(chain[881] == 5)
        for tile in 0..<5 { #expect(chain[1 + 55 * tile + 16..<1 + 55 * tile + 18] == [8, 8]) }
        let light = try await light("den.tile")
        #expect(try await state64(of: 4, width: 8, light: "den.tile") == Array(repeating: light, count: 64))
        let painted = (0..<64).map { $0 % 8 < 5 ? Self.red : Self.blue }
        _ = try await replies(715, LIFXMatrixTests.set64(tile: 2, width: 8, painted), to: "den.tile")
        #expect(try await state64(of: 2, width: 8, light: "den.tile") == painted)
    }

    /// The Candle's 30 pixels are saved and read back after a restart, as the Tile's 320 are.
    @Test func aCandlesPixelsReadBackAfterARestart() async throws {
        let drawn = (0..<30).map { $0 < 10 ? Self.red : Self.blue }
        _ = try await replies(715, LIFXMatrixTests.set64(tile: 0, width: 5, drawn))
        #expect(try await pixels() == drawn)
        let again = try await Self.restarted(from: home)
        #expect(try await again.pixels() == drawn)
    }

    /// Pixels saved for another shape (a fixture edited to make a Tile a Candle keeps the bulbs' record) are not
    /// the Candle's: it shows its light's colour, and a Set64 still paints it.
    @Test func pixelsSavedForTheTilesShapeAreNotTheCandles() async throws {
        _ = try await replies(
            715, LIFXMatrixTests.set64(tile: 0, width: 8, Array(repeating: Self.red, count: 64)), to: "den.tile")
        let again = try await Self.restarted(from: home) { record in record["den.candle"] = record["den.tile"] }
        let shown = try await again.light()
        #expect(try await again.pixels() == Array(repeating: shown, count: 30))
        _ = try await again.replies(
            715, LIFXMatrixTests.set64(tile: 0, width: 5, Array(repeating: Self.blue, count: 30)))
        #expect(try await again.pixels() == Array(repeating: Self.blue, count: 30))
    }
}
