/// A JSON document held as a value: what the wire protocol, fixtures and snapshots are made of.
///
/// Lumen parses and writes JSON itself (see ``JSONParser`` and ``JSONValue/serialized()``) rather than through
/// `JSONDecoder`, because it needs three things Foundation does not give: a nesting-depth limit that a hostile
/// client cannot get past, errors that carry a JSON path, and object keys kept in the order they were written,
/// so that output is byte-for-byte reproducible.
///
/// ```swift
/// let value = try JSONParser.parse(#"{"jsonrpc":"2.0","id":1,"method":"hello"}"#)
/// value["method"]?.stringValue  // "hello"
/// ```
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

/// A JSON number kept as the text it was written with, so that an `id` such as `1.50` or
/// `12345678901234567890` is echoed exactly as the client sent it.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The number as JSON text.
    public let text: String

    /// Wraps JSON number text that has already been checked (``read(_:at:)``).
    init(validatedText: String) { self.text = validatedText }

    /// A number for an integer.
    public init(_ value: Int) { self.text = String(value) }

    /// A number for an unsigned integer (a seed may use all 64 bits).
    public init(_ value: UInt64) { self.text = String(value) }

    /// A number for a floating-point value; integral values are written without a fraction.
    /// NaN and infinities have no JSON form and are written as `0`.
    public init(_ value: Double) {
        if !value.isFinite {
            self.text = "0"
        } else if value == value.rounded(), abs(value) < 1e15 {
            self.text = String(Int64(value))
        } else {
            self.text = String(value)
        }
    }

    /// The value as a `Double`.
    public var doubleValue: Double { Double(text) ?? .nan }

    /// The value as an `Int`, when it is integral and fits.
    public var intValue: Int? {
        if let exact = Int(text) { return exact }
        let double = doubleValue
        guard double.isFinite, double == double.rounded(), abs(double) < 9.0e15 else { return nil }
        return Int(double)
    }

    public var description: String { text }
}

/// A JSON object whose keys keep the order they were written in.
///
/// Lookups scan the members: protocol messages and fixture entries have a handful of keys, where a scan beats
/// hashing. When a key appears twice, the last one wins, as in most JSON readers.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The members, in order.
    public private(set) var members: [(key: String, value: JSONValue)]

    /// An empty object.
    public init() { members = [] }

    /// An object from members in order.
    public init(_ members: [(key: String, value: JSONValue)]) { self.members = members }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        members = elements.map { (key: $0.0, value: $0.1) }
    }

    /// The value for `key`, or `nil`; setting `nil` removes the key.
    public subscript(key: String) -> JSONValue? {
        get {
            for member in members.reversed() where member.key == key { return member.value }
            return nil
        }
        set {
            if let index = members.lastIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append((key: key, value: newValue))
            }
        }
    }

    /// The keys, in order.
    public var keys: [String] { members.map(\.key) }

    /// How many members have the key `key`: more than one only in a text that gave it twice.
    public func count(of key: String) -> Int { members.reduce(0) { $0 + ($1.key == key ? 1 : 0) } }

    /// The number of members.
    public var count: Int { members.count }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> { members.makeIterator() }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for member in members {
            hasher.combine(member.key)
            hasher.combine(member.value)
        }
    }
}

extension JSONValue {
    /// The string, if this is a string.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// The Boolean, if this is a Boolean.
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    /// The number as a `Double`, if this is a number.
    public var doubleValue: Double? { if case .number(let n) = self { n.doubleValue } else { nil } }
    /// The number as an `Int`, if this is an integral number.
    public var intValue: Int? { if case .number(let n) = self { n.intValue } else { nil } }
    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    /// The members, if this is an object.
    public var objectValue: JSONObject? { if case .object(let o) = self { o } else { nil } }
    /// Whether this is `null`.
    public var isNull: Bool { if case .null = self { true } else { false } }

    /// The member `key` when this is an object.
    public subscript(key: String) -> JSONValue? { objectValue?[key] }

    /// This value without the member or element at `steps` below it, or `nil` when there is none there.
    public func removing(_ steps: some Collection<JSONPath.Step>) -> JSONValue? {
        guard let step = steps.first else { return nil }
        let rest = steps.dropFirst()
        switch (self, step) {
        case (.object(var object), .key(let key)):
            guard let member = object[key] else { return nil }
            if rest.isEmpty {
                object[key] = nil
            } else {
                guard let trimmed = member.removing(rest) else { return nil }
                object[key] = trimmed
            }
            return .object(object)
        case (.array(var elements), .index(let index)) where elements.indices.contains(index):
            if rest.isEmpty {
                elements.remove(at: index)
            } else {
                guard let trimmed = elements[index].removing(rest) else { return nil }
                elements[index] = trimmed
            }
            return .array(elements)
        default:
            return nil
        }
    }

    /// This value with the one at `steps` (below it) set to `value`: an object's member is added when
    /// absent. `nil` when the path does not lead there.
    public func setting(_ steps: some Collection<JSONPath.Step>, to value: JSONValue) -> JSONValue? {
        guard let step = steps.first else { return value }
        let rest = steps.dropFirst()
        switch (self, step) {
        case (.object(var object), .key(let key)):
            if rest.isEmpty {
                object[key] = value
            } else {
                guard let set = object[key]?.setting(rest, to: value) else { return nil }
                object[key] = set
            }
            return .object(object)
        case (.array(var elements), .index(let index)) where elements.indices.contains(index):
            guard let set = elements[index].setting(rest, to: value) else { return nil }
            elements[index] = set
            return .array(elements)
        default:
            return nil
        }
    }

    /// A number value.
    public static func int(_ value: Int) -> JSONValue { .number(JSONNumber(value)) }
    /// A number value.
    public static func double(_ value: Double) -> JSONValue { .number(JSONNumber(value)) }

    /// The name of this value's JSON type, for error messages ("expected a string, got an array").
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a Boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByNilLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral
{
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { (key: $0.0, value: $0.1) }))
    }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
}
