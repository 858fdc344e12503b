import Foundation
import LumenProtocol
import LumenStore
import LumenTestSupport
import Testing

/// Files the user names may be pipes or devices: read as they come, waited on only until a stop says otherwise.
@Suite("Reading files the user names", .timeLimit(.minutes(1)))
struct NamedFileReadTests {
    let directory = TemporaryDirectory()

    /// A pipe whose ends are returned: a stop is asked for by writing to the second.
    func stopPipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        return (ends[0], ends[1])
    }

    @Test func aRegularFileSaysSoAndAPipeSaysItIsNot() throws {
        let path = directory.file("home.json")
        #expect(FileManager.default.createFile(atPath: path, contents: Data("{}".utf8)))
        let regular = try #require(try PosixFileSystem().readAnyFile(path))
        #expect(regular.bytes == Array("{}".utf8) && regular.isRegularFile)
        let fifo = directory.file("home.fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        // The writer opens once the reader has: it blocks until then, on a thread of its own.
        Thread.detachNewThread {
            let fd = open(fifo, O_WRONLY | O_CLOEXEC)
            _ = "{\"a\": 1}".withCString { write(fd, $0, strlen($0)) }
            close(fd)
        }
        let piped = try #require(try PosixFileSystem().readAnyFile(fifo))
        #expect(piped.bytes == Array("{\"a\": 1}".utf8) && !piped.isRegularFile)
    }

    /// A FIFO that no one writes held the reader in `open`; a stop ends the wait, with `ECANCELED`.
    @Test func aStopEndsTheWaitForAWriter() throws {
        let fifo = directory.file("never.fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        let (stopRead, stopWrite) = try stopPipe()
        defer { close(stopRead) }
        let stop = WaitStop(descriptor: stopRead) { true }
        // Asked from another thread, whether before the wait begins or during it.
        Thread.detachNewThread {
            var byte: UInt8 = 15
            _ = write(stopWrite, &byte, 1)
            close(stopWrite)
        }
        let error = try #require(throws: FileSystemError.self) { try PosixFileSystem().readAnyFile(fifo, stop: stop) }
        #expect(error.errno == ECANCELED)
        #expect(error.description == "read \(fifo): stopped while waiting for it to be written")
    }

    /// A wait that several things may end (a stop signal, the parent's exit) ends on whichever says so; one that
    /// is never readable is never asked.
    @Test func anyOfSeveralStopsEndsTheWait() throws {
        let fifo = directory.file("never.fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        let (quietRead, quietWrite) = try stopPipe()
        let (stopRead, stopWrite) = try stopPipe()
        defer { [quietRead, quietWrite, stopRead].forEach { close($0) } }
        let asked = Locked<[String]>([])
        let stop = WaitStop(anyOf: [
            WaitStop(descriptor: quietRead) {
                asked.withLock { $0.append("quiet") }
                return true
            },
            WaitStop(descriptor: stopRead) {
                asked.withLock { $0.append("stop") }
                return true
            },
        ])
        var byte: UInt8 = 1
        #expect(write(stopWrite, &byte, 1) == 1)
        close(stopWrite)
        let error = try #require(throws: FileSystemError.self) { try PosixFileSystem().readAnyFile(fifo, stop: stop) }
        #expect(error.errno == ECANCELED)
        #expect(asked.withLock { $0 } == ["stop"])
    }

    /// Something that wakes the wait but is no stop (an ignored SIGHUP) leaves it waiting for the writer.
    @Test func aWakeThatIsNoStopKeepsWaiting() throws {
        let fifo = directory.file("late.fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        let (stopRead, stopWrite) = try stopPipe()
        defer { close(stopRead) }
        let wakes = Locked(0)
        let stop = WaitStop(descriptor: stopRead) {
            var byte: UInt8 = 0
            _ = read(stopRead, &byte, 1)
            wakes.withLock { $0 += 1 }
            return false
        }
        // Kept open: a pipe whose writer has gone would wake the wait again and again.
        defer { close(stopWrite) }
        var byte: UInt8 = 1
        #expect(write(stopWrite, &byte, 1) == 1)
        Thread.detachNewThread {
            let fd = open(fifo, O_WRONLY | O_CLOEXEC)
            _ = "late".withCString { write(fd, $0, strlen($0)) }
            close(fd)
        }
        let late = try #require(try PosixFileSystem().readAnyFile(fifo, stop: stop))
        #expect(late.bytes == Array("late".utf8))
        #expect(wakes.withLock { $0 } == 1)
    }

    /// Only the first bytes are read when no more are wanted, however many the file would give.
    @Test func atMostThatManyBytesAreRead() throws {
        let endless = try #require(try PosixFileSystem().readAnyFile("/dev/zero", atMost: 4_096))
        #expect(endless.bytes == [UInt8](repeating: 0, count: 4_096) && !endless.isRegularFile)
        let path = directory.file("large")
        #expect(FileManager.default.createFile(atPath: path, contents: Data(count: 1 << 20)))
        // A regular file past the bound is not refused when only its start is read.
        let start = try #require(try PosixFileSystem(maxReadBytes: 1_024).readAnyFile(path, atMost: 100))
        #expect(start.bytes.count == 100 && start.isRegularFile)
    }
}
