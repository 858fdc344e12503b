import LumenModel
import LumenProtocol

/// The snapshot file's format: the home as a fixture, one JSON object, whose last member is a checksum of
/// everything before it.
///
/// ```
/// {"schema":1,"id":"demo-home",…,"rooms":[…],"checksum":"crc32c:1c2b3a4d"}
/// ```
///
/// The CRC-32C covers every byte before `,"checksum"`, so any change to the file (a flipped bit, a torn or
/// zeroed block) is detected before a single value is believed. The file stays a fixture: `lumend --fixture`
/// accepts it, and the checksum is ignored there.
package enum StateSnapshot {
    /// `,"checksum":"crc32c:`, then 8 hex digits, then `"}` and a newline.
    private static let marker = Array(#","checksum":"crc32c:"#.utf8)
    private static let trailerLength = marker.count + 8 + 3

    /// The file's bytes for `fixture`.
    package static func encode(_ fixture: Fixture) -> [UInt8] {
        var bytes: [UInt8] = []
        fixture.jsonValue.write(to: &bytes)
        // Replace the object's closing brace with the checksum member and the brace.
        bytes.removeLast()
        let checksum = CRC32C.checksum(bytes[...])
        bytes.append(contentsOf: marker)
        bytes.append(contentsOf: CRC32C.text(checksum).utf8)
        bytes.append(contentsOf: Array(#""}"#.utf8) + [UInt8(ascii: "\n")])
        return bytes
    }

    /// What a snapshot file holds.
    package enum Contents: Sendable {
        /// The state, its checksum verified (`checked`), or from a file written before snapshots had one.
        case state(Fixture, checked: Bool)
        /// The file is damaged or is no snapshot; the reason says how.
        case damaged(String)
        /// The file was written by a newer lumend.
        case newer(String)
    }

    /// Why a snapshot file's bytes are damaged, or `nil` when they look sound, without parsing them: its
    /// checksum, or, in a file from before snapshots had one, how it ends. One pass over the bytes.
    static func damage(in bytes: [UInt8]) -> String? {
        if let damage = checksumDamage(bytes) { return damage }
        // Every snapshot ends so; a file cut short does not.
        return bytes.suffix(2).elementsEqual(Array("}\n".utf8)) ? nil : "it is cut short"
    }

    /// Why the bytes fail their checksum, or `nil` when they pass or carry none.
    private static func checksumDamage(_ bytes: [UInt8]) -> String? {
        guard let stored = storedChecksum(bytes) else {
            // A trailer one byte broke still names the checksum, or still says crc32c where it ends.
            let broken =
                bytes.firstRange(of: Array(#""checksum""#.utf8)) != nil
                || bytes.suffix(trailerLength).firstRange(of: Array("crc32c".utf8)) != nil
            return broken ? "its checksum is damaged" : nil
        }
        let actual = CRC32C.checksum(bytes[..<(bytes.count - trailerLength)])
        guard actual != stored else { return nil }
        return "its checksum does not match its contents (stored \(CRC32C.text(stored)), "
            + "computed \(CRC32C.text(actual)))"
    }

    /// Verifies and decodes a snapshot file's bytes.
    package static func decode(_ file: [UInt8]) -> Contents {
        // The parser says what is wrong with a file that carries no checksum.
        if let damage = checksumDamage(file) { return .damaged(damage) }
        var bytes = file
        let checked = storedChecksum(bytes) != nil
        if checked {
            bytes.removeLast(trailerLength - 1)
            bytes[bytes.count - 1] = UInt8(ascii: "}")
        }
        do throws(FixtureError) {
            return .state(try Fixture(json: bytes), checked: checked)
        } catch {
            if case .shape(let shape) = error, shape.message.contains("newer than this lumend") {
                return .newer(shape.message)
            }
            return .damaged("\(error)")
        }
    }

    /// The checksum in the trailer, when the file ends in one of the right shape.
    private static func storedChecksum(_ bytes: [UInt8]) -> UInt32? {
        guard bytes.count > trailerLength else { return nil }
        let start = bytes.count - trailerLength
        guard bytes[start..<(start + marker.count)].elementsEqual(marker),
            bytes[(bytes.count - 3)...].elementsEqual(Array(#""}"#.utf8) + [UInt8(ascii: "\n")])
        else { return nil }
        return CRC32C.parse(bytes[(start + marker.count)..<(start + marker.count + 8)])
    }
}
