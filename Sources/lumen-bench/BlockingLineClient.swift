import LumenProtocol

/// A client that sends a line and waits for the answering line: the simplest, most honest measure of round
/// trips, used the same way against the echo baseline and against lumend. It frames lines with the same
/// ``LineReader`` every Lumen client uses.
final class BlockingLineClient {
    let fd: Int32
    private var reader: LineReader

    init(path: String) {
        do {
            fd = try UnixSocket.connect(to: path)
        } catch {
            fatalError("connect \(path): \(error)")
        }
        reader = LineReader(fd: fd)
    }

    deinit { UnixSocket.close(fd) }

    func send(_ line: [UInt8]) {
        precondition(UnixSocket.sendAll(fd, line), "write failed")
    }

    /// Reads one line and returns its length.
    @discardableResult
    func readLine() -> Int { nextLine().count }

    /// Reads lines until one that contains `marker` (skipping notifications).
    func readLine(containing marker: [UInt8]) -> [UInt8] {
        while true {
            let line = nextLine()
            if line.count >= marker.count,
                line.indices.dropLast(marker.count - 1).contains(where: {
                    line[$0..<($0 + marker.count)].elementsEqual(marker)
                })
            {
                return line
            }
        }
    }

    private func nextLine() -> [UInt8] {
        do {
            return try reader.next()
        } catch {
            fatalError("the server closed the connection: \(error)")
        }
    }
}
