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
    /// Names are 1–64 characters, not only spaces, with no control characters: they are shown in tables and
    /// on terminals, where a tab breaks the columns and an escape sequence drives the terminal of whoever looks.
    public static func validate(_ name: String) -> String? {
        isValid(name)
            ? nil
            : "a name must be 1–\(maxLength) characters, not only spaces, and without control characters "
                + "(tabs, newlines, escapes)"
    }

    private static func isValid(_ name: String) -> Bool {
        // Most names are printable ASCII: checked byte by byte, with no Unicode tables consulted.
        if name.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return !name.utf8.isEmpty && name.utf8.count <= maxLength && name.utf8.contains { $0 != 0x20 }
        }
        guard name.count <= maxLength, !name.allSatisfy(\.isWhitespace) else { return false }
        return !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
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
