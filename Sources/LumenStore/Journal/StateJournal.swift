import LumenModel
import LumenProtocol

/// The state journal's format: what changed since the snapshot, one checksummed line per commit, each
/// written twice.
///
/// ```
/// 1c2b3a4d {"journal":2,"fixture":"demo-home","digest":"fnv1a64:…","base":12}
/// 1c2b3a4d {"journal":2,"fixture":"demo-home","digest":"fnv1a64:…","base":12}
/// 5e6f7a8b {"generation":12,"records":[]}
/// 5e6f7a8b {"generation":12,"records":[]}
/// 9f8e7d6c {"generation":13,"records":[{"light":{…},"in":"kitchen"}]}
/// 9f8e7d6c {"generation":13,"records":[{"light":{…},"in":"kitchen"}]}
/// ```
///
/// Each line is the CRC-32C of its JSON (8 hex digits), a space, the JSON and a newline, and each is written
/// twice in the same write, so that damage to one copy (a flipped bit, a zeroed byte) loses nothing. The
/// first line names the snapshot generation the journal follows (`base`). The next, the *carry*, numbered
/// like the base, holds what that snapshot saved beyond its predecessor and that predecessor's journal: it
/// lets the previous snapshot and both journals rebuild the state when the newest snapshot is damaged.
/// Each later line is one commit, numbered on from the base.
///
/// The file is extended with zeros ahead of what is written, so that appending a commit and `fdatasync`
/// rewrite data blocks only. A run of zeros where a line would start ends the journal only when nothing but
/// zeros follows it; otherwise it is damage. The writer makes those zeros durable before it writes a commit
/// over them, so a version 2 journal always ends in at least one zero byte: one that ends without them was
/// cut short (truncated), and may have lost acknowledged commits. Version 1 journals (one copy, no carry) are
/// still read.
public enum StateJournal {
    /// The journal's name in the state directory.
    public static let fileName = "state.journal"
    /// The format version this build writes.
    public static let formatVersion = 2
    /// The versions this build reads.
    static let readableVersions = 1...2
    /// How far ahead of its end the file is zero-filled, when there is room (``StateStore`` takes another).
    public static let preallocation = 1 << 20

    /// The journal's first line.
    public struct Header: Sendable, Hashable {
        /// The generation of the snapshot the journal follows.
        public var base: Int
        /// The fixture the state comes from.
        public var origin: FixtureOrigin
        /// The format version the journal was written in.
        public var version: Int

        /// A header.
        public init(base: Int, origin: FixtureOrigin, version: Int = StateJournal.formatVersion) {
            self.base = base
            self.origin = origin
            self.version = version
        }
    }

    /// One commit.
    public struct Batch: Sendable, Hashable {
        /// Its generation: the base's plus one for the first, and so on.
        public var generation: Int
        /// What changed.
        public var records: [StateRecord]

        /// A commit.
        public init(generation: Int, records: [StateRecord]) {
            self.generation = generation
            self.records = records
        }
    }

    /// What reading a journal found.
    public struct Contents: Sendable {
        /// The header, or `nil` when the file has none that can be read.
        public var header: Header?
        /// What the snapshot the journal follows saved beyond its predecessor (version 2; `nil` in version 1).
        public var carry: Batch?
        /// The whole commits after the base, in order.
        public var batches: [Batch] = []
        /// Where reading stopped short of the end of the written part, and why; `nil` when it did not.
        public var damage: Damage?
        /// Where lines were damaged whose content their copy still held: nothing was lost, but the file is.
        public var repaired: [Int] = []
        /// The offset after the last whole line: where the next commit would go.
        public var end = 0
    }

    /// Why reading stopped before the end.
    public enum Damage: Sendable, Hashable, CustomStringConvertible {
        /// The last line was cut off or garbled with nothing valid after it: a crash during a commit that
        /// was therefore never confirmed. Expected after a crash.
        case tornTail(offset: Int)
        /// A line in the middle is damaged and `laterCommits` whole commits follow it: those are lost.
        case corrupt(offset: Int, laterCommits: Int)
        /// The file ends at `offset` without the zeros the writer always leaves after its last commit: it was
        /// cut short after it was written, and commits that were acknowledged may have been cut with it.
        case cut(offset: Int)

        /// Whether this is ``tornTail(offset:)``.
        var isTornTail: Bool {
            if case .tornTail = self { true } else { false }
        }

        public var description: String {
            switch self {
            case .tornTail(let offset): "an unfinished commit at byte \(offset) (a crash during a write)"
            case .corrupt(let offset, let later):
                "damaged at byte \(offset), with \(later) commit\(later == 1 ? "" : "s") after the damage"
            case .cut(let offset):
                "cut short at byte \(offset) (it ends without the zeros lumend leaves after its last commit)"
            }
        }
    }

    /// The header line for a journal following snapshot generation `base`, in format `version`.
    public static func headerLine(base: Int, origin: FixtureOrigin, version: Int = formatVersion) -> [UInt8] {
        line(
            .object([
                "journal": .int(version), "fixture": .string(origin.id), "digest": .string(origin.digest),
                "base": .int(base),
            ]))
    }

    /// The line for one commit (once; ``entry(_:)`` writes it twice).
    public static func batchLine(generation: Int, records: [StateRecord]) -> [UInt8] {
        line(.object(["generation": .int(generation), "records": .array(records.map(\.jsonValue))]))
    }

    /// What is written for one line: the line and its copy.
    public static func entry(_ line: [UInt8]) -> [UInt8] { line + line }

