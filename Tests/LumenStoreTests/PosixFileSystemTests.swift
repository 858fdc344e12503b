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
