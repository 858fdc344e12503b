import LumenModel

/// LIFX's product IDs and group IDs for Lumen's lights (LIFX's public products list).
enum LIFXProduct {
    /// The product ID for a light: the LIFX product its fixture names, where known, else a generic bulb of its
    /// kind.
    ///
    /// Only single-zone bulbs: a LIFX Z or Beam (multizone) is reported as a colour bulb, since Lumen does not
    /// model zones and a client told of zones would ask for them; an on/off light is a white bulb, not a LIFX
    /// Switch (a relay, which clients drive with relay messages).
    static func id(of model: DeviceModel) -> UInt32 {
        let product = model.product.lowercased()
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
