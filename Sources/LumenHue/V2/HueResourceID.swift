import CLinux
import Glibc
import LumenModel

/// The IDs the Hue API v2 gives resources: version 4 UUIDs.
///
/// Each thing the bridge shows (a light, a room, a zone, a scene, the bridge) has a UUID of its own, drawn at
/// random and kept in the bridge's record (``HueBridgeState/resourceIDs``). The other resources that stand for
/// the same thing (a light's `device`, `zigbee_connectivity` and `device_software_update`, a room's
/// `grouped_light`) take a UUID made from that one and their type, so they are as stable and as unique as it is
/// without a record of their own.
enum HueResourceID {
    /// A UUID of version 4's shape made from `bridgeID`, `type` and `key`
    /// (`"3f2a…-…"`, lower case, `xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx`).
    static func make(bridge bridgeID: String, _ type: String, _ key: String) -> String {
        let seed = Array("\(bridgeID)/\(type)/\(key)".utf8)
        let first = FNV1a.hash(seed)
        let second = FNV1a.hash([0x23] + seed, continuing: first)
        return format(first, second)
    }

    /// The UUID of the `type` resource that stands for the same thing as the resource whose UUID is `root`.
    static func service(_ type: String, of root: String) -> String {
        make(bridge: root, type, "")
    }

    /// `count` new UUIDs from the kernel's random source, its bytes asked for all at once: a bridge of 100,000
    /// lights draws as many at its first start, before `READY=1`, and a system call each would be most of their
    /// cost.
    static func random(count: Int) -> [String] {
        var words = [UInt64](repeating: 0, count: 2 * count)
        let filled = words.withUnsafeMutableBytes { bytes in
            var done = 0
            while done < bytes.count {
                let got = getrandom(bytes.baseAddress! + done, bytes.count - done, 0)
                // Interrupted by a signal, it is asked again; any other failure leaves the words to the system's
                // generator.
                if got < 0 && errno == EINTR { continue }
                guard got > 0 else { return false }
                done += got
            }
            return true
        }
        guard filled else {
            var generator = SystemRandomNumberGenerator()
            return (0..<count).map { _ in format(generator.next(), generator.next()) }
        }
        return (0..<count).map { format(words[2 * $0], words[2 * $0 + 1]) }
    }

    /// The 128 bits of a version 4 UUID as ``random(count:)`` writes it, `nil` for any other text: two UUIDs are the
    /// same when their bits are, which a set of a record's UUIDs compares more cheaply than their text.
    static func bits(_ text: String) -> UInt128? {
        var value: UInt128 = 0
        var index = 0
        for character in text.utf8 {
            defer { index += 1 }
            switch index {
            case 8, 13, 18, 23:
                guard character == UInt8(ascii: "-") else { return nil }
                continue
            case 14: guard character == UInt8(ascii: "4") else { return nil }
            case 19: guard "89ab".utf8.contains(character) else { return nil }
            case 36...: return nil
            default: break
            }
            let digit: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = character - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt128(digit)
        }
        return index == 36 ? value : nil
    }

    /// The digits of a UUID, made once: a bridge of 100,000 lights writes as many UUIDs at its first start.
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The 128 bits of `high` and `low` as a UUID, marked version 4 and of the RFC 4122 variant, as a client that
    /// checks the shape expects. Written digit by digit: a bridge of 100,000 lights makes as many at its first
    /// start, before `READY=1`.
    static func format(_ high: UInt64, _ low: UInt64) -> String {
        let digits = hexDigits
        return String(unsafeUninitializedCapacity: 36) { text in
            var at = 0
            for index in 0..<16 {
                var byte = UInt8(truncatingIfNeeded: (index < 8 ? high : low) >> (8 * UInt64(7 - index % 8)))
                if index == 6 { byte = byte & 0x0F | 0x40 }
                if index == 8 { byte = byte & 0x3F | 0x80 }
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    text[at] = UInt8(ascii: "-")
                    at += 1
                }
                text[at] = digits[Int(byte >> 4)]
                text[at + 1] = digits[Int(byte & 0x0F)]
                at += 2
            }
            return at
        }
    }
}
