import LumenModel

/// The IDs the Hue API v2 gives resources: UUIDs of version 4's shape, derived from the bridge's ID, the
/// resource's type and what Lumen calls the thing behind it (a light's ID, a scene's v1 ID), so that they stay
/// the same across restarts and need no record of their own, while two bridges never share one.
enum HueResourceID {
    /// The UUID of the `type` resource for `key` on the bridge `bridgeID`
    /// (`"3f2a…-…"`, lower case, `xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx`).
    static func make(bridge bridgeID: String, _ type: String, _ key: String) -> String {
        let seed = Array("\(bridgeID)/\(type)/\(key)".utf8)
        let first = FNV1a.hash(seed)
        let second = FNV1a.hash([0x23] + seed, continuing: first)
        var bytes = (0..<8).map { UInt8(truncatingIfNeeded: first >> (8 * UInt64(7 - $0))) }
        bytes += (0..<8).map { UInt8(truncatingIfNeeded: second >> (8 * UInt64(7 - $0))) }
        // Version 4 and the RFC 4122 variant, as a client that checks the shape expects.
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { HueValues.hex(UInt64($0)) }
        return [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { hex[$0].joined() }.joined(separator: "-")
    }
}
