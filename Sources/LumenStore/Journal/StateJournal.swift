import LumenModel
import LumenProtocol

/// The state journal's format: what changed since the snapshot, one checksummed line per commit, each
/// written twice, the two copies never in the same 4 KiB block.
///
/// ```
/// 1c2b3a4d {"journal":3,"fixture":"demo-home","digest":"fnv1a64:…","base":12}
/// ▒▒▒▒▒▒▒▒ (filler up to the next 4 KiB boundary)
/// 1c2b3a4d {"journal":3,"fixture":"demo-home","digest":"fnv1a64:…","base":12}
/// 5e6f7a8b {"generation":12,"records":[]}
/// ▒▒▒▒▒▒▒▒
/// 5e6f7a8b {"generation":12,"records":[]}
/// 9f8e7d6c {"generation":13,"records":[{"light":{…},"in":"kitchen"}]}
/// ▒▒▒▒▒▒▒▒
/// 9f8e7d6c {"generation":13,"records":[{"light":{…},"in":"kitchen"}]}
/// ▒▒▒▒▒▒▒▒ (the unwritten part, up to the file's end)
/// ```
///
/// Each line is the CRC-32C of its JSON (8 hex digits), a space, the JSON and a newline. Each *entry* is a line
/// written twice in one write: the first copy, ``filler`` up to the next multiple of ``copyDistance`` in the
/// file, and the second copy there. A disk loses or garbles a sector (512 bytes or 4 KiB) at a time, so one bad
/// sector never takes both copies of anything. The first entry is the header, naming the snapshot generation
/// the journal follows (`base`). The next, the *carry*, numbered like the base, holds what that snapshot saved
/// beyond its predecessor and that predecessor's journal: it lets the previous snapshot and both journals
/// rebuild the state when the newest snapshot is damaged. Each later entry is one commit, numbered on from the
/// base.
///
/// The file is extended with ``filler`` ahead of what is written, and the filler made durable before a commit
/// is written over it, so that appending a commit and `fdatasync` rewrite data blocks only, and so that what a
/// crash leaves can be told from damage: a write cut short by a crash leaves the new bytes and the filler
/// they were going over, never a zero, and never a whole line that fails its checksum. So after the last
/// whole entry, filler is the end; a torn line running into filler is a commit never confirmed; but zeros
/// where an entry would start, or a whole line that fails its checksum in both copies, are a commit that was
/// written, and may have been acknowledged, then damaged: the reader says so (``Damage/corrupt(offset:laterCommits:)``)
/// and lumend does not start without being told to accept the loss. A journal always ends in filler: one that
/// does not was cut short after it was written. Versions 1 (one copy) and 2 (copies side by side, zeros ahead)
/// are still read.
package enum StateJournal {
    /// The journal's name in the state directory.
    static let fileName = "state.journal"
    /// The format version this build writes.
    static let formatVersion = 3
    /// The versions this build reads.
    static let readableVersions = 1...3
    /// How far ahead of its end the file is filled, when there is room (``StateStore`` takes another).
    static let preallocation = 1 << 20
    /// What the part of the file not yet written holds, and the space between a line's two copies: a byte
    /// that is never part of a line (JSON is UTF-8, which has no 0xFF), and not the zero a damaged sector reads
    /// back as.
    package static let filler: UInt8 = 0xFF
    /// The block size the second copy of a line is aligned to: a line's second copy starts at the first
    /// multiple of it after the first copy ends. 4 KiB is the physical sector of today's disks and the page of
    /// the file system; a disk that fails in 512-byte sectors is covered too.
    static let copyDistance = 4_096

    /// The journal's first line.
    struct Header: Sendable, Hashable {
        /// The generation of the snapshot the journal follows.
        var base: Int
        /// The fixture the state comes from.
        var origin: FixtureOrigin
        /// The format version the journal was written in.
        var version = StateJournal.formatVersion
    }

    /// One commit.
    package struct Batch: Sendable, Hashable {
        /// Its generation: the base's plus one for the first, and so on.
        package var generation: Int
        /// What changed.
        package var records: [StateRecord]
    }

    /// What reading a journal found.
    package struct Contents: Sendable {
        /// The header, or `nil` when the file has none that can be read.
        var header: Header?
        /// What the snapshot the journal follows saved beyond its predecessor (version 2; `nil` in version 1).
        package var carry: Batch?
        /// The whole commits after the base, in order.
        package var batches: [Batch] = []
        /// Where reading stopped short of the end of the written part, and why; `nil` when it did not.
        var damage: Damage?
        /// Where lines were damaged whose content their copy still held: nothing was lost, but the file is.
        var repaired: [Int] = []
        /// The offset after the last whole line: where the next commit would go.
        package var end = 0
    }

    /// Why reading stopped before the end.
    enum Damage: Sendable, Hashable, CustomStringConvertible {
        /// The last line was cut off or garbled with nothing valid after it: a crash during a commit that
        /// was therefore never confirmed. Expected after a crash.
        case tornTail(offset: Int)
        /// A commit is damaged in both copies and `laterCommits` whole commits follow it: those are lost, and it
        /// may have been acknowledged too (when nothing follows it, it was written whole all the same: a crash
        /// does not leave what is there).
        case corrupt(offset: Int, laterCommits: Int)
        /// The file ends at `offset` without the filler (zeros, before version 3) the writer always leaves after
        /// its last commit: it was cut short after it was written, and commits that were acknowledged may have
        /// been cut with it.
        case cut(offset: Int)

        /// Whether this is ``tornTail(offset:)``.
        var isTornTail: Bool {
            if case .tornTail = self { true } else { false }
        }

        var description: String {
            switch self {
            case .tornTail(let offset): "an unfinished commit at byte \(offset) (a crash during a write)"
            case .corrupt(let offset, 0):
                "damaged at byte \(offset), where a commit was written whole: it may have been acknowledged"
            case .corrupt(let offset, let later):
                "damaged at byte \(offset), with \(later) commit\(later == 1 ? "" : "s") after the damage"
            case .cut(let offset):
                "cut short at byte \(offset) (it ends without the filler lumend leaves after its last commit)"
            }
        }
    }

    /// The header line for a journal following snapshot generation `base`, in format `version`.
    package static func headerLine(base: Int, origin: FixtureOrigin, version: Int = formatVersion) -> [UInt8] {
        line(
            .object([
                "journal": .int(version), "fixture": .string(origin.id), "digest": .string(origin.digest),
                "base": .int(base),
            ]))
    }

    /// The line for one commit (once; ``entry(_:at:)`` writes it twice).
    package static func batchLine(generation: Int, records: [StateRecord]) -> [UInt8] {
        line(.object(["generation": .int(generation), "records": .array(records.map(\.jsonValue))]))
    }

    /// What is written for one line at `offset` in the file: the line, filler up to the next multiple of
    /// ``copyDistance``, and the line again there.
    static func entry(_ line: [UInt8], at offset: Int) -> [UInt8] {
        let second = secondCopy(at: offset, length: line.count)
        var entry = line
        entry.reserveCapacity(second - offset + line.count)
        entry.append(contentsOf: repeatElement(filler, count: second - offset - line.count))
        entry.append(contentsOf: line)
        return entry
    }

    /// Where the second copy of a line of `length` bytes written at `offset` goes.
    static func secondCopy(at offset: Int, length: Int) -> Int {
        (offset + length + copyDistance - 1) / copyDistance * copyDistance
    }

    /// The start of a new journal after snapshot generation `base`: its header and its carry, each twice.
    package static func start(base: Int, origin: FixtureOrigin, carry: [StateRecord]) -> [UInt8] {
        let header = entry(headerLine(base: base, origin: origin), at: 0)
        return header + entry(batchLine(generation: base, records: carry), at: header.count)
    }

    private static func line(_ value: JSONValue) -> [UInt8] {
        var json: [UInt8] = []
        value.write(to: &json)
        var line = Array(CRC32C.text(CRC32C.checksum(json)).utf8)
        line.reserveCapacity(json.count + 10)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: json)
        line.append(UInt8(ascii: "\n"))
        return line
    }

    /// Reads a journal's bytes: the header, the carry and every whole commit up to the first loss.
    package static func read(_ bytes: [UInt8]) -> Contents {
        if let contents = readEntries(bytes) { return contents }
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
            guard startsLikeLine(bytes[start..<range.upperBound]) else { continue }
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

    /// Whether `bytes` begin as a line does: its checksum's 8 digits, a space and the `{` of its JSON.
    static func startsLikeLine(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.count >= 10 && bytes[bytes.startIndex + 8] == UInt8(ascii: " ")
            && bytes[bytes.startIndex + 9] == UInt8(ascii: "{") && bytes.prefix(8).allSatisfy(CRC32C.isDigit)
    }

    /// The JSON of a line whose checksum matches, or `nil`.
    static func checkedJSON(_ line: ArraySlice<UInt8>) -> JSONValue? {
        guard line.count > 9, line[line.startIndex + 8] == UInt8(ascii: " "),
            let stored = CRC32C.parse(line.prefix(8))
        else { return nil }
        let json = line[(line.startIndex + 9)...]
        guard stored == CRC32C.checksum(json) else { return nil }
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
