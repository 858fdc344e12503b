extension LIFXRequest {
    /// A strip's effect message or a matrix product's (LIFX's "MultiZone" and "Tile" messages) of type `type`;
    /// `nil` for another type. A short payload reads as zeros past its end, as every message's does.
    static func effectOrMatrixMessage(type: UInt16, _ reader: inout LIFXReader) -> LIFXRequest? {
        switch type {
        case 508: return .setMultiZoneEffect(LIFXEffect(&reader, reservedAfterType: 2, palette: false))
        case 701: return .getDeviceChain
        case 703:
            let tile = reader.uint8()
            reader.skip(2)
            let x = Float(bitPattern: reader.uint32())
            return .setUserPosition(tile: tile, x: x, y: Float(bitPattern: reader.uint32()))
        case 707: return .get64(rect(&reader))
        case 715:
            let rect = rect(&reader)
            let duration = reader.uint32()
            let colors = (0..<LIFXMatrix.colorsPerMessage).map { _ in HSBK(&reader) }
            return .set64(rect, durationMs: duration, colors: colors)
        case 716:
            let (tile, length, source, destination) = (reader.uint8(), reader.uint8(), reader.uint8(), reader.uint8())
            let (sourceX, sourceY, destinationX, destinationY) = (
                reader.uint8(), reader.uint8(), reader.uint8(), reader.uint8()
            )
            let (width, height) = (reader.uint8(), reader.uint8())
            return .copyFrameBuffer(
                LIFXFrameCopy(
                    tile: tile, length: length, source: source, destination: destination, from: SIMD2(sourceX, sourceY),
                    to: SIMD2(destinationX, destinationY), width: width, height: height, durationMs: reader.uint32()))
        case 718: return .getTileEffect
        case 719:
            reader.skip(2)
            return .setTileEffect(LIFXEffect(&reader, reservedAfterType: 0, palette: true))
        default: return nil
        }
    }

    /// `Get64`'s and `Set64`'s first fields: the tiles and the rectangle on each.
    private static func rect(_ reader: inout LIFXReader) -> LIFXTileRect {
        let tile = reader.uint8()
        let length = reader.uint8()
        let frameBuffer = reader.uint8()
        let x = reader.uint8()
        let y = reader.uint8()
        return LIFXTileRect(tile: tile, length: length, x: x, y: y, width: reader.uint8(), frameBuffer: frameBuffer)
    }
}
