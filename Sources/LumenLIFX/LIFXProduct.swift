import LumenModel

/// What LIFX's products can do, and group IDs for Lumen's lights (LIFX's public products list); which product a
/// light is, and its kelvin range, is ``DeviceModel/lifxProductID``.
enum LIFXProduct {
    /// What a product can do beyond light, as LIFX's products list gives it.
    struct Capabilities: OptionSet, Sendable {
        let rawValue: UInt8
        static let infrared = Capabilities(rawValue: 1)
        static let hev = Capabilities(rawValue: 2)
        static let multizone = Capabilities(rawValue: 4)
        static let extendedMultizone = Capabilities(rawValue: 8)
        static let matrix = Capabilities(rawValue: 16)
    }

    /// The shape of the matrix product `id`'s chain, for the matrix products Lumen models: the LIFX Tile, five
    /// tiles of 8×8; the LIFX Candle Colour, one of 5×6; the LIFX Ceiling, one of 8×8; the LIFX Ceiling 13x26, one
    /// 16 wide and 8 high; `nil` for any other product. A shape added here is added to ``LIFXMatrixGeometry/all``
    /// too.
    static func matrixGeometry(of id: UInt32) -> LIFXMatrixGeometry? {
        switch id {
        case 55: .tile
        case 137: .candle
        case 176: .ceiling
        case 201: .wideCeiling
        default: nil
        }
    }

    /// The products with infrared, and those with HEV (LIFX's products list).
    static let infraredProducts: Set<UInt32> = [25, 26, 29, 30, 45, 46, 64, 65, 109, 110, 111, 112]
    static let hevProducts: Set<UInt32> = [90, 99]
    /// The products with zones, and those of them with extended multizone messages at firmware 3.90.
    static let multizoneProducts: Set<UInt32> = extendedMultizoneProducts.union([31, 300])
    static let extendedMultizoneProducts: Set<UInt32> = [
        32, 38, 56, 117, 118, 119, 120, 141, 142, 143, 144, 151, 152, 161, 162, 203, 204, 205, 206, 207, 208, 211,
        213, 214,
    ]

    /// What the product `id` can do beyond light.
    static func capabilities(of id: UInt32) -> Capabilities {
        var capabilities: Capabilities = []
        if infraredProducts.contains(id) { capabilities.insert(.infrared) }
        if hevProducts.contains(id) { capabilities.insert(.hev) }
        if multizoneProducts.contains(id) { capabilities.insert(.multizone) }
        if extendedMultizoneProducts.contains(id) { capabilities.insert(.extendedMultizone) }
        if matrixGeometry(of: id) != nil { capabilities.insert(.matrix) }
        return capabilities
    }

    /// A 16-byte ID for a location or group, derived from `name`.
    static func groupID(_ name: String) -> [UInt8] {
        var hash = FNV1a.offsetBasis
        var bytes: [UInt8] = []
        for round in 0..<2 {
            hash = FNV1a.hash("\(round):\(name)".utf8, continuing: hash)
            bytes += (0..<8).map { UInt8(hash >> (8 * UInt64($0)) & 0xFF) }
        }
        return bytes
    }
}

extension LIFXRequest {
    /// Whether a bulb of `model` handles it: infrared messages on a product with infrared, HEV messages on one
    /// with HEV, every other message on every product.
    func isSupported(by model: DeviceModel) -> Bool {
        let needed: LIFXProduct.Capabilities
        switch self {
        case .getInfrared, .setInfrared: needed = .infrared
        case .getHevCycle, .setHevCycle, .getHevCycleConfiguration, .setHevCycleConfiguration, .getLastHevCycleResult:
            needed = .hev
        case .getColorZones, .setColorZones, .getMultiZoneEffect, .setMultiZoneEffect: needed = .multizone
        case .getExtendedColorZones, .setExtendedColorZones: needed = .extendedMultizone
        case .getDeviceChain, .setUserPosition, .get64, .set64, .copyFrameBuffer, .getTileEffect, .setTileEffect:
            needed = .matrix
        default: return true
        }
        return LIFXProduct.capabilities(of: model.lifxProductID).contains(needed)
    }
}

extension LIFXRequest {
    /// This message as a bulb of `model` takes it: each colour's kelvin outside its product's range as the nearer
    /// end (``HSBK/keepingKelvin(to:)``), so that what it shows and reports lies in the range clients check.
    func keepingKelvin(to model: DeviceModel) -> LIFXRequest {
        let range = model.lifxKelvinRange
        switch self {
        case .setColor(let color, let durationMs):
            return .setColor(color.keepingKelvin(to: range), durationMs: durationMs)
        case .setWaveform(var wave):
            wave.color = wave.color.keepingKelvin(to: range)
            return .setWaveform(wave)
        case .setWaveformOptional(var wave, let fields):
            wave.color = wave.color.keepingKelvin(to: range)
            return .setWaveformOptional(wave, fields: fields)
        case .setColorZones(let start, let end, let color, let durationMs, let apply):
            return .setColorZones(
                start: start, end: end, color.keepingKelvin(to: range), durationMs: durationMs, apply: apply)
        case .setExtendedColorZones(let durationMs, let apply, let index, let colors):
            return .setExtendedColorZones(
                durationMs: durationMs, apply: apply, index: index, colors: colors.map { $0.keepingKelvin(to: range) })
        case .set64(let rect, let durationMs, let colors):
            return .set64(rect, durationMs: durationMs, colors: colors.map { $0.keepingKelvin(to: range) })
        default: return self
        }
    }
}
