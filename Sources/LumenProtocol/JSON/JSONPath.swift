/// Where a value sits in a JSON document, written as `rooms[2].lights[0].brightness`.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    private var text: String

    /// One step of a path.
    public enum Step: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    /// The steps, read back from the text (keys hold no `.` or `[`, as every key Lumen reads).
    public var steps: [Step] {
        var steps: [Step] = []
        for part in text.split(separator: ".") {
            var rest = Substring(part)
            if let bracket = rest.firstIndex(of: "[") {
                if bracket > rest.startIndex { steps.append(.key(String(rest[..<bracket]))) }
                rest = rest[bracket...]
                while rest.first == "[", let close = rest.firstIndex(of: "]") {
                    if let index = Int(rest[rest.index(after: rest.startIndex)..<close]) { steps.append(.index(index)) }
                    rest = rest[rest.index(after: close)...]
                }
            } else if !rest.isEmpty {
                steps.append(.key(String(rest)))
            }
        }
        return steps
    }

    /// The document's root.
    public static let root = JSONPath(text: "")

    private init(text: String) { self.text = text }

    /// The path of member `key` below this one.
    public func appending(_ key: String) -> JSONPath {
        JSONPath(text: text.isEmpty ? key : "\(text).\(key)")
    }

    /// The path of element `index` below this one.
    public func appending(_ index: Int) -> JSONPath { JSONPath(text: "\(text)[\(index)]") }

    /// The path of the value this one is in; `nil` at the root.
    public var parent: JSONPath? {
        let steps = steps
        guard !steps.isEmpty else { return nil }
        return steps.dropLast().reduce(JSONPath.root) { path, step in
            switch step {
            case .key(let key): path.appending(key)
            case .index(let index): path.appending(index)
            }
        }
    }

    public var description: String { text.isEmpty ? "(root)" : text }
}

/// A value in a JSON document that does not have the shape Lumen expects.
///
/// Its description names the path and says what is wrong, for example
/// `rooms[2].lights[0].brightness: 140 is out of range 1–100`.
public struct JSONShapeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the bad value is.
    public let path: JSONPath
    /// What is wrong with it.
    public let message: String
    /// A value that would pass at `path`, for reading on to find the problems after this one (a value of the
    /// type expected, a number brought into range, the most permissive choice), or `nil` when the member is
    /// best taken out.
    public let standIn: JSONValue?

    /// An error at `path`.
    public init(_ path: JSONPath, _ message: String, standIn: JSONValue? = nil) {
        self.path = path
        self.message = message
        self.standIn = standIn
    }

    public var description: String { "\(path): \(message)" }
}

/// A JSON value with the path it was found at: the reading side of fixtures, snapshots and RPC parameters.
///
/// Every accessor throws a ``JSONShapeError`` naming the path, so a decoder written with it reports exactly
/// where a document is wrong without any extra bookkeeping.
public struct JSONCursor: Sendable {
    /// The last step of a cursor's path, kept as it is until the path is needed (for an error, or a cursor
    /// below): decoding a large document builds no path text for the values that are fine.
    private enum Step: Sendable {
        case here
        case key(String)
        case index(Int)
    }

    /// The value here.
    public let value: JSONValue
    private let base: JSONPath
    private let step: Step

    /// Where it is.
    public var path: JSONPath {
        switch step {
        case .here: base
        case .key(let key): base.appending(key)
        case .index(let index): base.appending(index)
        }
    }

    /// A cursor at the root of `value`.
    public init(_ value: JSONValue, path: JSONPath = .root) {
        self.value = value
        base = path
        step = .here
    }

    /// The cursor of member `key` of an object at `parent`.
    init(_ value: JSONValue, parent: JSONPath, key: String) {
        self.value = value
        base = parent
        step = .key(key)
    }

    /// The cursor of element `index` of an array at `parent`.
    init(_ value: JSONValue, parent: JSONPath, index: Int) {
        self.value = value
        base = parent
        step = .index(index)
    }

    /// Fails with a message about this value.
    public func error(_ message: String, standIn: JSONValue? = nil) -> JSONShapeError {
        JSONShapeError(path, message, standIn: standIn)
    }

    /// This value as an object whose keys are all in `allowed`, each given once.
    /// - Throws: when it is not an object, has a key not in `allowed` (typos must not pass silently), or has a
    ///   key twice (which of its values is meant is anyone's guess).
    public func object(allowing allowed: Set<String>) throws(JSONShapeError) -> ObjectCursor {
        guard case .object(let object) = value else {
            throw error("expected an object, got \(value.typeName)", standIn: .object([:]))
        }
        // The members themselves, not `keys`: no array is made for an object that is fine.
        let members = object.members
        for index in members.indices {
            let key = members[index].key
            guard allowed.contains(key) else {
                let known = allowed.sorted().joined(separator: ", ")
                throw JSONShapeError(path.appending(key), "unknown key; expected one of: \(known)")
            }
            // The keys before this one are allowed and differ, so there are no more of them than `allowed`
            // holds: however many members a hostile object has, this looks at a few before it throws.
            if members[..<index].contains(where: { $0.key == key }) {
                throw JSONShapeError(path.appending(key), "key given more than once; give each key once")
            }
        }
        return ObjectCursor(object: object, path: path)
    }

