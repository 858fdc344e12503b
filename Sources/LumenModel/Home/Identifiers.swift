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
