/// The lines a connection has read and not yet handed to its session, in order, and when reading should stop
/// for them (back-pressure): once ``highWaterLines`` lines or ``highWaterBytes`` bytes wait, until both are
/// down to their low-water marks. Bytes count as well as lines, so that a client sending the longest lines a
/// request may have (1 MiB) holds a mebibyte or two waiting, not 128 of them.
struct LineQueue {
    /// The lines waiting at which reading stops.
    static let highWaterLines = 128
    /// The lines waiting at which stopped reading may go on (with the bytes at their mark).
    static let lowWaterLines = 32
    /// The bytes waiting at which reading stops.
    static let highWaterBytes = 1 << 20
    /// The bytes waiting at which stopped reading may go on (with the lines at their mark).
    static let lowWaterBytes = 256 << 10

    private var lines: [[UInt8]] = []
    private var head = 0
    /// The bytes of the lines waiting.
    private(set) var bytes = 0

    /// The lines waiting.
    var count: Int { lines.count - head }

    /// Whether so much waits that reading should stop.
    var isFull: Bool { count >= Self.highWaterLines || bytes >= Self.highWaterBytes }

    /// Whether so little waits that stopped reading may go on.
    var hasRoom: Bool { count <= Self.lowWaterLines && bytes <= Self.lowWaterBytes }

    /// Adds lines read, in order, after those waiting.
    mutating func append(contentsOf more: ArraySlice<[UInt8]>) {
        for line in more { bytes += line.count }
        lines.append(contentsOf: more)
    }

    /// The first line waiting, taken out; `nil` when none is.
    mutating func popFirst() -> [UInt8]? {
        guard head < lines.count else {
            lines.removeAll(keepingCapacity: lines.capacity <= 1_024)
            head = 0
            return nil
        }
        // Taken out of its slot, which would otherwise keep it alive for as long as a fast sender keeps the
        // queue from emptying. The emptied front goes once it is half the queue and a high water's worth, so
        // that a short queue is never shifted.
        let line = lines[head]
        lines[head] = []
        head += 1
        bytes -= line.count
        if head >= Self.highWaterLines, head * 2 >= lines.count {
            lines.removeFirst(head)
            head = 0
        }
        return line
    }
}
