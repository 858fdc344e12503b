import Foundation
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

    /// A device or a pipe that never ends, named by mistake, is read only as far as the limit.
    @Test func anEndlessDeviceIsRefusedAtTheLimit() throws {
        let error = try #require(throws: FileSystemError.self) {
            try PosixFileSystem(maxReadBytes: 1 << 20).readFile("/dev/zero")
        }
        #expect(error.description == "read /dev/zero: File too large")
    }
}
