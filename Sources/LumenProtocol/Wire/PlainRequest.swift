/// A request in the plain shape nearly every request on the wire has, read straight from its line without
/// building a tree: `{"jsonrpc":"2.0","id":…,"method":"…","params":{"scope":…,"connection":"…",…}}`, its
/// members in any order.
///
/// Only what is certainly read as ``JSONParser`` reads it is taken: an `id` that is a number or a plain string,
/// a plain `method`, and `params` holding a numeric `scope`, a plain `connection` and, optionally, a `value`
/// (a Boolean, a number or a plain string) and a numeric `transitionMs`. A plain string is printable ASCII with
/// no escape, so it is written back byte for byte as it came. Any other line (another member, an escape, a
/// nested value, a repeated key, a notification, a batch) is not read here (`nil`) and goes the general way.
///
/// ```swift
/// let request = PlainRequest(line: Array(#"{"jsonrpc":"2.0","id":7,"method":"get","params":{"scope":0,"connection":"name"}}"#.utf8))
/// request?.connection  // "name"
/// ```
package struct PlainRequest: Sendable, Equatable {
    /// The request's `id`: a number (as written) or a string.
    package var id: JSONValue
    /// The method's name.
    package var method: String
    /// `params.scope`, as written (it may not be an integer: the reader of the request checks that).
    package var scope: JSONNumber
    /// `params.connection`.
    package var connection: String
    /// `params.value`, when there is one.
    package var value: JSONValue?
    /// `params.transitionMs`, when there is one.
    package var transitionMs: JSONNumber?

    /// Reads `line` when it is a request of the plain shape; `nil` otherwise.
    package init?(line: [UInt8]) {
        guard
            let request = line.withUnsafeBufferPointer({ bytes in
                var reader = Reader(bytes: bytes)
                return reader.request()
            })
        else { return nil }
        self = request
    }

    /// The request's `params`, as ``JSONParser`` would read them (the members in this order).
    package var params: JSONValue {
        var params: JSONObject = ["scope": .number(scope), "connection": .string(connection)]
        if let value { params["value"] = value }
        if let transitionMs { params["transitionMs"] = .number(transitionMs) }
        return .object(params)
    }

    /// Whether `document` (a line as ``JSONParser`` reads it) is this request: the same members with the same
    /// values, in whatever order. A line this type reads always matches its own parse.
    package func matches(_ document: JSONValue) -> Bool {
        let request: JSONObject = ["jsonrpc": "2.0", "id": id, "method": .string(method), "params": params]
        return Self.sameMembers(.object(request), document)
    }

    private static func sameMembers(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        guard case .object(let left) = lhs, case .object(let right) = rhs else { return lhs == rhs }
        func contained(_ some: JSONObject, in other: JSONObject) -> Bool {
            some.allSatisfy { member in other[member.key].map { sameMembers(member.value, $0) } ?? false }
        }
        return left.count == right.count && contained(left, in: right) && contained(right, in: left)
    }

    init(
        id: JSONValue, method: String, scope: JSONNumber, connection: String, value: JSONValue?,
        transitionMs: JSONNumber?
    ) {
        self.id = id
        self.method = method
        self.scope = scope
        self.connection = connection
        self.value = value
        self.transitionMs = transitionMs
    }
}

/// One pass over a line's bytes; every method returns `nil` or `false` at the first byte the plain shape does
/// not allow.
private struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func request() -> PlainRequest? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var version = false
        var id: JSONValue?
        var method: String?
        var params: Params?
        repeat {
            guard let key = plainString(), take(UInt8(ascii: ":")) else { return nil }
            if Self.matches(key, "jsonrpc") {
                guard !version, let value = plainString(), Self.matches(value, "2.0") else { return nil }
                version = true
            } else if Self.matches(key, "id") {
                guard id == nil, let value = scalar(), value.isNumber || value.isString else { return nil }
                id = value
            } else if Self.matches(key, "method") {
                guard method == nil, let value = plainString() else { return nil }
                method = Self.string(value)
            } else if Self.matches(key, "params") {
                guard params == nil, let value = paramsObject() else { return nil }
                params = value
            } else {
                return nil
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")), atEnd(), version, let id, let method, let params,
            let scope = params.scope, let connection = params.connection
        else { return nil }
        return PlainRequest(
            id: id, method: method, scope: scope, connection: connection, value: params.value,
            transitionMs: params.transitionMs)
    }

    private struct Params {
        var scope: JSONNumber?
        var connection: String?
        var value: JSONValue?
        var transitionMs: JSONNumber?
    }

    private mutating func paramsObject() -> Params? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var params = Params()
        repeat {
            guard let key = plainString(), take(UInt8(ascii: ":")) else { return nil }
            if Self.matches(key, "scope") {
                guard params.scope == nil, let value = number() else { return nil }
                params.scope = value
            } else if Self.matches(key, "connection") {
                guard params.connection == nil, let value = plainString() else { return nil }
                params.connection = Self.string(value)
            } else if Self.matches(key, "value") {
                guard params.value == nil, let value = scalar() else { return nil }
                params.value = value
            } else if Self.matches(key, "transitionMs") {
                guard params.transitionMs == nil, let value = number() else { return nil }
                params.transitionMs = value
            } else {
                return nil
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")) else { return nil }
        return params
    }

    /// A Boolean, a number or a plain string.
    private mutating func scalar() -> JSONValue? {
        skipSpace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "\""): return plainString().map { .string(Self.string($0)) }
        case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
        default: return number().map(JSONValue.number)
        }
    }

    private mutating func number() -> JSONNumber? {
        skipSpace()
        guard let number = JSONNumber.read(bytes, at: &index) else { return nil }
        // What follows a number ends it; JSON's grammar would read `1x` as an error, not as `1`.
        guard index == bytes.count || !Self.continuesToken(bytes[index]) else { return nil }
        return number
    }

    /// The bytes between the quotes of a plain string.
    private mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return UnsafeBufferPointer(rebasing: bytes[start..<index])
            }
            guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
            index += 1
        }
        return nil
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count,
            Self.matches(UnsafeBufferPointer(rebasing: bytes[index..<index + count]), word)
        else { return false }
        index += count
        return index == bytes.count || !Self.continuesToken(bytes[index])
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func atEnd() -> Bool {
        skipSpace()
        return index == bytes.count
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Whether `byte` could carry on a number or a literal (so that the token read so far is not the whole of
    /// it).
    private static func continuesToken(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"): false
        default: true
        }
    }

    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        guard bytes.count == word.utf8CodeUnitCount else { return false }
        let expected = word.utf8Start
        for offset in 0..<bytes.count where bytes[offset] != expected[offset] { return false }
        return true
    }

    /// A plain string's bytes as a `String` (ASCII, so no check is needed).
    private static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}

extension JSONValue {
    fileprivate var isNumber: Bool { if case .number = self { true } else { false } }
    fileprivate var isString: Bool { if case .string = self { true } else { false } }
}
