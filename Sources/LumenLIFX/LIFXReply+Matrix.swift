/// One tile of a matrix product's chain, as `StateDeviceChain` describes it.
struct LIFXTileDevice: Sendable, Hashable {
    /// Where the user placed it, in tile widths.
    var userX: Float
    var userY: Float
    /// Its columns and rows of pixels.
    var width: UInt8
    var height: UInt8
    /// Its product.
    var product: UInt32

    /// Its 55 bytes: no accelerometer reading (a tile at rest reads as right side up), then placement, size,
    /// version and firmware (every bulb's, ``LIFXFront/firmware``).
    func write(_ writer: inout LIFXWriter) {
        let firmware = LIFXFront.firmware
        writer.zeros(3 * 2 + 2)
        writer.uint32(userX.bitPattern)
        writer.uint32(userY.bitPattern)
        writer.uint8(width)
        writer.uint8(height)
        writer.zeros(1)
        writer.uint32(1)
        writer.uint32(product)
        writer.zeros(4)
        writer.uint64(firmware.build)
        writer.zeros(8)
        writer.uint16(firmware.minor)
        writer.uint16(firmware.major)
        writer.zeros(4)
    }
}

extension LIFXReply {
    /// The most tiles `StateDeviceChain` describes.
    static let chainCapacity = 16

    /// Writes the fields of an effect's state or a matrix's.
    func writeMatrixOrEffect(_ writer: inout LIFXWriter) {
        switch self {
        case .stateMultiZoneEffect(let effect):
            effect.write(&writer, reservedAfterType: 2, palette: false)
        case .stateDeviceChain(let tiles):
            writer.uint8(0)
            for tile in tiles.prefix(Self.chainCapacity) { tile.write(&writer) }
            writer.zeros(55 * (Self.chainCapacity - min(Self.chainCapacity, tiles.count)))
            writer.uint8(UInt8(min(Self.chainCapacity, tiles.count)))
        case .state64(let tile, let x, let y, let width, let colors):
            for byte in [tile, 0, x, y, width] { writer.uint8(byte) }
            for color in colors.prefix(LIFXMatrix.colorsPerMessage) { color.write(&writer) }
            writer.zeros(8 * (LIFXMatrix.colorsPerMessage - min(LIFXMatrix.colorsPerMessage, colors.count)))
        case .stateTileEffect(let effect):
            writer.zeros(1)
            effect.write(&writer, reservedAfterType: 0, palette: true)
        default:
            break
        }
    }
}
