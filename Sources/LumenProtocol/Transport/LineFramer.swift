/// Cuts a byte stream into lines: `\n`-terminated, a trailing `\r` dropped, blank lines skipped, and a
/// line longer than the limit skipped to its end and reported once.
package struct LineFramer: Sendable {
    /// The longest line, in bytes.
    package let maxLineBytes: Int
    /// The start of a line whose end has not come yet.
    private(set) var partial: [UInt8] = []
    /// Whether the rest of an overlong line is being skipped.
    private(set) var discarding = false

    package init(maxLineBytes: Int) { self.maxLineBytes = maxLineBytes }

    /// What `bytes` finished: the whole lines, and whether a line was too long.
    package mutating func feed(_ bytes: ArraySlice<UInt8>) -> (lines: [[UInt8]], overlong: Bool) {
        var start = bytes.startIndex
        var overlong = false
        var lines: [[UInt8]] = []
        while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            if discarding {
                discarding = false
            } else if partial.count + (newline - start) > maxLineBytes {
                overlong = true
            } else {
                // Sized to the line: a copy of `partial` would take the capacity `partial` keeps for long lines.
                var line: [UInt8] = []
                line.reserveCapacity(partial.count + (newline - start))
                line.append(contentsOf: partial)
                line.append(contentsOf: bytes[start..<newline])
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                if !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { lines.append(line) }
            }
            partial.removeAll(keepingCapacity: partial.capacity <= 65_536)
            start = newline + 1
        }
        if !discarding {
            partial.append(contentsOf: bytes[start...])
            if partial.count > maxLineBytes {
                // Skip the rest of this line; the client hears about it once, now.
                overlong = true
                discarding = true
                partial = []
            }
        }
        return (lines, overlong)
    }

    /// Whether a line has begun and not ended.
    package var hasPartialLine: Bool { !partial.isEmpty || discarding }
}
