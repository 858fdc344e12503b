import LumenProtocol

/// Reads HTTP/1.1 requests from a connection's bytes, strictly as RFC 9112 frames them: a request line, header
/// fields, and a body whose length is given once (`Content-Length`) or by chunks (`Transfer-Encoding: chunked`).
///
/// It holds at most one request's head and body, within the limits it is made with; whatever is wrong is an
/// ``Refusal`` with the status to answer, after which the connection is closed (a client that frames a
/// request in a way lumend does not read the same way as every other party must not be able to smuggle a second
/// one behind it). Bytes past the end of a request stay for the next, so pipelined requests are read in turn.
///
/// ```swift
/// var parser = HTTPRequestParser(headBytes: 16_384, bodyBytes: { _ in 16_384 })
/// parser.append(bytes)
/// while case .request(let head, let body) = try parser.next() { … }
/// ```
package struct HTTPRequestParser {
    /// A request that cannot be read: the status to answer it with, and why, for the body.
    package struct Refusal: Error, Equatable {
        var status: Int
        var reason: String
    }

    /// A request's line and header fields, read.
    package struct Head {
        var method: String
        /// The path, percent-encoding kept, without the query.
        var path: String
        /// The query's arguments, decoded.
        var query: [String: String]
        /// The header fields, names in lower case, in order.
        var fields: [(name: String, value: String)]
        /// The host the request is for: the authority of an absolute-form target (RFC 9112 §3.2.2: it stands
        /// in for `Host`, whatever that says), else the `Host` field; `nil` with neither.
        var host: String?
        /// How the body is framed.
        var framing: Framing
        /// Whether the connection stays open after the answer (HTTP/1.1 unless `Connection: close`; HTTP/1.0
        /// never, since lumend does not speak its keep-alive).
        var keepsAlive: Bool
        /// Whether the client waits for `100 Continue` before sending its body.
        var expectsContinue: Bool

        /// The value of the first field called `name` (lower case).
        func field(_ name: String) -> String? { fields.first { $0.name == name }?.value }

        /// The request a front is given for this head and `body`, come over TLS when `isSecure`: each field by
        /// its first value, and `host` the request's own (an absolute-form target's authority when it has one,
        /// whatever the `Host` field says), which a front checks against DNS rebinding.
        package func request(body: [UInt8], isSecure: Bool) -> HTTPRequest {
            var headers: [String: String] = [:]
            for field in fields where headers[field.name] == nil { headers[field.name] = field.value }
            headers["host"] = host
            var request = HTTPRequest(method: method, path: path, headers: headers, query: query, body: body)
            request.isSecure = isSecure
            return request
        }
    }

    /// How a request's body is framed.
    enum Framing: Equatable {
        /// No body.
        case none
        /// This many bytes.
        case length(Int)
        /// Chunks, ended by one of size 0.
        case chunked
    }

    /// What the parser has after the bytes given so far.
    package enum Step {
        /// Nothing whole yet: give it more bytes.
        case needMore
        /// A head is read and its body is to come: the connection may answer `100 Continue` now.
        case head(Head)
        /// A whole request.
        case request(Head, body: [UInt8])
    }

    /// The longest head taken (request line and fields).
    let headBytes: Int
    /// The largest body taken for a path.
    let bodyBytes: (String) -> Int
    /// The most header fields taken.
    static let maxFields = 100

    private var buffer: [UInt8] = []
    /// Where unread bytes of `buffer` start.
    private var start = 0
    private var state = State.head
    /// Where the search for the end of the head being read goes on from: the bytes before hold none, so a head
    /// sent a byte at a time is searched once, not again from its start on every read.
    private var headSearched = 0
    /// Bytes looked at while searching for the ends of heads and lines (for the tests that hold it linear).
    private(set) var headBytesScanned = 0
    /// Where the search for the end of a chunk or trailer line goes on from, as ``headSearched`` for heads: a
    /// 16 KiB trailer line sent a byte at a time is searched once.
    private var lineSearched = 0

    private enum State {
        case head
        case body(Head, remaining: Int, body: [UInt8], limit: Int)
        case chunkSize(Head, body: [UInt8], limit: Int)
        case chunkData(Head, remaining: Int, body: [UInt8], limit: Int)
        case chunkEnd(Head, body: [UInt8], limit: Int)
        case trailers(Head, body: [UInt8], limit: Int, bytes: Int)
    }

    package init(headBytes: Int, bodyBytes: @escaping (String) -> Int) {
        self.headBytes = headBytes
        self.bodyBytes = bodyBytes
    }

    /// Adds bytes read from the connection.
    package mutating func append(_ bytes: some Collection<UInt8>) {
        if start > 0, start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
            headSearched = 0
            lineSearched = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Whether bytes of a request not yet whole are held: a client that stops here is in the middle of one.
    var isInRequest: Bool {
        if case .head = state { return buffer[start...].contains { $0 != 13 && $0 != 10 } }
        return true
    }

    /// Bytes held and not yet read as part of a request.
    var pendingBytes: Int { buffer.count - start }

    /// The bytes of body the request being read holds so far (what a `Content-Length` announces is not held until
    /// it comes); 0 between requests.
    var bodyBytesHeld: Int {
        switch state {
        case .head: 0
        case .body(_, _, let body, _), .chunkData(_, _, let body, _), .chunkSize(_, let body, _),
            .chunkEnd(_, let body, _), .trailers(_, let body, _, _):
            body.count
        }
    }

    /// The next step: a head once its body is to come, a whole request, or the need for more bytes.
    /// - Throws: ``Refusal`` for a request that breaks the framing rules or a limit; the parser is then unusable.
    package mutating func next() throws(Refusal) -> Step {
        while true {
            switch state {
            case .head:
                guard let head = try readHead() else { return .needMore }
                let limit = bodyBytes(head.path)
                switch head.framing {
                case .none:
                    compact()
                    return .request(head, body: [])
                case .length(let count):
                    guard count <= limit else { throw Self.tooLarge(limit) }
                    if count == 0 {
                        compact()
                        return .request(head, body: [])
                    }
                    state = .body(head, remaining: count, body: [], limit: limit)
                case .chunked:
                    state = .chunkSize(head, body: [], limit: limit)
                }
                if head.expectsContinue { return .head(head) }
            case .body(let head, let remaining, var body, let limit):
                let taken = take(upTo: remaining, into: &body)
                if taken == remaining {
                    state = .head
                    compact()
                    return .request(head, body: body)
                }
                state = .body(head, remaining: remaining - taken, body: body, limit: limit)
                return .needMore
            case .chunkSize(let head, let body, let limit):
                guard let line = try readLine(max: 1_024) else { return .needMore }
                let size = try Self.chunkSize(line)
                guard body.count + size <= limit else { throw Self.tooLarge(limit) }
                state =
                    size == 0
                    ? .trailers(head, body: body, limit: limit, bytes: 0)
                    : .chunkData(head, remaining: size, body: body, limit: limit)
            case .chunkData(let head, let remaining, var body, let limit):
                let taken = take(upTo: remaining, into: &body)
                guard taken == remaining else {
                    state = .chunkData(head, remaining: remaining - taken, body: body, limit: limit)
                    return .needMore
                }
                state = .chunkEnd(head, body: body, limit: limit)
            case .chunkEnd(let head, let body, let limit):
                guard let line = try readLine(max: 2) else { return .needMore }
                guard line.isEmpty else { throw Refusal(status: 400, reason: "a chunk's data is longer than its size") }
                state = .chunkSize(head, body: body, limit: limit)
            case .trailers(let head, let body, let limit, let bytes):
                guard let line = try readLine(max: headBytes) else { return .needMore }
                guard !line.isEmpty else {
                    state = .head
                    compact()
                    return .request(head, body: body)
                }
                // Trailer fields are read past and not used: nothing lumend answers depends on them.
                guard bytes + line.count <= headBytes else { throw Self.headTooLarge }
                state = .trailers(head, body: body, limit: limit, bytes: bytes + line.count)
            }
        }
    }

    /// Moves up to `count` of the bytes held to `body`; how many it moved.
    private mutating func take(upTo count: Int, into body: inout [UInt8]) -> Int {
        let taken = min(count, buffer.count - start)
        body += buffer[start..<start + taken]
        start += taken
        return taken
    }

    // MARK: - The head

    private static let headTooLarge = Refusal(status: 431, reason: "the request's header fields are too large")
    private static let badRequestLine = Refusal(status: 400, reason: "the request line is not METHOD TARGET HTTP/1.1")

    private static func tooLarge(_ limit: Int) -> Refusal {
        Refusal(status: 413, reason: "request body over \(limit) bytes")
    }

    /// The head, once its blank line has come; `nil` before.
    private mutating func readHead() throws(Refusal) -> Head? {
        // Empty lines before a request line are skipped (RFC 9112 §2.2): some clients send one after a body.
        while start < buffer.count, buffer[start] == 13 || buffer[start] == 10 {
            if buffer[start] == 13, start + 1 == buffer.count { return nil }
            start += buffer[start] == 13 && buffer[start + 1] == 10 ? 2 : 1
        }
        let from = max(start, headSearched)
        headBytesScanned += buffer.count - from
        guard let end = Self.endOfHead(buffer, from: from) else {
            // Its next search begins two bytes back, where an end (LF LF, or LF CR LF) cut across reads begins.
            headSearched = max(start, buffer.count - 2)
            if buffer.count - start > headBytes { throw Self.headTooLarge }
            try Self.checkMethod(buffer[start..<min(buffer.count, start + Self.maxMethodBytes + 1)])
            return nil
        }
        guard end.head - start <= headBytes else { throw Self.headTooLarge }
        let lines = Self.lines(buffer[start..<end.head])
        start = end.next
        guard let requestLine = lines.first else { throw Refusal(status: 400, reason: "no request line") }
        let (method, target, minor) = try Self.requestLine(requestLine)
        var fields: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard fields.count < Self.maxFields else { throw Self.headTooLarge }
            fields.append(try Self.field(line))
        }
        let (path, query, authority) = try Self.target(target, method: method)
        return try Self.head(
            method: method, path: path, query: query, authority: authority, minor: minor, fields: fields)
    }

    /// Where the head in `bytes` from `start` ends (before its blank line) and the next part begins.
    private static func endOfHead(_ bytes: [UInt8], from start: Int) -> (head: Int, next: Int)? {
        var index = start
        while index < bytes.count {
            if bytes[index] == 10 {
                // A line ends at LF, with or without CR before it; a blank one ends the head.
                let next = index + 1
                if next < bytes.count, bytes[next] == 10 { return (index, next + 1) }
                if next + 1 < bytes.count, bytes[next] == 13, bytes[next + 1] == 10 { return (index, next + 2) }
            }
            index += 1
        }
        return nil
    }

    /// The lines of a head, without their line ends.
    private static func lines(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        bytes.split(separator: 10, omittingEmptySubsequences: false).map { line in
            line.last == 13 ? line.dropLast() : line
        }
    }

    private static func isToken(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default: return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    /// The longest method lumend reads; the longest registered one has 17 bytes.
    static let maxMethodBytes = 24

    /// Refuses, before the head is whole, a request whose first bytes cannot begin a request line: a TLS
    /// handshake or other bytes that are not HTTP are answered at once, not when the request deadline ends.
    /// Looks at no more than the method's bytes, so a head sent a byte at a time is still read in linear time.
    private static func checkMethod(_ first: ArraySlice<UInt8>) throws(Refusal) {
        let method = first.prefix { $0 != 32 }
        guard method.allSatisfy(isToken), method.count <= maxMethodBytes else { throw badRequestLine }
    }

    private static func requestLine(_ line: ArraySlice<UInt8>) throws(Refusal) -> (String, String, Int) {
        let parts = line.split(separator: 32, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isToken), parts[0].count <= maxMethodBytes,
            !parts[1].isEmpty,
            parts[1].allSatisfy({ $0 > 32 && $0 < 127 })
        else { throw badRequestLine }
        switch Array(parts[2]) {
        case Array("HTTP/1.1".utf8), Array("HTTP/1.0".utf8):
            let minor = parts[2].last == UInt8(ascii: "1") ? 1 : 0
            return (String(decoding: parts[0], as: UTF8.self), String(decoding: parts[1], as: UTF8.self), minor)
        default:
            if parts[2].starts(with: Array("HTTP/".utf8)) {
                throw Refusal(status: 505, reason: "lumend speaks HTTP/1.1 (and 1.0)")
            }
            throw badRequestLine
        }
    }

    private static func field(_ line: ArraySlice<UInt8>) throws(Refusal) -> (name: String, value: String) {
        // A line folded onto the one before (obs-fold) or a name with space before its colon is refused
        // (RFC 9112 §5.1–5.2): readers that take them differently are how requests are smuggled.
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
            line[line.startIndex..<colon].allSatisfy(isToken)
        else { throw Refusal(status: 400, reason: "a header field is not NAME: VALUE") }
        let value = Substring(String(decoding: line[(colon + 1)...], as: UTF8.self)).trimmingSpaces
        guard value.utf8.allSatisfy({ $0 == 9 || ($0 >= 32 && $0 != 127) }) else {
            throw Refusal(status: 400, reason: "a header field's value holds a control character")
        }
        return (String(decoding: line[line.startIndex..<colon], as: UTF8.self).lowercased(), String(value))
    }

    /// The path, query and, for the absolute form, authority of a request target: origin form (`/a?b=c`),
    /// absolute form (`http://host/a`), or `*` for `OPTIONS`.
    private static func target(
        _ target: String, method: String
    ) throws(Refusal) -> (path: String, query: [String: String], authority: String?) {
        var rest = Substring(target)
        var authority: Substring?
        if rest == "*", method == "OPTIONS" { return ("*", [:], nil) }
        if let scheme = ["http://", "https://"].first(where: { rest.lowercased().hasPrefix($0) }) {
            // The absolute form (RFC 9112 §3.2.2), as a proxy would send it: its authority stands in for Host.
            rest = rest.dropFirst(scheme.count)
            let end = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
            authority = rest[..<end]
            // No host, or user information before it, is no authority to check (RFC 9110 §4.2.1, §4.2.4).
            guard let authority, !authority.isEmpty, !authority.contains("@") else {
                throw Refusal(status: 400, reason: "the request target's authority is not HOST[:PORT]")
            }
            rest = rest[end...].hasPrefix("/") ? rest[end...] : Substring("/" + rest[end...])
        }
        guard rest.hasPrefix("/") else { throw Refusal(status: 400, reason: "the request target is not a path") }
        guard let mark = rest.firstIndex(of: "?") else { return (String(rest), [:], authority.map(String.init)) }
        var query: [String: String] = [:]
        for pair in rest[rest.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = percentDecoded(parts[0])
            if query[name] == nil { query[name] = parts.count > 1 ? percentDecoded(parts[1]) : "" }
        }
        return (String(rest[..<mark]), query, authority.map(String.init))
    }

    private static func percentDecoded(_ text: Substring) -> String {
        let utf8 = Array(text.utf8)
        var bytes: [UInt8] = []
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
                let value = UInt8(String(decoding: utf8[index + 1...index + 2], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index += 3
            } else {
                bytes.append(utf8[index] == UInt8(ascii: "+") ? 32 : utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The head, with its framing worked out from its fields (RFC 9112 §6).
    private static func head(
        method: String, path: String, query: [String: String], authority: String?, minor: Int,
        fields: [(name: String, value: String)]
    ) throws(Refusal) -> Head {
        let hosts = fields.filter { $0.name == "host" }
        if minor == 1, hosts.count != 1 {
            throw Refusal(status: 400, reason: "an HTTP/1.1 request carries exactly one Host field")
        }
        let lengths = elements(of: "content-length", in: fields)
        let encodings = elements(of: "transfer-encoding", in: fields).map { $0.lowercased() }
        var framing = Framing.none
        if fields.contains(where: { $0.name == "transfer-encoding" }) {
            // A Transfer-Encoding field decides the framing even when its value is empty or odd: were it passed
            // over, Content-Length would frame a body that a reader taking the field differently frames otherwise.
            guard lengths.isEmpty else {
                throw Refusal(status: 400, reason: "a request carries Content-Length or Transfer-Encoding, not both")
            }
            guard minor == 1 else { throw Refusal(status: 400, reason: "HTTP/1.0 has no Transfer-Encoding") }
            // Without chunked once and last, the body's end cannot be known (RFC 9112 §6.1, §6.3).
            guard !encodings.contains(""), encodings.last == "chunked", encodings.filter({ $0 == "chunked" }).count == 1
            else {
                throw Refusal(
                    status: 400, reason: "Transfer-Encoding does not end in chunked, once, with no empty coding")
            }
            // A coding before chunked (gzip, …) is one lumend does not undo (RFC 9112 §6.1: 501).
            guard encodings.count == 1 else {
                throw Refusal(status: 501, reason: "the only transfer coding lumend reads is chunked")
            }
            framing = .chunked
        } else if let first = lengths.first {
            // One length, however often it is repeated; digits only (no sign, no space), and one that fits.
            guard !first.isEmpty, first.count <= 18, first.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                let length = Int(first)
            else { throw Refusal(status: 400, reason: "Content-Length is not a number of bytes") }
            guard lengths.allSatisfy({ $0 == first }) else {
                throw Refusal(status: 400, reason: "a request carries differing Content-Length values")
            }
            framing = length > 0 ? .length(length) : .none
        }
        let connection = elements(of: "connection", in: fields).map { $0.lowercased() }
        let expect = fields.first { $0.name == "expect" }?.value.lowercased()
        if let expect, expect != "100-continue" {
            throw Refusal(status: 417, reason: "the only expectation lumend meets is 100-continue")
        }
        return Head(
            method: method, path: path, query: query, fields: fields,
            host: authority ?? hosts.first?.value, framing: framing,
            keepsAlive: minor == 1 && !connection.contains("close"),
            expectsContinue: minor == 1 && expect != nil && framing != .none)
    }

    /// The elements of the comma-separated lists in every field called `name`, without the spaces around them.
    /// Empty elements are kept: in the framing fields they are a fault to refuse.
    private static func elements(of name: String, in fields: [(name: String, value: String)]) -> [Substring] {
        fields.filter { $0.name == name }.flatMap {
            $0.value.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
        }
    }

    // MARK: - Chunks

    /// A line of at most `max` bytes from the buffer, without its CRLF; `nil` before it ends.
    /// - Throws: ``Refusal`` for a line too long or ended by LF alone: in a chunked body, a reader that takes a
    ///   bare LF differently sees other chunks.
    private mutating func readLine(max: Int) throws(Refusal) -> ArraySlice<UInt8>? {
        let from = Swift.max(start, lineSearched)
        headBytesScanned += buffer.count - from
        guard let newline = buffer[from...].firstIndex(of: 10) else {
            if buffer.count - start > max + 1 { throw Refusal(status: 400, reason: "a chunk line is too long") }
            lineSearched = buffer.count
            return nil
        }
        lineSearched = 0
        guard newline > start, buffer[newline - 1] == 13 else {
            throw Refusal(status: 400, reason: "a chunk line does not end in CRLF")
        }
        let line = buffer[start..<newline - 1]
        guard line.count <= max else { throw Refusal(status: 400, reason: "a chunk line is too long") }
        start = newline + 1
        return line
    }

    /// A chunk's size, from its line (`1a`, or `1a;name=value` with extensions, which are checked and ignored).
    private static func chunkSize(_ line: ArraySlice<UInt8>) throws(Refusal) -> Int {
        let digits = line.prefix { isHexDigit($0) }
        // Fifteen hexadecimal digits at most: a size that does not fit is refused, never wrapped round.
        guard !digits.isEmpty, digits.count <= 15, let size = Int(String(decoding: digits, as: UTF8.self), radix: 16),
            isChunkExtensions(line[digits.endIndex...])
        else { throw Refusal(status: 400, reason: "a chunk size is not a hexadecimal number that fits") }
        return size
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default: false
        }
    }

    /// Whether `bytes` are chunk extensions as RFC 9112 §7.1.1 writes them: `*( BWS ";" BWS name [ BWS "=" BWS
    /// ( token / quoted-string ) ] )`.
    private static func isChunkExtensions(_ bytes: ArraySlice<UInt8>) -> Bool {
        var rest = bytes
        func skipSpaces() { rest = rest.drop { $0 == 32 || $0 == 9 } }
        func token() -> Bool {
            let name = rest.prefix(while: isToken)
            rest = rest[name.endIndex...]
            return !name.isEmpty
        }
        while true {
            skipSpaces()
            guard let first = rest.first else { return true }
            guard first == UInt8(ascii: ";") else { return false }
            rest = rest.dropFirst()
            skipSpaces()
            guard token() else { return false }
            skipSpaces()
            guard rest.first == UInt8(ascii: "=") else { continue }
            rest = rest.dropFirst()
            skipSpaces()
            guard rest.first == UInt8(ascii: "\"") else {
                guard token() else { return false }
                continue
            }
            // A quoted string: text and escaped pairs up to its closing quote.
            rest = rest.dropFirst()
            while let byte = rest.first, byte != UInt8(ascii: "\"") {
                if byte == UInt8(ascii: "\\") { rest = rest.dropFirst() }
                guard let text = rest.first, text == 9 || (text >= 32 && text != 127) else { return false }
                rest = rest.dropFirst()
            }
            guard rest.first == UInt8(ascii: "\"") else { return false }
            rest = rest.dropFirst()
        }
    }

    /// Drops what has been read, once it is most of the buffer.
    private mutating func compact() {
        if start > 4_096 || start == buffer.count {
            buffer.removeFirst(start)
            headSearched = max(0, headSearched - start)
            lineSearched = max(0, lineSearched - start)
            start = 0
        }
    }
}

extension Substring {
    /// Without spaces and tabs at either end.
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
