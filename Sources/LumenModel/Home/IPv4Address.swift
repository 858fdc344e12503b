/// An IPv4 address, as a LIFX bulb on the LAN has one (`192.168.1.50`).
///
/// ```swift
/// let first = IPv4Address("127.0.0.10")!
/// first.advanced(by: 1).description  // "127.0.0.11"
/// ```
public struct IPv4Address: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The address as a number, most significant byte first (`127.0.0.1` is `0x7F00_0001`).
    public var value: UInt32

    /// An address from its number.
    public init(value: UInt32) { self.value = value }

    /// Reads a dotted quad (`10.0.0.5`): four decimal numbers 0–255, no leading zeros (which some readers take
    /// as octal); `nil` for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCII), part.allSatisfy(\.isNumber),
                part.count == 1 || part.first != "0", let byte = UInt8(part)
            else { return nil }
            value = value << 8 | UInt32(byte)
        }
        self.value = value
    }

    /// The dotted quad: `192.168.1.50`.
    public var description: String {
        (0..<4).map { String(value >> (24 - 8 * UInt32($0)) & 0xFF) }.joined(separator: ".")
    }

    /// Whether `left` comes before `right` in the address space.
    public static func < (left: IPv4Address, right: IPv4Address) -> Bool { left.value < right.value }

    /// Whether it is a loopback address (127.0.0.0/8), reached from this machine only.
    public var isLoopback: Bool { value >> 24 == 127 }

    /// The address `count` on, wrapping past 255.255.255.255.
    public func advanced(by count: Int) -> IPv4Address {
        IPv4Address(value: value &+ UInt32(truncatingIfNeeded: count))
    }

    /// Why this cannot be one device's address, or `nil` when it can be: the wildcard, the limited broadcast and
    /// multicast and reserved addresses (224.0.0.0 and up) name no single device.
    public var problemAsDeviceAddress: String? {
        if value == 0 { return "0.0.0.0 is no device's address" }
        if value == 0xFFFF_FFFF { return "255.255.255.255 is the broadcast address, no device's" }
        if value >> 28 >= 0xE { return "\(self) is a multicast or reserved address, no device's" }
        return nil
    }
}
