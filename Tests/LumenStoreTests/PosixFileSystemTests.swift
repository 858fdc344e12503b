import Foundation
import LumenProtocol
import LumenStore
import LumenTestSupport
import Testing

/// The real file system's reads: whole files, and a bound on what a mistaken path can make lumend hold.
@Suite("Reading files whole")
struct PosixFileSystemTests {
    let directory = TemporaryDirectory()

    @Test func aFileIsReadWhole() throws {
        let path = directory.file("state.json")
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        #expect(try PosixFileSystem().readFile(path) == bytes)
        #expect(try PosixFileSystem().readFile(directory.file("missing")) == nil)
    }

    @Test func aFileLargerThanTheLimitIsRefused() throws {
        let path = directory.file("large.json")
        #expect(FileManager.default.createFile(atPath: path, contents: Data(count: 4_096)))
        let error = try #require(throws: FileSystemError.self) {
            try PosixFileSystem(maxReadBytes: 1_024).readFile(path)
        }
        #expect(error.errno == EFBIG)
        #expect(try PosixFileSystem(maxReadBytes: 4_096).readFile(path)?.count == 4_096)
    }

    /// A device or a pipe that never ends, given as a fixture by mistake, is read only as far as the limit.
    @Test func anEndlessDeviceIsRefusedAtTheLimit() throws {
        let error = try #require(throws: FileSystemError.self) {
            try PosixFileSystem(maxReadBytes: 1 << 20).readAnyFile("/dev/zero")
        }
        #expect(error.description == "read /dev/zero: File too large")
    }

    /// A state file is a regular file: a device is refused before anything is read from it.
    @Test func aDeviceInPlaceOfAStateFileIsRefused() throws {
        let error = try #require(throws: FileSystemError.self) { try PosixFileSystem().readFile("/dev/zero") }
        #expect(error.description == "open /dev/zero: not a regular file (a character device)")
    }

    /// A FIFO planted as a state file once held start-up forever in `open`, waiting for a writer, deaf to
    /// SIGTERM: it is refused at once.
    @Test func aFIFOInPlaceOfAStateFileIsRefusedWithoutWaitingForAWriter() throws {
        let path = directory.file("state.json")
        try #require(mkfifo(path, 0o600) == 0)
        let outcome = Locked<Result<[UInt8]?, FileSystemError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let result = Result { () throws(FileSystemError) in try PosixFileSystem().readFile(path) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        // A guard against hanging the whole run, not a timing: the refusal takes microseconds.
        if done.wait(timeout: .now() + 10) == .timedOut {
            Issue.record("reading the FIFO waited for a writer")
            // Be its writer, so that the blocked reader goes on and the thread ends.
            let writer = open(path, O_WRONLY | O_NONBLOCK)
            close(writer)
            done.wait()
        }
        switch outcome.withLock({ $0 }) {
        case .failure(let error): #expect(error.description == "open \(path): not a regular file (a FIFO)")
        case let other: Issue.record("read as \(String(describing: other))")
        }
    }
}

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

@Suite("A file system anchored at a checked directory")
struct AnchoredFileSystemTests {
    @Test func aDirectorySwappedAfterTheCheckIsNotWhereFilesGo() throws {
        let parent = TemporaryDirectory()
        let path = parent.file("state")
        let checked = try TrustedDirectory(opening: path)
        let fileSystem = PosixFileSystem(anchor: (path, checked.descriptor))
        // Another directory put in its place after the check: the files still go to the one checked.
        #expect(rename(path, parent.file("moved")) == 0)
        #expect(mkdir(path, 0o700) == 0)
        try fileSystem.writeDurably(Array("kept".utf8), to: path + "/state.json")
        try fileSystem.rename(path + "/state.json", to: path + "/state.previous.json")
        #expect(FileManager.default.fileExists(atPath: parent.file("moved/state.previous.json")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: path).isEmpty)
        #expect(try fileSystem.readFile(path + "/state.previous.json") == Array("kept".utf8))
        #expect(try fileSystem.listDirectory(path) == ["state.previous.json"])
    }

    @Test func aDirectoryGivenWithATrailingSlashStillHoldsItsFiles() throws {
        let parent = TemporaryDirectory()
        let path = parent.file("state") + "/"
        let checked = try TrustedDirectory(opening: path)
        let fileSystem = PosixFileSystem(anchor: (path, checked.descriptor))
        // As the store names its files: the directory, a slash, the name.
        try fileSystem.writeDurably(Array("kept".utf8), to: "\(path)/state.json")
        #expect(FileManager.default.fileExists(atPath: parent.file("state/state.json")))
        #expect(try fileSystem.readFile("\(path)/state.json") == Array("kept".utf8))
        #expect(fileSystem.fileExists(path))
    }

    @Test func aMissingDirectoryThePathLeavesAgainIsNotMade() throws {
        let parent = TemporaryDirectory()
        #expect(throws: TrustedDirectory.Distrust.self) {
            _ = try TrustedDirectory(opening: parent.file("missing/../state"))
        }
        #expect(!FileManager.default.fileExists(atPath: parent.file("missing")))
        // Through one that exists, `..` leads where the kernel would take it.
        try FileManager.default.createDirectory(atPath: parent.file("here"), withIntermediateDirectories: false)
        let state = try TrustedDirectory(opening: parent.file("here/../state"))
        #expect(state.path == parent.file("here/../state"))
        #expect(FileManager.default.fileExists(atPath: parent.file("state")))
    }
}
