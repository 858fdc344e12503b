import LumenProtocol

extension StateJournal {
    /// One entry: its JSON, the offset after its second copy, and where a copy (or the filler between them) was
    /// found damaged while the other copy held.
    struct Entry {
        var value: JSONValue
        var end: Int
        var damaged: Int?
    }

    /// Reads a journal of version 3 or later entry by entry: the header, the carry and every whole commit up to
    /// the first loss. `nil` when the bytes do not start with such a header in either copy: an older journal,
    /// read line by line, or one whose header is gone.
    static func readEntries(_ bytes: [UInt8]) -> Contents? {
        guard let first = entry(in: bytes, at: 0), let header = header(first.value), header.version >= 3 else {
            return nil
        }
        var contents = Contents()
        contents.header = header
        var offset = 0
        var next: Entry? = first
        // The header comes first, numbered one before the carry.
        var expected = header.base - 1
        while let entry = next {
            if offset > 0 {
                guard let batch = try? Batch(entry.value), batch.generation == expected else { break }
                if batch.generation == header.base { contents.carry = batch } else { contents.batches.append(batch) }
            }
            if let damaged = entry.damaged { contents.repaired.append(damaged) }
            expected += 1
            contents.end = entry.end
            offset = entry.end
            guard offset < bytes.count else {
                // Even a whole last entry leaves filler after it: a file that ends here was cut.
                contents.damage = .cut(offset: bytes.count)
                return contents
            }
            next = self.entry(in: bytes, at: offset)
        }
        // What stopped the reading: the end, a torn write, or damage (an entry unreadable in both copies, or
        // out of order), after which every whole commit is lost.
        contents.damage = next == nil ? stop(in: bytes, at: offset) : .corrupt(offset: offset, laterCommits: 0)
        if case .corrupt = contents.damage {
            contents.damage = .corrupt(offset: offset, laterCommits: commits(in: bytes, from: offset, expected))
        }
        return contents
    }

    /// The entry at `offset`, from its first copy or, when that is damaged, its second.
    static func entry(in bytes: [UInt8], at offset: Int) -> Entry? {
        if let (value, length) = line(in: bytes, at: offset) {
            let second = secondCopy(at: offset, length: length)
            let end = second + length
            if let gap = bytes[(offset + length)..<min(second, bytes.count)].firstIndex(where: { $0 != filler }) {
                return Entry(value: value, end: end, damaged: gap)
            }
            let copy = bytes[min(second, bytes.count)..<min(end, bytes.count)]
            let intact = end <= bytes.count && copy.elementsEqual(bytes[offset..<(offset + length)])
            // A copy holding filler is one a crash cut off before it landed, not damage: nothing to report.
            return Entry(value: value, end: end, damaged: intact || copy.contains(filler) ? nil : second)
        }
        // The second copy starts at the first block boundary after the first copy: try each boundary a line
        // could end before, up to filler, which no written entry holds there.
        var second = secondCopy(at: offset, length: 1)
        while second < bytes.count, bytes[second] != filler {
            if let (value, length) = line(in: bytes, at: second), secondCopy(at: offset, length: length) == second {
                let torn = bytes[offset..<(offset + length)].contains(filler)
                return Entry(value: value, end: second + length, damaged: torn ? nil : offset)
            }
            second += copyDistance
        }
        return nil
    }

    /// The JSON of the line at `offset` and its length with its newline, when it is whole and its checksum holds.
    static func line(in bytes: [UInt8], at offset: Int) -> (value: JSONValue, length: Int)? {
        guard offset < bytes.count,
            let stop = bytes[offset...].firstIndex(where: { $0 == UInt8(ascii: "\n") || $0 == filler || $0 == 0 }),
            bytes[stop] == UInt8(ascii: "\n"), let value = checkedJSON(bytes[offset..<stop])
        else { return nil }
        return (value, stop + 1 - offset)
    }

    /// Why reading stops at `offset`, where no entry reads: `nil` for filler (the end); else a torn tail, a
    /// write a crash cut off, unless what is there is damage to an entry that was written whole, which may
    /// have been acknowledged.
    ///
    /// A crash leaves the bytes its write got to and the filler it did not, so a torn entry's copies each run
    /// into filler before their newline. Damage leaves what a crash cannot: a whole line that fails its
    /// checksum, or zeros. Zeros in the first copy's place alone may be a damaged sector that held only filler
    /// (or the end of the entry before); zeros, or a whole damaged line, where its second copy would be too
    /// are an entry lost whole.
    static func stop(in bytes: [UInt8], at offset: Int) -> Damage? {
        guard bytes[offset] != filler else { return nil }
        let first = run(in: bytes, from: offset)
        let secondOffset = secondCopy(at: offset, length: first.count)
        let second = secondOffset < bytes.count ? run(in: bytes, from: secondOffset) : []
        let newline = UInt8(ascii: "\n")
        // Zeros running past the first block boundary cover where a second copy would start.
        let zeroedBoth = first.contains(0) && first.endIndex > secondCopy(at: offset, length: 1)
        let wasWhole =
            first.contains(newline) || zeroedBoth || second.contains(0)
            || startsLikeLine(second) && second.contains(newline)
        if wasWhole { return .corrupt(offset: offset, laterCommits: 0) }
        // Written bytes up to the end of the file, with no filler after them: the file was cut. Zeros up to the
        // end, where a second copy would lie past the end, are a damaged sector of filler.
        let cut = first.endIndex == bytes.count && !first.allSatisfy { $0 == 0 }
        return cut ? .cut(offset: bytes.count) : .tornTail(offset: offset)
    }

    /// The bytes from `offset` up to the next filler (or the end of the file).
    private static func run(in bytes: [UInt8], from offset: Int) -> ArraySlice<UInt8> {
        bytes[offset..<(bytes[offset...].firstIndex(of: filler) ?? bytes.count)]
    }

    /// How many whole commits numbered `expected` or later are in `bytes` from `offset`: those a damaged
    /// entry before them makes unreadable in order.
    static func commits(in bytes: [UInt8], from offset: Int, _ expected: Int) -> Int {
        var generations = Set<Int>()
        var start = offset
        while start < bytes.count {
            if CRC32C.isDigit(bytes[start]), let (value, length) = line(in: bytes, at: start),
                let batch = try? Batch(value), batch.generation >= expected
            {
                generations.insert(batch.generation)
                start += length
                continue
            }
            guard let next = bytes[start...].firstIndex(where: { $0 == UInt8(ascii: "\n") || $0 == filler }) else {
                break
            }
            start = next + 1
        }
        return generations.count
    }
}