    /// The start of a new journal after snapshot generation `base`: its header and its carry, each twice.
    public static func start(base: Int, origin: FixtureOrigin, carry: [StateRecord]) -> [UInt8] {
        entry(headerLine(base: base, origin: origin)) + entry(batchLine(generation: base, records: carry))
    }

    private static func line(_ value: JSONValue) -> [UInt8] {
        var json: [UInt8] = []
        value.write(to: &json)
        var line = Array(String(hex: CRC32C.checksum(json), digits: 8).utf8)
        line.reserveCapacity(json.count + 10)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: json)
        line.append(UInt8(ascii: "\n"))
        return line
    }

    /// Reads a journal's bytes: the header, the carry and every whole commit up to the first loss.
    public static func read(_ bytes: [UInt8]) -> Contents {
        let lines = split(bytes)
        var reading = Reading(lines: lines)
        reading.readHeader()
        if reading.readCommits() { reading.judgeTail(bytes) }
        var contents = reading.contents
        // A cut outranks a torn tail: what looks like an unfinished commit may be a confirmed one, cut.
        if let header = contents.header, header.version >= 2, lines.last?.end == bytes.count,
            contents.damage == nil || contents.damage?.isTornTail == true
        {
            contents.damage = .cut(offset: bytes.count)
        }
        return contents
    }

    /// A line of the file: where it starts, the offset after it, and its JSON if its checksum holds.
    typealias Line = (offset: Int, end: Int, value: JSONValue?)

    /// The file's lines: each with its offset, the offset after it, and its JSON if its checksum holds. A run
    /// of zeros is a line of its own (damaged) unless only zeros follow it, which is the unwritten tail.
    private static func split(_ bytes: [UInt8]) -> [Line] {
        var lines: [Line] = []
        var offset = 0
        while offset < bytes.count {
            if bytes[offset] == 0 {
                guard let resume = bytes[offset...].firstIndex(where: { $0 != 0 }) else { break }
                lines.append((offset, resume, nil))
                offset = resume
                continue
            }
            let stop = bytes[offset...].firstIndex { $0 == UInt8(ascii: "\n") || $0 == 0 }
            guard let stop, bytes[stop] == UInt8(ascii: "\n") else {
                // Cut off, by the end of the file or by zeros.
                let end = stop ?? bytes.count
                lines.append((offset, end, nil))
                offset = end
                continue
            }
            let value = checkedJSON(bytes[offset..<stop])
            if value == nil, let pieces = resynchronized(bytes, offset..<stop) {
                // A damaged newline joined two lines; each still reads on its own.
                lines += pieces.map { ($0.range.lowerBound, $0.range.upperBound + 1, $0.value) }
            } else {
                lines.append((offset, stop + 1, value))
            }
            offset = stop + 1
        }
        return lines
    }

    /// Two whole lines in a damaged one, when a damaged byte where a newline was joined them: the first
    /// ends where the second's checksum and JSON begin. `nil` when no such split reads.
    private static func resynchronized(_ bytes: [UInt8], _ range: Range<Int>)
        -> [(range: Range<Int>, value: JSONValue?)]?
    {
        guard range.count > 20 else { return nil }
        var start = range.lowerBound + 10
        while start < range.upperBound - 10 {
            defer { start += 1 }
            guard bytes[start + 8] == UInt8(ascii: " "), bytes[start + 9] == UInt8(ascii: "{"),
                bytes[start..<(start + 8)].allSatisfy(isHexDigit)
            else { continue }
            let first = checkedJSON(bytes[range.lowerBound..<(start - 1)])
            let second = checkedJSON(bytes[start..<range.upperBound])
            guard first != nil || second != nil else { continue }
            // The byte between them is damage all the same.
            return [
                (range.lowerBound..<(start - 1), first), ((start - 1)..<(start - 1), nil),
                (start..<range.upperBound, second),
            ]
        }
        return nil
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }

    /// The JSON of a line whose checksum matches, or `nil`.
    private static func checkedJSON(_ line: ArraySlice<UInt8>) -> JSONValue? {
        // Lower-case hex only: an upper-case digit is a changed byte, even where it means the same number.
        guard line.count > 9, line[line.startIndex + 8] == UInt8(ascii: " "),
            line[line.startIndex..<(line.startIndex + 8)].allSatisfy(isHexDigit)
        else { return nil }
        let hex = String(decoding: line[line.startIndex..<line.startIndex + 8], as: UTF8.self)
        let json = line[(line.startIndex + 9)...]
        guard let stored = UInt32(hex, radix: 16), stored == CRC32C.checksum(json) else { return nil }
        return try? JSONParser.parse(json)
    }

    static func header(_ value: JSONValue) -> Header? {
        guard case .object(let object) = value, let version = object["journal"]?.intValue,
            readableVersions.contains(version),
            case .string(let fixture) = object["fixture"], case .string(let digest) = object["digest"],
            let base = object["base"]?.intValue, base >= 0
        else { return nil }
        return Header(base: base, origin: FixtureOrigin(id: fixture, digest: digest), version: version)
    }
}

extension StateJournal.Batch {
    init(_ value: JSONValue) throws(JSONShapeError) {
        let object = try JSONCursor(value).object(allowing: ["generation", "records"])
        generation = try object.required("generation").int(in: 1...Int.max)
        records = try object.required("records").array().map { cursor throws(JSONShapeError) in
            try StateRecord(cursor: cursor)
        }
    }
}
