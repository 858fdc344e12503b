/// Reads `\n`-terminated lines from a blocking stream socket, through the one ``LineFramer``.
///
/// A reader belongs to the one thread that reads its socket; writers use ``UnixSocket/sendAll(_:_:)``
/// on the same descriptor independently.
package struct LineReader {
    /// Why no line came.
    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The peer shut down its side of the connection.
        case closed
        /// Nothing complete came within the timeout.
        case timedOut
        /// A line was longer than the reader takes; the rest of it was skipped.
        case overlong
        /// Reading failed with this `errno`.
        case failed(Int32)

        package var description: String {
            switch self {
            case .closed: "the other side closed the connection"
            case .timedOut: "timed out"
            case .overlong: "a line was longer than the limit"
            case .failed(let code): "read failed: \(code)"
            }
        }
    }

    /// The socket read from.
    package let fd: Int32
    private var framer: LineFramer
    private var ready: [[UInt8]] = []
    private var readyIndex = 0
    private var chunk: [UInt8]

    /// A reader of `fd`, taking lines of at most 64 MiB (a reply listing every light of a very large home is
    /// still one line), read 64 KiB at a time.
    package init(fd: Int32) {
        self.fd = fd
        framer = LineFramer(maxLineBytes: 64 << 20)
        chunk = [UInt8](repeating: 0, count: 65_536)
    }

    /// Whether a whole line is already buffered, so ``next(timeout:)`` returns without a system call.
    package var hasBufferedLine: Bool { readyIndex < ready.count }

    /// The next line, without its newline; blocks until it comes, the peer closes, or `timeout` passes.
    package mutating func next(timeout: Duration? = nil) throws(Failure) -> [UInt8] {
        let clock = ContinuousClock()
        let deadline = timeout.map { clock.now + $0 }
        while true {
            if readyIndex < ready.count {
                defer {
                    readyIndex += 1
                    if readyIndex == ready.count {
                        ready.removeAll(keepingCapacity: true)
                        readyIndex = 0
                    }
                }
                return ready[readyIndex]
            }
            // Waits in `poll`, never in `read`: a thread blocked in `read` on a Unix stream socket is woken
            // each time the peer reads what this side sent (its space to write came back), only to find
            // nothing and sleep again, twice the wake-ups a request; `poll` for input wakes only for input.
            guard UnixSocket.waitReadable(fd, timeout: deadline.map { clock.now.duration(to: $0) }) else {
                throw .timedOut
            }
            let step = chunk.withUnsafeMutableBytes { UnixSocket.receive(fd, into: $0) }
            switch step {
            case .moved(let count):
                let (lines, overlong) = framer.feed(chunk[0..<count])
                ready.append(contentsOf: lines)
                if overlong { throw .overlong }
            case .end: throw .closed
            case .wouldBlock: continue
            case .failed(let code): throw .failed(code)
            }
        }
    }
}
