/// Where a matrix message reads or writes: `length` tiles from `tile`, and on each the rectangle from column `x`
/// and row `y`, `width` pixels wide, filled row by row (`Get64`, `Set64`).
struct LIFXTileRect: Sendable, Hashable {
    /// The first tile, counted from the one nearest the power supply.
    var tile: UInt8
    /// How many tiles from ``tile``.
    var length: UInt8
    /// The rectangle's first column.
    var x: UInt8
    /// The rectangle's first row.
    var y: UInt8
    /// The rectangle's width: how many colours fill a row before the next.
    var width: UInt8
    /// The frame buffer: 0 is the one shown; 1–7 are drawn into out of sight, to be copied (`CopyFrameBuffer`).
    var frameBuffer: UInt8 = 0

    /// The tiles it names that a chain of `geometry` has.
    func tiles(of geometry: LIFXMatrixGeometry) -> Range<Int> {
        let first = min(Int(tile), geometry.tiles)
        return first..<min(first + Int(length), geometry.tiles)
    }

    /// The pixel of a tile of `geometry` that the `index`th colour of the rectangle, `width` to a row, falls on;
    /// `nil` off the tile.
    func pixel(_ index: Int, width: Int, of geometry: LIFXMatrixGeometry) -> Int? {
        let column = Int(x) + index % width
        let row = Int(y) + index / width
        guard column < geometry.width, row < geometry.height else { return nil }
        return row * geometry.width + column
    }
}

/// The shape of a matrix product's chain: how many tiles, and each tile's columns and rows (LIFX's products list
/// and the clients that paint them). The product gives it (``LIFXProduct/matrixGeometry(of:)``); what reads or
/// writes pixels follows it.
struct LIFXMatrixGeometry: Sendable, Hashable {
    /// The tiles in the chain.
    var tiles: Int
    /// Each tile's columns and rows.
    var width: Int
    var height: Int

    /// Each tile's pixels.
    var pixelsPerTile: Int { width * height }
    /// The chain's pixels.
    var pixels: Int { tiles * pixelsPerTile }

    /// The LIFX Tile: a kit's chain of five tiles of 8×8.
    static let tile = LIFXMatrixGeometry(tiles: 5, width: 8, height: 8)
    /// The LIFX Candle Colour: one tile, five pixels wide and six high, no chain. lifx-async's table lists three
    /// cells of its top row with no LED; clients paint those dark themselves, so the Candle keeps all 30.
    static let candle = LIFXMatrixGeometry(tiles: 1, width: 5, height: 6)
    /// The LIFX Ceiling (8×8): one tile of 8×8, no chain. Its last pixel, (7, 7), is the uplight, which clients
    /// set and read as a pixel like the others; lifx-async's table lists its four corners' cells (eight in all,
    /// the uplight's among them) with no LED, and clients paint the seven the downlight lacks dark themselves, so
    /// the Ceiling keeps all 64.
    static let ceiling = LIFXMatrixGeometry(tiles: 1, width: 8, height: 8)
    /// The LIFX Ceiling 13x26: one tile 16 wide and 8 high, no chain, 128 pixels. A message carries 64 colours, so
    /// clients read and paint it four rows at a time (`y` 0 and 4, 16 wide), painting either straight into the
    /// frame buffer shown or into another and copying the whole tile over (lifx-async). Its last pixel, (15, 7), is
    /// the uplight, a pixel like the others; lifx-async lists its corners' cells as the 8×8's, with no LED, and
    /// paints them dark itself.
    static let wideCeiling = LIFXMatrixGeometry(tiles: 1, width: 16, height: 8)

    /// Every shape a matrix product of Lumen's has (``LIFXProduct/matrixGeometry(of:)``): a saved record's colours
    /// are placed by their count among these.
    static let all: [LIFXMatrixGeometry] = [.tile, .candle, .ceiling, .wideCeiling]
    /// The most tiles any chain has: the Tile's five.
    static let mostTiles = all.map(\.tiles).max() ?? 1
}

/// A matrix product's pixels: the colours clients gave them, over the light's own colour.
///
/// As a strip's zones (``LIFXZones``): Lumen's light has one colour; pixels given different colours are kept here,
/// beside the light, with the light's colour when they were set (``base``), and once the light's colour changes
/// every pixel follows it again. As many as the product's chain has (``geometry``): a Tile's five tiles of 8×8,
/// 320 pixels; a Candle's one of 5×6, 30; a Ceiling's one of 8×8, 64; a Ceiling 13x26's one of 16×8, 128.
struct LIFXMatrix: Sendable, Hashable {
    /// The most colours a `Set64` or `State64` carries: a tile of 8×8's, whatever the tile's size.
    static let colorsPerMessage = 64

    /// The chain's shape: its product's.
    var geometry: LIFXMatrixGeometry
    /// The light's colour when the pixels were set.
    var base: HSBK
    /// Every tile's pixels, tile by tile, each row by row from the top left, as last set.
    var colors: [HSBK]
    /// The fade under way to ``colors``, if any: each pixel fades on its own, as a strip's zones do.
    var fade: LIFXZones.Fade? = nil

    /// The pixels' colours at `nowMs`, part of the way there while they fade.
    func shown(atMs nowMs: Double) -> [HSBK] { fade?.shown(towards: colors, atMs: nowMs) ?? colors }

