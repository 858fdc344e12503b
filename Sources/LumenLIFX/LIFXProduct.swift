import LumenModel

/// LIFX's product IDs and group IDs for Lumen's lights (LIFX's public products list).
enum LIFXProduct {
    /// The product ID for a light: the LIFX product its fixture names, where known, else a generic bulb of its
    /// kind.
    ///
    /// A colour light named a Beam is the LIFX Beam, one named a LIFX Z or a strip the LIFX Z, both with zones
    /// (``LIFXZones``); one named a Tile the LIFX Tile, a matrix (``LIFXMatrix``); one named a Night Vision (or LIFX+) is one, with infrared; one named a Clean is the LIFX
    /// Clean, with HEV. An on/off light is a white bulb, not a LIFX Switch (a relay, which clients drive with
    /// relay messages).
    static func id(of model: DeviceModel) -> UInt32 {
        let product = model.product.lowercased()
        if model.kind.supports(.color) {
            if product.contains("beam") { return 38 }  // LIFX Beam
            if product.contains("tile") { return 55 }  // LIFX Tile
            if product.contains("lifx z") || product.contains("strip") { return 32 }  // LIFX Z
            if product.contains("clean") { return 90 }  // LIFX Clean
            if product.contains("night vision") || product.contains("lifx+") {
                return product.contains("br30") ? 110 : 109  // LIFX BR30 Night Vision, LIFX A19 Night Vision
            }
        }
        if product.contains("mini") {
            if model.kind.supports(.color) { return 49 }  // LIFX Mini Color
            return model.kind.supports(.colorTemperature) ? 50 : 51  // LIFX Mini White to Warm, Mini White
        }
        switch model.kind {
        case .color: return 27  // LIFX A19
        case .ambiance: return 50  // LIFX Mini White to Warm
        case .dimmable, .onoff: return 51  // LIFX Mini White
        }
    }

    /// What a product can do beyond light, as LIFX's products list gives it.
    struct Capabilities: OptionSet, Sendable {
        let rawValue: UInt8
        static let infrared = Capabilities(rawValue: 1)
        static let hev = Capabilities(rawValue: 2)
        static let multizone = Capabilities(rawValue: 4)
        static let extendedMultizone = Capabilities(rawValue: 8)
        static let matrix = Capabilities(rawValue: 16)
    }

    /// The matrix products Lumen models: the LIFX Tile, a chain of ``LIFXMatrix/tiles`` tiles of 8×8.
    static let matrixProducts: Set<UInt32> = [55]

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
        if matrixProducts.contains(id) { capabilities.insert(.matrix) }
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
        return LIFXProduct.capabilities(of: LIFXProduct.id(of: model)).contains(needed)
    }
}