    /// This value as an array of cursors.
    public func array() throws(JSONShapeError) -> [JSONCursor] {
        guard case .array(let elements) = value else {
            throw error("expected an array, got \(value.typeName)", standIn: .array([]))
        }
        let here = path
        return elements.enumerated().map { JSONCursor($1, parent: here, index: $0) }
    }

    /// This value as a string.
    public func string() throws(JSONShapeError) -> String {
        guard case .string(let string) = value else {
            throw error("expected a string, got \(value.typeName)", standIn: .string("x"))
        }
        return string
    }

    /// This value as a Boolean.
    public func bool() throws(JSONShapeError) -> Bool {
        guard case .bool(let bool) = value else {
            throw error("expected true or false, got \(value.typeName)", standIn: .bool(false))
        }
        return bool
    }

    /// This value as a number within `range`.
    public func double(in range: ClosedRange<Double>? = nil) throws(JSONShapeError) -> Double {
        let fallback = JSONValue.double(range?.lowerBound ?? 0)
        guard case .number(let number) = value else {
            throw error("expected a number, got \(value.typeName)", standIn: fallback)
        }
        let double = number.doubleValue
        guard double.isFinite else { throw error("\(number) is not a finite number", standIn: fallback) }
        if let range, !range.contains(double) {
            throw error(
                "\(number) is out of range \(Self.format(range.lowerBound))–\(Self.format(range.upperBound))",
                standIn: .double(min(max(double, range.lowerBound), range.upperBound)))
        }
        return double
    }

    /// This value as an integer within `range`.
    public func int(in range: ClosedRange<Int>? = nil) throws(JSONShapeError) -> Int {
        let fallback = JSONValue.int(range?.lowerBound ?? 0)
        guard case .number(let number) = value else {
            throw error("expected an integer, got \(value.typeName)", standIn: fallback)
        }
        guard let int = number.intValue else { throw error("\(number) is not an integer", standIn: fallback) }
        if let range, !range.contains(int) {
            throw error(
                "\(number) is out of range \(range.lowerBound)–\(range.upperBound)",
                standIn: .int(min(max(int, range.lowerBound), range.upperBound)))
        }
        return int
    }

    /// This value as one of the raw values of `T`.
    /// - Parameter standIn: the choice to read on with when the value is none of them (the one that lets the
    ///   most through is best); the first by default.
    public func enumeration<T: RawRepresentable & CaseIterable>(_ type: T.Type, standIn: T? = nil)
        throws(JSONShapeError) -> T
    where T.RawValue == String {
        let fallback = (standIn ?? T.allCases.first).map { JSONValue.string($0.rawValue) }
        guard case .string(let raw) = value else {
            throw error("expected a string, got \(value.typeName)", standIn: fallback)
        }
        guard let result = T(rawValue: raw) else {
            let choices = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw error("'\(raw)' is not one of: \(choices)", standIn: fallback)
        }
        return result
    }

    /// A number as people read it in a message: `140`, not `140.0`.
    public static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// An object found at a path, with typed access to its members.
public struct ObjectCursor: Sendable {
    /// The object.
    public let object: JSONObject
    /// Where it is.
    public let path: JSONPath

    /// A cursor over `object` found at `path`.
    public init(object: JSONObject, path: JSONPath) {
        self.object = object
        self.path = path
    }

    /// The member `key`, or `nil` when it is absent or `null`.
    public func optional(_ key: String) -> JSONCursor? {
        guard let value = object[key], !value.isNull else { return nil }
        return JSONCursor(value, parent: path, key: key)
    }

    /// The member `key` as it is, `null` when absent: its path is worked out only if an error needs it.
    public func member(_ key: String) -> JSONCursor {
        JSONCursor(object[key] ?? .null, parent: path, key: key)
    }

    /// The member `key`.
    /// - Parameter standIn: a value to read on with when it is absent (see ``JSONShapeError/standIn``).
    /// - Throws: when it is absent.
    public func required(_ key: String, standIn: JSONValue? = nil) throws(JSONShapeError) -> JSONCursor {
        guard let cursor = optional(key) else {
            throw JSONShapeError(path.appending(key), "is required", standIn: standIn)
        }
        return cursor
    }
}
