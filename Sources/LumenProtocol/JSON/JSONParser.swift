/// A line and column in a text (both from 1), for messages.
public struct TextPosition: Sendable, Hashable, CustomStringConvertible {
    /// The line.
    public var line: Int
    /// The column, in bytes.
    public var column: Int

    /// The position of byte `offset` in `bytes`.
    public init(offset: Int, in bytes: [UInt8]) {
        var line = 1
        var lineStart = 0
        for index in 0..<min(offset, bytes.count) where bytes[index] == 0x0A {
            line += 1
            lineStart = index + 1
        }
        self.line = line
        column = offset - lineStart + 1
    }

    public var description: String { "\(line):\(column)" }
}

/// Why a JSON text could not be parsed.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for people.
    public let message: String
    /// The byte offset where it went wrong.
    public let offset: Int
    /// Whether the text nests deeper than the parser's limit (a limit error rather than bad JSON).
    public let isDepthLimit: Bool

    public var description: String { "\(message) at byte \(offset)" }

    /// The same error, for a text that was parsed as a part of a longer one starting `bytes` into it.
    public func shifted(by bytes: Int) -> JSONParseError {
        JSONParseError(message: message, offset: offset + bytes, isDepthLimit: isDepthLimit)
    }
}

/// A strict RFC 8259 JSON parser over UTF-8 bytes, with a nesting-depth limit.
///
/// It validates UTF-8, rejects control characters in strings, NaN, leading zeros and trailing garbage, and
/// never recurses deeper than `maxDepth`, so a line of ten thousand `[` is a clean error, not a stack overflow.
///
/// ```swift
/// let value = try JSONParser.parse(Array(#"[1, "two", {"three": 3}]"#.utf8))
/// ```
public struct JSONParser {
    /// The default nesting limit: deep enough for any real message, shallow enough to be safe.
    public static let defaultMaxDepth = 64

