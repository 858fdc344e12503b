import LumenProtocol

extension StateJournal {
    /// A journal read line by line: the header, then the commits in order up to the first loss, then what
    /// the tail after the last whole commit says.
    struct Reading {
        let lines: [Line]
        var contents = Contents()
        /// The next line to read.
        var index = 0
        /// Where each damaged line starts.
        var damaged: [Int] = []
        /// The length of the last whole line taken: a damaged copy of it is told from a torn write by it.
        var lastLength = 0

        /// Takes the first line that reads as a header; every line before it is damaged. With none, a
        /// written file is a torn tail from its start.
        mutating func readHeader() {
            while index < lines.count, contents.header == nil {
                if let header = lines[index].value.flatMap(StateJournal.header) {
                    contents.header = header
                    take(lines[index])
                } else {
                    damaged.append(lines[index].offset)
                }
                index += 1
            }
            if contents.header == nil, !lines.isEmpty { contents.damage = .tornTail(offset: 0) }
        }

        /// Takes the carry and every commit in order. Returns `false` when a commit is missing: every
        /// whole commit after the gap is lost, and ``Contents/damage`` says so.
        mutating func readCommits() -> Bool {
            guard let header = contents.header else { return false }
            var expected = header.base + 1
            var accepted = Set<Int>()
            var carryAllowed = header.version >= 2
            while index < lines.count {
                let line = lines[index]
                index += 1
                guard let value = line.value else {
                    damaged.append(line.offset)
                    continue
                }
                if value.objectValue?["journal"] != nil, StateJournal.header(value) == header {
                    contents.end = line.end
                    continue
                }
                guard let batch = try? Batch(value) else {
                    damaged.append(line.offset)
                    continue
                }
                if carryAllowed, batch.generation == header.base, contents.batches.isEmpty {
                    contents.carry = batch
                    take(line)
                    continue
                }
                carryAllowed = false
                if batch.generation < expected {
                    // The copy of a commit already read (or, in a journal that was never reused, nothing else).
                    if accepted.contains(batch.generation) { contents.end = line.end }
                    continue
                }
                if batch.generation > expected {
                    markLost(from: line, expected: expected)
                    return false
                }
                contents.batches.append(batch)
                accepted.insert(batch.generation)
                take(line)
                expected += 1
            }
            // Damage before the last whole line was covered by the copies.
            contents.repaired = damaged.filter { $0 < contents.end }
            return true
        }

        /// Damage after the last whole line: a commit cut off by a crash, never confirmed, unless it is the
        /// last commit's second copy damaged after it was written. Nothing is lost either way.
        mutating func judgeTail(_ bytes: [UInt8]) {
            guard let torn = damaged.first(where: { $0 >= contents.end }), let written = lines.last?.end else {
                return
            }
            // A whole line's worth after the last commit with no run of zeros a torn write would leave, or an
            // exact copy of it followed by the zeros: the copy, damaged.
            let tail = bytes[contents.end..<written]
            let lastLine = bytes[(contents.end - lastLength)..<max(contents.end - lastLength, contents.end - 1)]
            if lastLength > 0,
                tail.count == lastLength && tail.count(where: { $0 == 0 }) < 16
                    || tail.elementsEqual(lastLine) && bytes.count > written && bytes[written] == 0
            {
                contents.repaired.append(torn)
            } else {
                contents.damage = .tornTail(offset: torn)
            }
        }

        private mutating func take(_ line: Line) {
            contents.end = line.end
            lastLength = line.end - line.offset
        }

        /// A commit is missing before `line`: counts the whole commits from it on, which are lost.
        private mutating func markLost(from line: Line, expected: Int) {
            let later = Set(
                lines[(index - 1)...].compactMap { rest -> Int? in
                    rest.value.flatMap { try? Batch($0) }.map(\.generation)
                }.filter { $0 >= expected }
            ).count
            let at = damaged.first { $0 >= contents.end } ?? line.offset
            contents.damage = .corrupt(offset: at, laterCommits: later)
            contents.repaired = damaged.filter { $0 < contents.end }
        }
    }
}
