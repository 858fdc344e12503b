import LumenModel

/// The state journal's format: what changed since the snapshot, one checksummed line per commit.
///
/// ```
/// 1c2b3a4d {"journal":1,"fixture":"demo-home","digest":"fnv1a64:…","base":12}
/// 9f8e7d6c {"generation":13,"records":[{"light":{…},"in":"kitchen"}]}
/// 0a1b2c3d {"generation":14,"records":[{"home":{"name":"Home","roomIDs":["kitchen"]}}]}
/// ```
///
/// Each line is the CRC-32C of its JSON (8 hex digits), a space, the JSON and a newline. The first line names
/// the snapshot generation the journal follows (`base`); each later line is one commit, numbered on from it.
/// The file is extended with zeros ahead of what is written, so that appending a commit and `fdatasync`
/// rewrite data blocks only; reading stops at the first zero byte where a line would start.
public enum StateJournal {
    /// The journal's name in the state directory.
    public static let fileName = "state.journal"
    /// The format version this build writes and reads.
    public static let formatVersion = 1
    /// How far ahead of its end the file is zero-filled.
    static let preallocation = 1 << 20

    /// The journal's first line.
    public struct Header: Sendable, Hashable {
        /// The generation of the snapshot the journal follows.
        public var base: Int
        /// The fixture the state comes from.
        public var origin: FixtureOrigin

        /// A header.
        public init(base: Int, origin: FixtureOrigin) {
            self.base = base
            self.origin = origin
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
        /// The whole commits, in order.
        public var batches: [Batch] = []
        /// Where reading stopped short of the end of the written part, and why; `nil` when it did not.
        public var damage: Damage?
    }

    /// Why reading stopped before the end.
    public enum Damage: Sendable, Hashable, CustomStringConvertible {
        /// The last line was cut off or garbled with nothing valid after it: a crash during a commit that
        /// was therefore never confirmed. Expected after a crash.
        case tornTail(offset: Int)
        /// A line in the middle is damaged and `laterCommits` whole commits follow it: those are lost.
        case corrupt(offset: Int, laterCommits: Int)

        public var description: String {
            switch self {
            case .tornTail(let offset): "an unfinished commit at byte \(offset) (a crash during a write)"
            case .corrupt(let offset, let later):
                "damaged at byte \(offset), with \(later) commit\(later == 1 ? "" : "s") after the damage"
            }
        }
    }

    /// The header line for a journal following snapshot generation `base`.
    public static func headerLine(base: Int, origin: FixtureOrigin) -> [UInt8] {
        line(
            .object([
                "journal": .int(formatVersion), "fixture": .string(origin.id), "digest": .string(origin.digest),
                "base": .int(base),
            ]))
    }

    /// The line for one commit.
    public static func batchLine(generation: Int, records: [StateRecord]) -> [UInt8] {
        line(.object(["generation": .int(generation), "records": .array(records.map(\.jsonValue))]))
    }

    private static func line(_ value: JSONValue) -> [UInt8] {
        var json: [UInt8] = []
        value.write(to: &json)
        let hex = Array(String(CRC32C.checksum(json), radix: 16).utf8)
        var line = [UInt8](repeating: UInt8(ascii: "0"), count: 8 - hex.count) + hex
        line.reserveCapacity(json.count + 10)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: json)
        line.append(UInt8(ascii: "\n"))
        return line
    }

    /// Reads a journal's bytes: the header and every whole commit up to the first damage.
    public static func read(_ bytes: [UInt8]) -> Contents {
        var contents = Contents()
        var offset = 0
        var lines: [(offset: Int, value: JSONValue?)] = []
        while offset < bytes.count, bytes[offset] != 0 {
            guard let newline = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")) else {
                lines.append((offset, nil))
                break
            }
            lines.append((offset, checkedJSON(bytes[offset..<newline])))
            offset = newline + 1
        }
        guard let first = lines.first, let header = first.value.flatMap(Self.header) else {
            if !lines.isEmpty { contents.damage = .tornTail(offset: 0) }
            return contents
        }
        contents.header = header
        for (index, line) in lines.enumerated().dropFirst() {
            let expected = header.base + contents.batches.count + 1
            if let value = line.value, let batch = try? Batch(value), batch.generation == expected {
                contents.batches.append(batch)
                continue
            }
            // Whole commits after the damage mean it is not a torn end but lost data. (A journal is never
            // reused, so nothing valid can be left over from an earlier one.)
            let later = lines[(index + 1)...].count { rest in
                rest.value.map { (try? Batch($0)) != nil } ?? false
            }
            // A whole commit with the wrong number is a gap, never a torn end.
            let misnumbered = line.value.map { (try? Batch($0)) != nil } ?? false
            contents.damage =
                later == 0 && !misnumbered
                ? .tornTail(offset: line.offset)
                : .corrupt(offset: line.offset, laterCommits: later + (misnumbered ? 1 : 0))
            break
        }
        return contents
    }

    /// The JSON of a line whose checksum matches, or `nil`.
    private static func checkedJSON(_ line: ArraySlice<UInt8>) -> JSONValue? {
        guard line.count > 9, line[line.startIndex + 8] == UInt8(ascii: " ") else { return nil }
        let hex = String(decoding: line[line.startIndex..<line.startIndex + 8], as: UTF8.self)
        let json = line[(line.startIndex + 9)...]
        guard let stored = UInt32(hex, radix: 16), stored == CRC32C.checksum(json) else { return nil }
        return try? JSONParser.parse(json)
    }

    private static func header(_ value: JSONValue) -> Header? {
        guard case .object(let object) = value, object["journal"]?.intValue == formatVersion,
            case .string(let fixture) = object["fixture"], case .string(let digest) = object["digest"],
            let base = object["base"]?.intValue, base >= 0
        else { return nil }
        return Header(base: base, origin: FixtureOrigin(id: fixture, digest: digest))
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