    /// Parses one JSON text from `bytes`.
    /// - Throws: ``JSONParseError`` when the text is not exactly one valid JSON value.
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = defaultMaxDepth) throws(JSONParseError)
        -> JSONValue
    {
        let array = bytes as? [UInt8] ?? Array(bytes)
        return try array.withUnsafeBufferPointer { buffer throws(JSONParseError) -> JSONValue in
            var parser = Parser(bytes: buffer, maxDepth: maxDepth)
            return try parser.parseDocument()
        }
    }

    /// One step of the pattern that picks the arrays ``parse(_:maxDepth:streamingArraysAt:element:)`` streams.
    public enum PatternStep: Sendable, Equatable {
        /// The member with this key.
        case key(String)
        /// Any element of an array.
        case anyIndex
    }

    /// Parses one JSON text, handing each element of the arrays found at `pattern` to `element` as soon as it
    /// is complete instead of keeping it: those arrays are empty in the tree returned. A document much larger
    /// than any one of its elements (a snapshot's lights) is then never held as one tree.
    ///
    /// `element` is given the array indexes along the path (for `rooms[2].lights[7]`, `[2, 7]`) and the value.
    public static func parse(
        _ bytes: [UInt8], maxDepth: Int = defaultMaxDepth, streamingArraysAt pattern: [PatternStep],
        element: ([Int], JSONValue) -> Void
    ) throws(JSONParseError) -> JSONValue {
        try withoutActuallyEscaping(element) { element throws(JSONParseError) -> JSONValue in
            try bytes.withUnsafeBufferPointer { buffer throws(JSONParseError) -> JSONValue in
                var parser = Parser(bytes: buffer, maxDepth: maxDepth)
                parser.stream = Parser.Stream(pattern: pattern, element: element)
                return try parser.parseDocument()
            }
        }
    }

    /// Parses one JSON text as ``parse(_:maxDepth:streamingArraysAt:element:)`` does, but hands `element` the
    /// bytes of each element found at `pattern` (their range in `bytes`) without parsing them: only where
    /// each ends is found, and what the bytes hold is for `element` to check, which may throw to stop the
    /// parse. For a reader faster than a tree on elements of a shape it knows.
    public static func parse<Failure: Error>(
        _ bytes: [UInt8], maxDepth: Int = defaultMaxDepth, streamingRawArraysAt pattern: [PatternStep],
        element: ([Int], Range<Int>) throws(Failure) -> Void
    ) throws(RawStreamError<Failure>) -> JSONValue {
        var failure: Failure?
        let value: JSONValue
        do {
            value = try withoutActuallyEscaping(
                { (indexes: [Int], range: Range<Int>) -> Bool in
                    do throws(Failure) { try element(indexes, range) } catch {
                        failure = error
                        return false
                    }
                    return true
                }
            ) { element throws(JSONParseError) -> JSONValue in
                try bytes.withUnsafeBufferPointer { buffer throws(JSONParseError) -> JSONValue in
                    var parser = Parser(bytes: buffer, maxDepth: maxDepth)
                    parser.stream = Parser.Stream(pattern: pattern, element: { _, _ in })
                    parser.rawElement = element
                    return try parser.parseDocument()
                }
            }
        } catch {
            if let failure { throw .element(failure) }
            throw .syntax(error)
        }
        if let failure { throw .element(failure) }
        return value
    }

    /// Why a raw streaming parse stopped: the text, or what an element's reader threw.
    public enum RawStreamError<Failure: Error>: Error {
        case syntax(JSONParseError)
        case element(Failure)
    }

    /// Where in `bytes` the value at `path` begins, as a byte offset; `nil` when there is no such value (or
    /// the text is not JSON). For messages that point people at a line and column. Of a key given twice, the
    /// last: the one a reader takes, and where the key is given again.
    public static func offset(of path: JSONPath, in bytes: [UInt8]) -> Int? {
        let target = path.steps.map { step -> Parser.Stream.Step in
            switch step {
            case .key(let key): .key(key)
            case .index(let index): .index(index)
            }
        }
        return bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(bytes: buffer, maxDepth: defaultMaxDepth)
            parser.stream = Parser.Stream(pattern: [], element: { _, _ in })
            parser.locate = target
            _ = try? parser.parseDocument()
            return parser.located
        }
    }

    /// Parses one JSON text from a string.
    public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }
}

private struct Parser {
    /// Arrays whose elements go to a closure rather than into the tree, and where the parser is.
    struct Stream {
        let pattern: [JSONParser.PatternStep]
        let element: ([Int], JSONValue) -> Void
        /// The path to the value being parsed: a key, or an array index.
        var path: [Step] = []

        enum Step: Equatable {
            case key(String)
            case index(Int)
        }

        var isAtPattern: Bool {
            guard path.count == pattern.count else { return false }
            for (step, wanted) in zip(path, pattern) {
                switch (step, wanted) {
                case (.key(let key), .key(let wantedKey)) where key == wantedKey: continue
                case (.index, .anyIndex): continue
                default: return false
                }
            }
            return true
        }