    /// Changes the pixels with `change` (which says whether it placed any), faded to over `durationMs` from what
    /// they show at `nowMs`.
    /// - Returns: whether any pixel was placed.
    mutating func change(atMs nowMs: Double, durationMs: Double, _ change: (inout LIFXMatrix) -> Bool) -> Bool {
        let from = shown(atMs: nowMs)
        guard change(&self) else { return false }
        fade = LIFXZones.Fade.from(from, to: colors, atMs: nowMs, durationMs: durationMs)
        return true
    }

    /// The pixels now of a matrix of `geometry` whose light shows `light`, from those `kept` when they were set.
    static func current(_ kept: LIFXMatrix?, light: HSBK, geometry: LIFXMatrixGeometry) -> LIFXMatrix {
        // Kept while the light shows the same colour, whatever its level (a fade on or off moves the level), and
        // while the light is the same product: pixels saved for another shape (a fixture edited to make a Tile a
        // Candle keeps the bulbs' record) are not its.
        if let kept, kept.geometry == geometry, kept.base.hasSameColor(as: light) { return kept }
        return LIFXMatrix(geometry: geometry, base: light, colors: Array(repeating: light, count: geometry.pixels))
    }

    /// Whether every pixel shows the same colour: the chain is then the light, as one colour.
    var isOneColour: Bool {
        guard let first = colors.first else { return true }
        return colors.allSatisfy { $0 == first }
    }

    /// Places `newColors` into `rect` on each tile it names; colours that fall off a tile are left out.
    /// - Returns: whether any pixel was placed (none for a width of 0, tiles the chain lacks or a frame buffer
    ///   other than the one shown).
    mutating func set(_ newColors: [HSBK], in rect: LIFXTileRect) -> Bool {
        rect.frameBuffer == 0 && draw(newColors, in: rect)
    }

    /// Places `newColors` into `rect` on each tile it names, whichever frame buffer it names: `colors` are then
    /// that buffer's.
    /// - Returns: whether any pixel was placed.
    mutating func draw(_ newColors: [HSBK], in rect: LIFXTileRect) -> Bool {
        let width = Int(rect.width)
        guard width > 0 else { return false }
        var placed = false
        for tile in rect.tiles(of: geometry) {
            for (index, color) in newColors.prefix(Self.colorsPerMessage).enumerated() {
                guard let pixel = rect.pixel(index, width: width, of: geometry) else { continue }
                colors[tile * geometry.pixelsPerTile + pixel] = color
                placed = true
            }
        }
        return placed
    }

    /// The colours of `rect` on each tile it names, 64 a tile, with zeros for what lies off the tile; a width of 0
    /// reads as a tile's width.
    func read(_ rect: LIFXTileRect) -> [(tile: Int, colors: [HSBK])] {
        let width = rect.width == 0 ? geometry.width : Int(rect.width)
        let off = HSBK(hue: 0, saturation: 0, brightness: 0, kelvin: 0)
        return rect.tiles(of: geometry).map { tile in
            let shown = (0..<Self.colorsPerMessage).map { index in
                rect.pixel(index, width: width, of: geometry).map { colors[tile * geometry.pixelsPerTile + $0] } ?? off
            }
            return (tile, shown)
        }
    }
}

/// `CopyFrameBuffer`: a rectangle copied from one frame buffer to another, on each of `length` tiles from `tile`
/// (a `length` of 0 is one tile), as clients show a frame drawn out of sight (Home Assistant and lifx-async draw
/// into frame buffer 1 and copy it to 0, the one shown).
struct LIFXFrameCopy: Sendable, Hashable {
    /// The first tile and how many from it.
    var tile: UInt8
    var length: UInt8
    /// The frame buffer copied from and the one copied to.
    var source: UInt8
    var destination: UInt8
    /// The rectangle's top left corner in each.
    var from: SIMD2<UInt8>
    var to: SIMD2<UInt8>
    /// The rectangle's size.
    var width: UInt8
    var height: UInt8
    /// How long the frame shown takes to change.
    var durationMs: UInt32

    /// The frame buffers a chain has: 0, the one shown, and seven to draw into out of sight.
    static let frameBuffers: ClosedRange<UInt8> = 0...7

    /// `destination`'s pixels with the rectangle copied from `source`'s, on each tile named that a chain of
    /// `geometry` has; pixels that fall off a tile are left out (aiolifx copies eight rows unless told otherwise,
    /// on a Candle of six too).
    func copy(_ source: [HSBK], over destination: [HSBK], in geometry: LIFXMatrixGeometry) -> [HSBK] {
        var copied = destination
        let first = min(Int(tile), geometry.tiles)
        let tiles = first..<min(first + max(1, Int(length)), geometry.tiles)
        let (tileWidth, tileHeight) = (geometry.width, geometry.height)
        for tile in tiles {
            let offset = tile * geometry.pixelsPerTile
            // A row or column past the tile's falls off it whatever the corners: a datagram asking 255 × 255 costs
            // no more than the tile.
            for row in 0..<min(Int(height), tileHeight) {
                for column in 0..<min(Int(width), tileWidth) {
                    let (fromX, fromY) = (Int(from.x) + column, Int(from.y) + row)
                    let (toX, toY) = (Int(to.x) + column, Int(to.y) + row)
                    guard fromX < tileWidth, fromY < tileHeight, toX < tileWidth, toY < tileHeight else { continue }
                    copied[offset + toY * tileWidth + toX] = source[offset + fromY * tileWidth + fromX]
                }
            }
        }
        return copied
    }
}
