import LumenModel

/// A service announced over multicast DNS (RFC 6762) with DNS-SD's records (RFC 6763): a pointer from its type
/// to its instance, the instance's host and port (`SRV`) and its properties (`TXT`), and the host's address.
///
/// ```swift
/// let bridge = MDNSService(
///     instance: "Hue Bridge - E7BBC2", type: "_hue._tcp", host: "001788fffee7bbc2",
///     address: IPv4Address("192.168.1.20")!, port: 443, properties: [("bridgeid", "001788fffee7bbc2")])
/// let answer = bridge.answer(to: query)  // nil unless the query asks for one of its names
/// ```
package struct MDNSService: Sendable {
    /// The instance's name, as people read it (`Hue Bridge - E7BBC2`).
    package var instance: String
    /// The service type (`_hue._tcp`).
    var type: String
    /// The host's name, without `.local`.
    var host: String
    /// The host's address, where the service is reached.
    var address: IPv4Address
    /// The service's port.
    var port: UInt16
    /// The `TXT` record's keys and values, in order.
    var properties: [(String, String)]

    /// A service.
    package init(
        instance: String, type: String, host: String, address: IPv4Address, port: UInt16,
        properties: [(String, String)]
    ) {
        self.instance = instance
        self.type = type
        self.host = host
        self.address = address
        self.port = port
        self.properties = properties
    }

    /// The multicast group every mDNS responder listens on, 224.0.0.251.
    static let group = IPv4Address(value: 0xE000_00FB)
    /// The port every mDNS responder listens on, and a querier sends from unless it is a one-shot resolver.
    static let port: UInt16 = 5353

    enum RecordType: UInt16 {
        case a = 1
        case ptr = 12
        case txt = 16
        case srv = 33
        case any = 255
    }

    var typeName: [String] { Self.labels(type) + ["local"] }
    var instanceName: [String] { [instance] + typeName }
    var hostName: [String] { [host, "local"] }
    /// The name under which a browser finds every service type on the link (RFC 6763 §9).
    static let serviceTypesName = ["_services", "_dns-sd", "_udp", "local"]

    /// The unsolicited response that announces the service (every record, TTLs as RFC 6762 §10 advises), or,
    /// with `goodbye`, withdraws it (every TTL 0, §10.1).
    func announcement(goodbye: Bool = false) -> [UInt8] {
        let records: [RecordType] = [.ptr, .srv, .txt, .a]
        var message = Self.header(id: 0, questions: 0, answers: records.count + 1, additional: 0)
        for record in records { append(record, ttl: goodbye ? 0 : nil, to: &message) }
        appendServiceType(ttl: goodbye ? 0 : nil, to: &message)
        return message
    }

    /// The response to `query`, if it asks for any of the service's records; `nil` for anything else (another
    /// name, a response, a message that is not well formed).
    /// - Parameter legacy: whether the query came from a port other than 5353: a one-shot resolver, answered as
    ///   unicast DNS (its ID and questions repeated, TTLs at most 10 s, RFC 6762 §6.7).
    package func answer(to query: [UInt8], legacy: Bool = false) -> [UInt8]? {
        guard let (questions, questionsEnd) = Self.questionSection(in: query) else { return nil }
        var wanted: [RecordType] = []
        var asksForServiceTypes = false
        for question in questions where question.isForTheInternet {
            let any = question.type == RecordType.any.rawValue
            func asks(_ type: RecordType, _ owner: [String]) -> Bool {
                Self.sameName(question.name, owner) && (any || question.type == type.rawValue)
            }
            if asks(.ptr, typeName) { wanted += [.ptr] }
            if asks(.srv, instanceName) { wanted += [.srv] }
            if asks(.txt, instanceName) { wanted += [.txt] }
            if asks(.a, hostName) { wanted += [.a] }
            if asks(.ptr, Self.serviceTypesName) { asksForServiceTypes = true }
        }
        guard !wanted.isEmpty || asksForServiceTypes else { return nil }
        // Not written out when the questions alone could not be repeated in a datagram (below).
        guard !legacy || questionsEnd <= Self.largestMessage else { return nil }
        var answers: [RecordType] = []
        for record in wanted where !answers.contains(record) { answers.append(record) }
        // What a browser asks for next comes with the answer (RFC 6763 §12): the instance's host, port,
        // properties and address with its pointer, the address with its host and port.
        let additional = [RecordType.srv, .txt, .a].filter { record in
            !answers.contains(record) && (answers.contains(.ptr) || (record == .a && answers.contains(.srv)))
        }
        let ttl: UInt32? = legacy ? 10 : nil
        let id = legacy ? UInt16(query[0]) << 8 | UInt16(query[1]) : 0
        var message = Self.header(
            id: id, questions: legacy ? questions.count : 0, answers: answers.count + (asksForServiceTypes ? 1 : 0),
            additional: additional.count)
        if legacy {
            // Repeated as asked, byte for byte: a resolver matches the answer to its query by them. Copied
            // compressed as they came: behind a header of the same size, a pointer back into the questions (the
            // only place a name may point, ``readName(_:at:)``) finds the same name, and the answer to a query of
            // pointers is no larger for them.
            message += query[12..<questionsEnd]
        }
        for record in answers { append(record, ttl: ttl, to: &message) }
        if asksForServiceTypes { appendServiceType(ttl: ttl, to: &message) }
        for record in additional { append(record, ttl: ttl, to: &message) }
        // A one-shot query of many long questions would be answered by more than a datagram may carry (RFC 6762
        // §17); such a resolver is not one a browser or an app uses, and it is left unanswered rather than
        // answered in part.
        return message.count <= Self.largestMessage ? message : nil
    }

    /// The most bytes an mDNS message may carry: 9,000 with its IP and UDP headers (RFC 6762 §17).
    package static let largestMessage = 9_000 - 28

    /// Whether `name` (labels as they came) is `owner`, compared as DNS compares names: ASCII letters without
    /// regard to case, every other byte as it is (RFC 4343).
    static func sameName(_ name: [[UInt8]], _ owner: [String]) -> Bool {
        func folded(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
        return name.count == owner.count
            && zip(name, owner).allSatisfy { label, expected in
                label.count == expected.utf8.count && zip(label, expected.utf8).allSatisfy { folded($0) == folded($1) }
            }
    }

    // MARK: - Writing

    static func header(id: UInt16, questions: Int, answers: Int, additional: Int) -> [UInt8] {
        var header: [UInt8] = []
        append16(id, to: &header)
        append16(0x8400, to: &header)  // a response, authoritative
        for count in [questions, answers, 0, additional] { append16(UInt16(count), to: &header) }
        return header
    }

    private func append(_ record: RecordType, ttl: UInt32?, to message: inout [UInt8]) {
        var data: [UInt8] = []
        let owner: [String]
        // Host records live 120 s, the others 75 minutes (RFC 6762 §10); every record but the shared pointer is
        // this responder's alone, so caches flush what they held for its name.
        let standard: UInt32
        let unique: Bool
        switch record {
        case .ptr:
            owner = typeName
            Self.appendName(instanceName, to: &data)
            (standard, unique) = (4_500, false)
        case .srv:
            owner = instanceName
            for value in [0, 0, port] { Self.append16(value, to: &data) }
            Self.appendName(hostName, to: &data)
            (standard, unique) = (120, true)
        case .txt:
            owner = instanceName
            for (key, value) in properties {
                let entry = Array("\(key)=\(value)".utf8.prefix(255))
                data.append(UInt8(entry.count))
                data += entry
            }
            if data.isEmpty { data = [0] }
            (standard, unique) = (4_500, true)
        case .a, .any:
            owner = hostName
            Self.append32(address.value, to: &data)
            (standard, unique) = (120, true)
        }
        Self.appendRecord(owner, record, unique: unique, ttl: ttl, standard: standard, data: data, to: &message)
    }

    private func appendServiceType(ttl: UInt32?, to message: inout [UInt8]) {
        var data: [UInt8] = []
        Self.appendName(typeName, to: &data)
        Self.appendRecord(
            Self.serviceTypesName, .ptr, unique: false, ttl: ttl, standard: 4_500, data: data, to: &message)
    }

    /// Appends a resource record: its owner's name, its type, its class (IN, with the cache-flush bit when the
    /// record is `unique`), its time to live (`standard`, or `ttl` when that is shorter) and its data.
    private static func appendRecord(
        _ owner: [String], _ type: RecordType, unique: Bool, ttl: UInt32?, standard: UInt32, data: [UInt8],
        to message: inout [UInt8]
    ) {
        appendName(owner, to: &message)
        append16(type.rawValue, to: &message)
        append16(unique ? 0x8001 : 0x0001, to: &message)
        append32(ttl.map { min($0, standard) } ?? standard, to: &message)
        append16(UInt16(data.count), to: &message)
        message += data
    }

    static func labels(_ name: String) -> [String] {
        name.split(separator: ".").map(String.init)
    }

    static func appendName(_ labels: [String], to message: inout [UInt8]) {
        for label in labels {
            let bytes = Array(label.utf8.prefix(63))
            message.append(UInt8(bytes.count))
            message += bytes
        }
        message.append(0)
    }

    static func append16(_ value: UInt16, to message: inout [UInt8]) {
        message += [UInt8(value >> 8), UInt8(value & 0xFF)]
    }

    static func append32(_ value: UInt32, to message: inout [UInt8]) {
        message += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    // MARK: - Reading

    /// A question: the name asked for, by labels as they came (not necessarily UTF-8), the record type and the
    /// class (its top bit asks for a unicast answer, RFC 6762 §5.4).
    package struct Question: Equatable {
        /// The name's labels, each as its bytes came.
        package var name: [[UInt8]]
        /// The record type asked for (`255` for any).
        package var type: UInt16
        /// The class, with the unicast-response bit on top.
        package var `class`: UInt16

        /// Whether the question is of the Internet class (or any class), the only one the service is in.
        package var isForTheInternet: Bool { [1, 255].contains(`class` & 0x7FFF) }
    }

    /// The questions of a query; `nil` for a response, another opcode, or a message that is not well formed.
    package static func questions(in message: [UInt8]) -> [Question]? { questionSection(in: message)?.questions }

    /// The questions of `message`, as ``questions(in:)`` reads them, and the offset just past the last.
    package static func questionSection(in message: [UInt8]) -> (questions: [Question], end: Int)? {
        guard message.count >= 12 else { return nil }
        // A query (QR clear) with the standard opcode; responses are other responders' business.
        guard message[2] & 0xF8 == 0 else { return nil }
        let count = Int(message[4]) << 8 | Int(message[5])
        guard count > 0, count <= 64 else { return nil }
        var offset = 12
        var questions: [Question] = []
        for _ in 0..<count {
            guard let name = readName(message, at: &offset), offset + 4 <= message.count else { return nil }
            let type = UInt16(message[offset]) << 8 | UInt16(message[offset + 1])
            let `class` = UInt16(message[offset + 2]) << 8 | UInt16(message[offset + 3])
            offset += 4
            questions.append(Question(name: name, type: type, class: `class`))
        }
        return (questions, offset)
    }

    /// The name at `offset`, following compression pointers (RFC 1035 §4.1.4) only backwards, so that a
    /// message cannot make it loop, never into the header, and reading on from where one leads only up to it;
    /// moves `offset` past the name where it is written.
    static func readName(_ message: [UInt8], at offset: inout Int) -> [[UInt8]]? {
        var labels: [[UInt8]] = []
        var position = offset
        var end: Int?
        // What is read after a pointer ends before that pointer: a name running on past it would be read from
        // other bytes in an answer that repeats the question, and a question repeated as it came would be another.
        var limit = message.count
        // The name's length as written uncompressed, the root's zero counted: at most 255 bytes (RFC 1035 §3.1).
        var length = 1
        while true {
            guard position < limit else { return nil }
            let byte = Int(message[position])
            switch byte & 0xC0 {
            case 0:
                guard byte > 0 else {
                    offset = end ?? position + 1
                    return labels
                }
                guard position + 1 + byte < limit else { return nil }
                length += byte + 1
                guard length <= 255 else { return nil }
                labels.append(Array(message[(position + 1)..<(position + 1 + byte)]))
                position += 1 + byte
            case 0xC0:
                guard position + 1 < limit else { return nil }
                let target = (byte & 0x3F) << 8 | Int(message[position + 1])
                // Backwards, and past the 12 bytes of the header, which hold no name.
                guard target < position, target >= 12 else { return nil }
                if end == nil { end = position + 2 }
                limit = position
                position = target
            default:
                return nil
            }
        }
    }
}