        var indexes: [Int] { path.compactMap { if case .index(let index) = $0 { index } else { nil } } }
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var index = 0
    var depth = 0
    var stream: Stream?
    /// In a raw streaming parse, what is handed each streamed element's range; `false` stops the parse.
    var rawElement: (([Int], Range<Int>) -> Bool)?
    /// A path whose value's offset is wanted (``JSONParser/offset(of:in:)``), and the offset of its last value.
    var locate: [Stream.Step]?
    var located: Int?

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    func fail(_ message: String, depthLimit: Bool = false) -> JSONParseError {
        JSONParseError(message: message, offset: index, isDepthLimit: depthLimit)
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected text after the JSON value") }
        return value
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw fail("unexpected end of input") }
        if let locate, stream?.path == locate { located = index }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw fail("unexpected character")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw fail("unexpected end of input") }
        let start = literal.utf8Start
        for offset in 0..<count where bytes[index + offset] != start[offset] {
            throw fail("invalid literal")
        }
        index += count
    }

    mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > maxDepth { throw fail("nesting deeper than \(maxDepth) levels", depthLimit: true) }
    }

    mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        members.reserveCapacity(8)  // Most objects have a few members: one allocation, not one per doubling.
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(JSONObject(members))
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw fail("expected a string key")
            }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            stream?.path.append(.key(key))
            let value = try parseValue()
            stream?.path.removeLast()
            members.append((key: key, value: value))
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return .object(JSONObject(members))
            } else {
                throw fail("expected ',' or '}'")
            }
        }
    }

    mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        var elements: [JSONValue] = []
        var streamedCount = 0
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        let streamed = stream?.isAtPattern == true
        while true {
            skipWhitespace()
            if stream != nil {
                stream!.path.append(.index(elements.count + streamedCount))
                if streamed, let rawElement {
                    let start = index
                    try skipValue()
                    guard rawElement(stream!.indexes, start..<index) else { throw fail("stopped by the reader") }
                    streamedCount += 1
                } else {
                    let value = try parseValue()
                    if streamed {
                        stream!.element(stream!.indexes, value)
                        streamedCount += 1
                    } else {
                        elements.append(value)
                    }
                }
                stream!.path.removeLast()
            } else {
                elements.append(try parseValue())
            }
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return .array(elements)
            } else {
                throw fail("expected ',' or ']'")
            }
        }
    }

    mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        let start = index
        var ascii = true
        // Fast path: no escapes, so the bytes between the quotes are the string.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                // ASCII (names, IDs, methods: nearly every string) is valid UTF-8 as it stands.
                if ascii { return String(decoding: slice, as: UTF8.self) }
                guard let string = String(validating: slice, as: UTF8.self) else {
                    index -= 1
                    throw fail("invalid UTF-8 in string")
                }
                return string
            }
            if byte >= 0x80 { ascii = false }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw fail("control character in string") }
            index += 1
        }
        var scalars: [UInt8] = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let string = String(validating: scalars, as: UTF8.self) else {
                    throw fail("invalid UTF-8 in string")
                }
                return string
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw fail("unexpected end of input") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append(0x22)
                case UInt8(ascii: "\\"): scalars.append(0x5C)
                case UInt8(ascii: "/"): scalars.append(0x2F)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try parseHex4()
                    if (0xD800...0xDBFF).contains(code) {
                        // A high surrogate must be followed by an escaped low surrogate.
                        guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { throw fail("unpaired surrogate in string") }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate in string") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(code) {
                        throw fail("unpaired surrogate in string")
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw fail("invalid escape") }
                    scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw fail("invalid escape")
                }
            default:
                if byte < 0x20 { throw fail("control character in string") }
                scalars.append(byte)
                index += 1
            }
        }
        throw fail("unterminated string")
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw fail("unexpected end of input") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw fail("invalid \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = index
        do throws(JSONNumber.GrammarProblem) {
            index = try JSONNumber.end(ofNumberIn: bytes, from: start)
        } catch {
            index = error.offset
            throw fail(error.isLeadingZero ? "leading zero in number" : "invalid number")
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        return JSONNumber(validatedText: text)
    }

    /// Moves past one value without making it: strings (their escapes too) and brackets are followed, and
    /// nothing else is checked (a raw element's reader checks it).
    mutating func skipValue() throws(JSONParseError) {
        var nesting = 0
        repeat {
            guard index < bytes.count else { throw fail("unexpected end of input") }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard index < bytes.count else { throw fail("unterminated string") }
                index += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                nesting += 1
                if depth + nesting > maxDepth { throw fail("nesting deeper than \(maxDepth) levels", depthLimit: true) }
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard nesting > 0 else { return }
                nesting -= 1
                index += 1
            case UInt8(ascii: ","):
                guard nesting > 0 else { return }
                index += 1
            default:
                index += 1
            }
        } while nesting > 0 || (index < bytes.count && !Self.endsScalar(bytes[index]))
    }

    /// Whether `byte` ends a number or literal being skipped.
    static func endsScalar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 0x20, 0x09, 0x0A, 0x0D: true
        default: false
        }
    }
}
