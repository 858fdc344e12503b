import LumenHue
import LumenModel
import LumenServer

/// The `mdns` target: what anyone on the link may ask lumend's mDNS responder.
extension FuzzTarget {
    /// Reads `bytes` as a multicast DNS query to the Hue bridge's service, as from a querier on port 5353 and
    /// from a one-shot resolver. Holds, for each: the query is answered exactly when one of its questions asks
    /// for one of the service's records (a one-shot answer that would not fit a datagram aside); an answer is a
    /// response within a datagram's size, its counts matching the records in it, every name within DNS's
    /// limits, every record one a question asked for or one that goes with it, and a one-shot answer carries
    /// its query's ID and repeats its questions byte for byte as they were asked.
    static func runMDNS(_ bytes: [UInt8]) {
        let section = MDNSService.questionSection(in: bytes)
        let questions = section?.questions ?? []
        let questionsEnd = section?.end ?? 12
        let asked = questions.contains { question in
            MDNSRecords.hueBridge.contains { $0.answers(question) }
        }
        let answer = mdnsService.answer(to: bytes)
        precondition((answer != nil) == asked, "answered \(answer != nil), asked \(asked): \(bytes)")
        if let answer { check(answer, to: questions, legacy: false) }
        if let answer = mdnsService.answer(to: bytes, legacy: true) {
            precondition(asked, "a one-shot answer to nothing asked: \(bytes)")
            precondition(answer[0..<2] == bytes[0..<2], "a one-shot answer with another ID: \(answer) to \(bytes)")
            precondition(
                answer.count >= questionsEnd && answer[12..<questionsEnd] == bytes[12..<questionsEnd],
                "a one-shot answer that does not repeat its questions as asked: \(answer) to \(bytes)")
            check(answer, to: questions, legacy: true, questionsEnd: questionsEnd)
        } else {
            // Left unanswered only when repeating the questions alone would come near a datagram's size.
            precondition(
                !asked || questionsEnd > MDNSService.largestMessage - 1_000,
                "a one-shot query whose questions take \(questionsEnd) bytes left unanswered: \(bytes)")
        }
    }

    /// Reads `answer` whole, strictly (the records' names never compressed, as the service writes them), and checks
    /// it; a one-shot answer's questions, repeated as the query had them up to `questionsEnd`, are checked by the
    /// caller and skipped here.
    private static func check(
        _ answer: [UInt8], to questions: [MDNSService.Question], legacy: Bool, questionsEnd: Int = 12
    ) {
        precondition(answer.count <= MDNSService.largestMessage, "an answer of \(answer.count) bytes")
        var reader = StrictReader(bytes: answer)
        let header = (0..<6).map { _ in Int(reader.read16()) }
        precondition(header[1] == 0x8400, "not an authoritative response: \(answer)")
        precondition(header[2] == (legacy ? questions.count : 0), "\(header[2]) questions repeated: \(answer)")
        precondition(header[3] > 0 && header[4] == 0, "answer and authority counts \(header[3]), \(header[4])")
        if legacy {
            // The questions repeated read back as the ones asked: the same bytes, and no name read from past them.
            var asQuery = answer
            (asQuery[2], asQuery[3]) = (0, 0)
            let repeated = MDNSService.questionSection(in: asQuery)
            precondition(
                repeated?.questions == questions && repeated?.end == questionsEnd,
                "questions repeated that read otherwise: \(answer) to \(questions)")
            reader.offset = questionsEnd
        }
        var answered: [MDNSRecords] = []
        for index in 0..<(header[3] + header[5]) {
            let name = reader.readName()
            let (type, _, ttl, length) = (reader.read16(), reader.read16(), reader.read32(), Int(reader.read16()))
            let end = reader.offset + length
            precondition(end <= answer.count, "record data past the end: \(answer)")
            let records = MDNSRecords.hueBridge.first { $0.owner == name && $0.types.contains(type) }
            precondition(records != nil, "a record no one has: \(name) type \(type)")
            if index < header[3] {
                precondition(questions.contains { records!.answers($0) }, "an answer nobody asked for: \(name)")
                answered.append(records!)
            }
            precondition(!legacy || ttl <= 10, "a one-shot answer cached for \(ttl) s")
            if type == 12 { _ = reader.readName() }
            if type == 33 {
                reader.offset += 6
                _ = reader.readName()
            }
            if type == 12 || type == 33 { precondition(reader.offset == end, "record data of the wrong length") }
            reader.offset = end
        }
        precondition(reader.offset == answer.count, "\(answer.count - reader.offset) bytes after the records")
    }

    /// The service the mDNS target answers for: the Hue bridge's, as lumend announces it for the fuzz home.
    static let mdnsService = MDNSService.hueBridge(
        bridgeID: HueBridge.bridgeID(homeID: "fuzz"), address: IPv4Address(value: 0x7F00_0001), port: 443)
}

/// The records under one of the Hue bridge's names, written out again here from what DNS-SD says a service
/// has, so that the target does not check the service against itself.
private struct MDNSRecords: Equatable {
    /// The name the records are under, by its labels' bytes.
    var owner: [[UInt8]]
    /// The record types under it.
    var types: [UInt16]

    static let hueBridge: [MDNSRecords] = {
        let bridgeID = HueBridge.bridgeID(homeID: "fuzz")
        func name(_ labels: String...) -> [[UInt8]] { labels.map { Array($0.utf8) } }
        return [
            MDNSRecords(owner: name("_hue", "_tcp", "local"), types: [12]),
            MDNSRecords(owner: name("Hue Bridge - \(bridgeID.suffix(6))", "_hue", "_tcp", "local"), types: [33, 16]),
            MDNSRecords(owner: name(bridgeID.lowercased(), "local"), types: [1]),
            MDNSRecords(owner: name("_services", "_dns-sd", "_udp", "local"), types: [12]),
        ]
    }()

    /// Whether `question` asks for one of these records: the same name, ASCII letters without regard to case,
    /// one of their types or any, of the Internet class or any.
    func answers(_ question: MDNSService.Question) -> Bool {
        func folded(_ label: [UInt8]) -> [UInt8] { label.map { (65...90).contains($0) ? $0 + 32 : $0 } }
        return question.name.map(folded) == owner.map(folded)
            && (question.type == 255 || types.contains(question.type))
            && [1, 255].contains(question.class & 0x7FFF)
    }
}

/// Reads an answer as the service writes it, stopping the target at anything out of bounds or out of DNS's
/// limits: a label of 1 to 63 bytes, a name of at most 255, no compression.
private struct StrictReader {
    /// The answer read.
    let bytes: [UInt8]
    /// Where the next read starts.
    var offset = 0

    /// The next two bytes, as DNS writes a number (big-endian).
    mutating func read16() -> UInt16 {
        precondition(offset + 2 <= bytes.count, "cut short at \(offset): \(bytes)")
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    /// The next four bytes, as DNS writes a number.
    mutating func read32() -> UInt32 { UInt32(read16()) << 16 | UInt32(read16()) }

    /// The next name, by its labels.
    mutating func readName() -> [[UInt8]] {
        var labels: [[UInt8]] = []
        var length = 1
        while true {
            precondition(offset < bytes.count, "a name cut short: \(bytes)")
            let count = Int(bytes[offset])
            offset += 1
            if count == 0 { return labels }
            precondition(count <= 63 && offset + count <= bytes.count, "a label of \(count) bytes: \(bytes)")
            length += count + 1
            precondition(length <= 255, "a name of \(length) bytes: \(bytes)")
            labels.append(Array(bytes[offset..<(offset + count)]))
            offset += count
        }
    }
}
