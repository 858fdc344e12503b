import LumenModel
import LumenProtocol

/// A type a connection can carry: it knows its JSON form and how to read itself from JSON.
public protocol ScopeValue: Sendable {
    /// The type's name in `describe` ("bool", "string", "number", …).
    static var typeDescription: String { get }
    /// The value as JSON.
    var jsonValue: JSONValue { get }
    /// Reads a value; throws with the JSON path when the JSON has the wrong type or range.
    init(json: JSONCursor) throws(JSONShapeError)
}

extension Bool: ScopeValue {
    public static var typeDescription: String { "bool" }
    public var jsonValue: JSONValue { .bool(self) }
    public init(json: JSONCursor) throws(JSONShapeError) { self = try json.bool() }
}

extension String: ScopeValue {
    public static var typeDescription: String { "string" }
    public var jsonValue: JSONValue { .string(self) }
    public init(json: JSONCursor) throws(JSONShapeError) { self = try json.string() }
}

extension Double: ScopeValue {
    public static var typeDescription: String { "number" }
    public var jsonValue: JSONValue { .double(self) }
    public init(json: JSONCursor) throws(JSONShapeError) { self = try json.double() }
}

extension Int: ScopeValue {
    public static var typeDescription: String { "integer" }
    public var jsonValue: JSONValue { .int(self) }
    public init(json: JSONCursor) throws(JSONShapeError) { self = try json.int() }
}

extension CIEColor: ScopeValue {
    public static var typeDescription: String { "{x: number, y: number}" }
    public init(json: JSONCursor) throws(JSONShapeError) { try self.init(cursor: json) }
}

extension JSONValue: ScopeValue {
    public static var typeDescription: String { "object" }
    public var jsonValue: JSONValue { self }
    public init(json: JSONCursor) throws(JSONShapeError) { self = json.value }
}

extension Array: ScopeValue where Element: ScopeValue {
    public static var typeDescription: String { "[\(Element.typeDescription)]" }
    public var jsonValue: JSONValue { .array(map(\.jsonValue)) }
    public init(json: JSONCursor) throws(JSONShapeError) {
        self = try json.array().map { element throws(JSONShapeError) in try Element(json: element) }
    }
}
