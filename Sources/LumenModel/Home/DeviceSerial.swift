import LumenProtocol

/// A light's serial as a device on a LAN gives it: a MAC address in LIFX's `d0:73:d5` range and three bytes of an
/// FNV-1a digest of the home's and the light's IDs, so a bulb keeps it across restarts. The LIFX bulbs answer by
/// it, and the scope protocol's `model` shows it for a light on the LIFX LAN.
///
/// ```swift
/// DeviceSerial.text(DeviceSerial.of(home: "flat", light: "den.bulb"))  // "d0:73:d5:…"
/// ```
public enum DeviceSerial {
    /// The serial of `light` in the home `home`.
    public static func of(home: String, light: LightID) -> [UInt8] {
        of(light, homeDigest: digest(home: home))
    }

    /// The digest of the home's ID that each of its lights' serials continues: worked out once for many lights.
    public static func digest(home: String) -> UInt64 { FNV1a.hash("\(home)/".utf8) }

    /// The serial of `light` in the home whose ``digest(home:)`` is `homeDigest`.
    public static func of(_ light: LightID, homeDigest: UInt64) -> [UInt8] {
        let hash = FNV1a.hash(light.rawValue.utf8, continuing: homeDigest)
        return [0xD0, 0x73, 0xD5, UInt8(hash >> 16 & 0xFF), UInt8(hash >> 8 & 0xFF), UInt8(hash & 0xFF)]
    }

    /// A serial as text: its bytes in hexadecimal, joined by colons.
    public static func text(_ serial: [UInt8]) -> String {
        serial.map { String(hex: $0, digits: 2) }.joined(separator: ":")
    }
}
