/// The ID of a room, unique within a home (`"living-room"`).
public struct RoomID: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The ID as written in fixtures and on the wire.
    public let rawValue: String

    /// Wraps an ID; see ``EntityID/validate(_:)`` for what makes one valid.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }
    public static func < (lhs: RoomID, rhs: RoomID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The ID of a light, unique within a home (`"living-room.ceiling"`).
public struct LightID: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The ID as written in fixtures and on the wire.
    public let rawValue: String

    /// Wraps an ID; see ``EntityID/validate(_:)`` for what makes one valid.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }
    public static func < (lhs: LightID, rhs: LightID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The rule every name follows: the home's, a room's, a light's, however it is given.
public enum EntityName {
    /// The longest name allowed, in characters.
    public static let maxLength = 64

    /// Why `name` cannot be a name, or `nil` when it can.
    ///
    /// Names are 1–64 characters, not only spaces, with no control characters and no characters that reorder
    /// or hide text: they are shown in tables and on terminals, where a tab breaks the columns, an escape
    /// sequence drives the terminal of whoever looks, and a direction override or an invisible character makes
    /// a name show as something it is not. Any script and any emoji passes; see ``isRefused(_:)`` for the
    /// characters refused, and ``isJoiner(_:)`` for the two allowed only inside a word or an emoji sequence.
    public static func validate(_ name: String) -> String? {
        isValid(name)
            ? nil
            : "a name must be 1–\(maxLength) characters, not only spaces, and without control characters "
                + "(tabs, newlines, escapes) or characters that reorder or hide text (direction marks and overrides, "
                + "zero-width and other invisible characters, line separators, noncharacters)"
    }

    private static func isValid(_ name: String) -> Bool {
        // Most names are printable ASCII: checked byte by byte, with no Unicode tables consulted.
        if name.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return !name.utf8.isEmpty && name.utf8.count <= maxLength && name.utf8.contains { $0 != 0x20 }
        }
        guard name.count <= maxLength, !name.allSatisfy(\.isWhitespace) else { return false }
        var previous: Unicode.Scalar?
        var scalars = name.unicodeScalars.makeIterator()
        var current = scalars.next()
        while let scalar = current {
            let next = scalars.next()
            if isRefused(scalar) { return false }
            // A joiner belongs between two characters that need it: the parts of an emoji sequence
            // (👩 U+200D 💻), the letters of a script that joins them (Persian, the Indic scripts). Anywhere else
            // it only hides.
            if isJoiner(scalar) {
                guard let before = previous, let after = next, canBeJoined(before), canBeJoined(after) else {
                    return false
                }
            }
            previous = scalar
            current = next
        }
        return true
    }

    /// Whether a name may never hold `scalar`:
    /// - control characters: C0, DEL and C1;
    /// - the bidirectional marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E,
    ///   U+2066–U+2069), which turn the text after them around ("Lamp U+202E pmal" shows as "Lamp lamp");
    /// - invisible characters: the soft hyphen U+00AD, U+180E, the zero-width space U+200B, the word joiner
    ///   and invisible operators U+2060–U+2064, the deprecated format characters U+206A–U+206F, the byte order
    ///   mark U+FEFF, the interlinear annotation characters U+FFF9–U+FFFB;
    /// - the line and paragraph separators U+2028 and U+2029, which break a line as a newline does;
    /// - noncharacters (U+FDD0–U+FDEF, and the last two code points of every plane, as U+FFFE and U+FFFF),
    ///   which Unicode keeps out of text that is interchanged.
    public static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0xAD, 0x61C, 0x180E: true
        case 0x200B, 0x200E, 0x200F, 0x2028...0x202E, 0x2060...0x2064, 0x2066...0x206F: true
        case 0xFDD0...0xFDEF, 0xFEFF, 0xFFF9...0xFFFB: true
        case let value where value & 0xFFFE == 0xFFFE: true
        default: false
        }
    }

    /// Whether `scalar` is the zero-width joiner U+200D or non-joiner U+200C: allowed only between two
    /// characters beyond ASCII that are themselves allowed (so the emoji 👩 U+200D 💻 and a Persian word pass;
    /// a U+200D b, and a joiner at either end, do not).
    public static func isJoiner(_ scalar: Unicode.Scalar) -> Bool { scalar.value == 0x200C || scalar.value == 0x200D }

    private static func canBeJoined(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value > 0x7F && !isRefused(scalar) && !isJoiner(scalar)
    }
}

/// The rules every room and light ID follows.
public enum EntityID {
    /// The longest ID allowed, in bytes.
    public static let maxLength = 64

    /// Why `id` cannot be an ID, or `nil` when it can.
    ///
    /// IDs are 1–64 characters of ASCII letters, digits, `.`, `_` and `-`, so that they are safe in
    /// file names, shell words and systemd instance names without quoting.
    public static func validate(_ id: String) -> String? {
        if id.isEmpty { return "an ID must not be empty" }
        if id.utf8.count > maxLength { return "'\(id)' is longer than \(maxLength) characters" }
        let allowed = id.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        return allowed ? nil : "'\(id)' may only contain letters, digits, '.', '_' and '-'"
    }
}
