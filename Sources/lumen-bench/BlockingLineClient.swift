import LumenModel

#if canImport(Glibc)
    import Glibc
#endif

/// A client that sends a line and waits for the answering line: the simplest, most honest measure of round
/// trips, used the same way against the echo baseline and against lumend.
final class BlockingLineClient {
    let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 65_536)
    private var start = 0
    private var end = 0

    init(path: String) {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let result = UnixSocketAddress.with(path) { connect(fd, $0, $1) } ?? -1
        precondition(result == 0, "connect \(path): \(String(cString: strerror(errno)))")
    }

    deinit { close(fd) }

    func send(_ line: [UInt8]) {
        var offset = 0
        while offset < line.count {
            let written = line[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            precondition(written > 0, "write failed")
            offset += written
        }
    }

    /// Reads one line and returns its length.
    @discardableResult
    func readLine() -> Int {
        var length = 0
        while true {
            if let newline = buffer[start..<end].firstIndex(of: 0x0A) {
                length += newline - start
                start = newline + 1
                return length
            }
            length += end - start
            start = 0
            end = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            precondition(end > 0, "the server closed the connection")
        }
    }

    /// Reads lines until one that contains `marker` (skipping notifications).
    func readLine(containing marker: [UInt8]) -> [UInt8] {
        while true {
            var line: [UInt8] = []
            while true {
                if let newline = buffer[start..<end].firstIndex(of: 0x0A) {
                    line += buffer[start..<newline]
                    start = newline + 1
                    break
                }
                line += buffer[start..<end]
                start = 0
                end = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                precondition(end > 0, "the server closed the connection")
            }
            if line.count >= marker.count,
                line.indices.dropLast(marker.count - 1).contains(where: {
                    line[$0..<($0 + marker.count)].elementsEqual(marker)
                })
            {
                return line
            }
        }
    }
}
