/// A firmware effect as a client asks for it (`SetMultiZoneEffect` on a strip, `SetTileEffect` on a matrix) and
/// the device reports it: Lumen keeps and reports it, and does not animate it.
///
/// Bounded as the message is: 32 bytes of parameters, at most 16 colours of palette.
struct LIFXEffect: Sendable, Hashable {
    /// The most colours a tile effect's palette holds.
    static let paletteCapacity = 16
    /// The size of an effect's parameters, kept as sent: their meaning depends on the effect.
    static let parametersSize = 32

    /// The client's number for this run of the effect.
    var instanceID: UInt32
    /// The effect: 0 none; on a strip 1 move; on a matrix 2 morph, 3 flame, 5 sky.
    var type: UInt8
    /// How long one cycle of the effect takes, in milliseconds.
    var speedMs: UInt32
    /// How long the effect runs, in nanoseconds; 0 for ever.
    var durationNs: UInt64
    /// The effect's parameters, as sent.
    var parameters: [UInt8]
    /// The colours a tile effect draws with; none on a strip.
    var palette: [HSBK]

    /// No effect running: every field 0, as a device reports before any effect.
    static let none = LIFXEffect(
        instanceID: 0, type: 0, speedMs: 0, durationNs: 0,
        parameters: [UInt8](repeating: 0, count: parametersSize), palette: [])

    /// An effect.
    init(
        instanceID: UInt32, type: UInt8, speedMs: UInt32, durationNs: UInt64, parameters: [UInt8], palette: [HSBK]
    ) {
        self.instanceID = instanceID
        self.type = type
        self.speedMs = speedMs
        self.durationNs = durationNs
        self.parameters =
            Array(parameters.prefix(Self.parametersSize))
            + [UInt8](repeating: 0, count: max(0, Self.parametersSize - parameters.count))
        self.palette = Array(palette.prefix(Self.paletteCapacity))
    }

    /// Whether the effect is of a type a device of `kind` has (``LIFXDeviceRecords/effectTypes(of:)``): one that
    /// is not runs as none.
    func isOne(of kind: LIFXDeviceRecords.EffectKind) -> Bool {
        LIFXDeviceRecords.effectTypes(of: kind).contains(type)
    }

    /// Reads the fields both effect messages share, from the instance ID to the parameters.
    init(_ reader: inout LIFXReader, reservedAfterType: Int, palette: Bool) {
        let instanceID = reader.uint32()
        let type = reader.uint8()
        reader.skip(reservedAfterType)
        let speed = reader.uint32()
        let duration = reader.uint64()
        reader.skip(8)
        let parameters = reader.bytes(Self.parametersSize)
        var colors: [HSBK] = []
        if palette {
            // A count past the palette's room names colours that are not there: only the room's are read.
            let count = min(Self.paletteCapacity, Int(reader.uint8()))
            colors = (0..<Self.paletteCapacity).map { _ in HSBK(&reader) }.prefix(count).map { $0 }
        }
        self.init(
            instanceID: instanceID, type: type, speedMs: speed, durationNs: duration, parameters: parameters,
            palette: colors)
    }

    /// Writes the fields from the instance ID on: with the palette and its count for a tile effect.
    func write(_ writer: inout LIFXWriter, reservedAfterType: Int, palette withPalette: Bool) {
        writer.uint32(instanceID)
        writer.uint8(type)
        writer.zeros(reservedAfterType)
        writer.uint32(speedMs)
        writer.uint64(durationNs)
        writer.zeros(8)
        writer.bytes(parameters, count: Self.parametersSize)
        guard withPalette else { return }
        writer.uint8(UInt8(palette.count))
        for color in palette { color.write(&writer) }
        writer.zeros(8 * (Self.paletteCapacity - palette.count))
    }
}
