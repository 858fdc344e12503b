import Foundation
import LumenProtocol
import Synchronization
import Testing

/// A connected pair of stream sockets, closed when the test is done.
final class SocketPair {
    let near: Int32
    let far: Int32

    init() throws {
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else {
            throw SocketError("socketpair", errno: errno)
        }
        (near, far) = (ends[0], ends[1])
    }

    deinit {
        UnixSocket.close(near)
        UnixSocket.close(far)
    }
}

@Suite("Line framing and the socket wrapper")
struct TransportTests {
    @Test func linesSplitAcrossReadsAreJoined() {
        var framer = LineFramer(maxLineBytes: 100)
        #expect(framer.feed(Array("{\"a\":".utf8)[...]).lines.isEmpty)
        #expect(framer.hasPartialLine)
        let (lines, overlong) = framer.feed(Array("1}\r\n\n  \n[2]\n[3".utf8)[...])
        #expect(lines.map { String(decoding: $0, as: UTF8.self) } == ["{\"a\":1}", "[2]"])
        #expect(!overlong)
        #expect(framer.hasPartialLine)
    }

    @Test func anOverlongLineIsReportedOnceAndSkippedToItsEnd() {
        var framer = LineFramer(maxLineBytes: 8)
        let first = framer.feed(Array("0123456789".utf8)[...])
        #expect(first.overlong && first.lines.isEmpty)
        let second = framer.feed(Array("more of it\nok\n".utf8)[...])
        #expect(!second.overlong)
        #expect(second.lines == [Array("ok".utf8)])
    }

    /// A line takes the memory of its own bytes, not of the longest line begun before it: a connection keeps
    /// a hundred or more lines waiting, and each the size of a long line before them would cost megabytes.
    @Test func aShortLineAfterALongOneTakesItsOwnSize() {
        var framer = LineFramer(maxLineBytes: 1 << 20)
        #expect(framer.feed(Array(repeating: UInt8(ascii: "x"), count: 60_000)[...]).lines.isEmpty)
        let (lines, _) = framer.feed(Array("\n[1]\n[2]\nlong".utf8)[...])
        #expect(lines.count == 3 && lines[0].count == 60_000)
        #expect(lines[1...].allSatisfy { $0.capacity < 256 }, "\(lines[1...].map(\.capacity))")
        let after = framer.feed(Array("er\n".utf8)[...]).lines
        #expect(after == [Array("longer".utf8)] && after[0].capacity < 256, "\(after.map(\.capacity))")
    }

    @Test func theReaderReturnsEachLineThenTheEndOfTheStream() throws {
        let pair = try SocketPair()
        #expect(UnixSocket.sendAll(pair.far, Array("one\ntwo\nthr".utf8)))
        var reader = LineReader(fd: pair.near)
        #expect(try reader.next() == Array("one".utf8))
        #expect(reader.hasBufferedLine)
        #expect(try reader.next() == Array("two".utf8))
        #expect(!reader.hasBufferedLine)
        #expect(throws: LineReader.Failure.timedOut) { try reader.next(timeout: .milliseconds(1)) }
        UnixSocket.sendAll(pair.far, Array("ee\n".utf8))
        #expect(try reader.next() == Array("three".utf8))
        UnixSocket.shutdownBoth(pair.far)
        #expect(throws: LineReader.Failure.closed) { try reader.next() }
    }

    /// A thread blocked in `read` on a Unix stream socket is woken each time its peer reads what it sent (the
    /// space to write comes back), only to find nothing and sleep again; `poll` for input wakes only for input.
    /// A client that sends a request and waits for the answer would be woken twice a request.
    @Test func aReaderWaitsForALineInPollNotInRead() throws {
        let pair = try SocketPair()
        let near = pair.near
        let thread = Locked<String?>(nil)
        let done = Atomic<Bool>(false)
        Thread.detachNewThread {
            // "PID/task/TID": the thread's own directory under /proc.
            thread.withLock { $0 = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self") }
            var reader = LineReader(fd: near)
            _ = try? reader.next()
            done.store(true, ordering: .sequentiallyConsistent)
        }
        var found: String?
        while found == nil { found = thread.withLock { $0 } }
        let task = "/proc/" + (found ?? "")
        // The system call it is blocked in, once it is asleep in one.
        var blockedIn: Int?
        while blockedIn == nil {
            let state = try String(contentsOfFile: task + "/stat", encoding: .utf8)
            guard let fields = state.split(separator: ")").last?.split(separator: " "), fields.first == "S",
                let call = try String(contentsOfFile: task + "/syscall", encoding: .utf8).split(separator: " ").first,
                let number = Int(call)
            else { continue }
            blockedIn = number
        }
        #if arch(x86_64)
            let (read, waits) = (0, [7, 271])  // read; poll, ppoll
        #else
            let (read, waits) = (63, [73])  // read; ppoll
        #endif
        #expect(blockedIn != read, "it waits in read, which the peer's reads wake")
        #expect(waits.contains(blockedIn ?? -1))
        UnixSocket.sendAll(pair.far, Array("line\n".utf8))
        while !done.load(ordering: .sequentiallyConsistent) {}
    }

    @Test func sendingToAPeerThatHungUpFailsInsteadOfRaisingSIGPIPE() throws {
        let pair = try SocketPair()
        UnixSocket.close(dup(pair.far))
        UnixSocket.shutdownBoth(pair.far)
        // Without MSG_NOSIGNAL this would end the test process.
        #expect(!UnixSocket.sendAll(pair.near, Array(repeating: 0x41, count: 1 << 20)))
    }

    @Test func aNonBlockingReceiveWithNothingThereSaysSo() throws {
        let pair = try SocketPair()
        UnixSocket.setNonBlocking(pair.near)
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(buffer.withUnsafeMutableBytes { UnixSocket.receive(pair.near, into: $0) } == .wouldBlock)
        UnixSocket.sendAll(pair.far, [1, 2, 3])
        #expect(buffer.withUnsafeMutableBytes { UnixSocket.receive(pair.near, into: $0) } == .moved(3))
    }

    @Test func aPathTooLongForASocketIsRefusedWithItsLength() {
        let path = "/tmp/" + String(repeating: "x", count: UnixSocket.maxPathLength)
        #expect {
            _ = try UnixSocket.connect(to: path)
        } throws: { error in
            (error as? SocketError)?.errno == ENAMETOOLONG
        }
    }
}
