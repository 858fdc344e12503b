/// Where a matrix message reads or writes: `length` tiles from `tile`, and on each the rectangle from column `x`
/// and row `y`, `width` pixels wide, filled row by row (`Get64`, `Set64`).
public struct LIFXTileRect: Sendable, Hashable {
    /// The first tile, counted from the one nearest the power supply.
    public var tile: UInt8
    /// How many tiles from ``tile``.
    public var length: UInt8
    /// The rectangle's first column.
    public var x: UInt8
    /// The rectangle's first row.
    public var y: UInt8
    /// The rectangle's width: how many colours fill a row before the next.
    public var width: UInt8
    /// The frame buffer: 0 is the one shown; newer firmware draws into others to copy later, which Lumen lacks.
    public var frameBuffer: UInt8

    /// A rectangle on `length` tiles from `tile`, in frame buffer `frameBuffer`.
    public init(tile: UInt8, length: UInt8, x: UInt8, y: UInt8, width: UInt8, frameBuffer: UInt8 = 0) {
        self.tile = tile
        self.length = length
        self.frameBuffer = frameBuffer
        self.x = x
        self.y = y
        self.width = width
    }

    /// The tiles it names that the chain has.
    var tiles: Range<Int> {
        let first = min(Int(tile), LIFXMatrix.tiles)
        return first..<min(first + Int(length), LIFXMatrix.tiles)
    }

    /// The pixel of a tile that the `index`th colour of the rectangle falls on; `nil` off the tile.
    func pixel(_ index: Int, width: Int) -> Int? {
        let column = Int(x) + index % width
        let row = Int(y) + index / width
        guard column < LIFXMatrix.width, row < LIFXMatrix.height else { return nil }
        return row * LIFXMatrix.width + column
    }
}

/// A LIFX Tile's pixels: the colours clients gave them, over the light's own colour.
///
/// As a strip's zones (``LIFXZones``): Lumen's light has one colour; pixels given different colours are kept here,
/// beside the light, with the light's colour when they were set (``base``), and once the light's colour changes
/// every pixel follows it again. Fixed in size: a chain of five tiles of 8×8, 320 pixels.
struct LIFXMatrix: Sendable, Hashable {
    /// The tiles in the chain: a LIFX Tile kit's five.
    static let tiles = 5
    /// Each tile's columns and rows.
    static let width = 8
    static let height = 8
    /// Each tile's pixels, and the most colours a `Set64` or `State64` carries.
    static let pixelsPerTile = width * height

    /// The light's colour when the pixels were set.
    var base: HSBK
    /// Every tile's pixels, tile by tile, each row by row from the top left.
    var colors: [HSBK]

    /// The pixels now of a matrix whose light shows `light`, from those `kept` when they were set.
    static func current(_ kept: LIFXMatrix?, light: HSBK) -> LIFXMatrix {
        // Kept while the light shows the same colour, whatever its level (a fade on or off moves the level).
        if let kept, kept.base.hasSameColor(as: light) { return kept }
        return LIFXMatrix(base: light, colors: Array(repeating: light, count: tiles * pixelsPerTile))
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
        let width = Int(rect.width)
        guard width > 0, rect.frameBuffer == 0 else { return false }
        var placed = false
        for tile in rect.tiles {
            for (index, color) in newColors.prefix(Self.pixelsPerTile).enumerated() {
                guard let pixel = rect.pixel(index, width: width) else { continue }
                colors[tile * Self.pixelsPerTile + pixel] = color
                placed = true
            }
        }
        return placed
    }

    /// The colours of `rect` on each tile it names, 64 a tile, with zeros for what lies off the tile; a width of 0
    /// reads as a tile's width.
    func read(_ rect: LIFXTileRect) -> [(tile: Int, colors: [HSBK])] {
        let width = rect.width == 0 ? Self.width : Int(rect.width)
        let off = HSBK(hue: 0, saturation: 0, brightness: 0, kelvin: 0)
        return rect.tiles.map { tile in
            let shown = (0..<Self.pixelsPerTile).map { index in
                rect.pixel(index, width: width).map { colors[tile * Self.pixelsPerTile + $0] } ?? off
            }
            return (tile, shown)
        }
    }
}
