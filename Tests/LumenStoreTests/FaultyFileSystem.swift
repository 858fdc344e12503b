import Foundation
import LumenProtocol
import LumenStore

/// The real file system with a record of every call and faults injected on demand.
final class FaultyFileSystem: FileSystem {
    enum Fault: Sendable, Equatable {
        case fail(operation: String, errno: Int32)
        /// Every write writes at most this many bytes.
        case shortWrites(Int)
        /// Writes of more than this many bytes fail (a nearly full disk).
        case failWritesLargerThan(Int, errno: Int32)
    }

    private let real = PosixFileSystem()
    private let state = Locked<(calls: [String], faults: [Fault])>(([], []))

    var calls: [String] { state.withLock { $0.calls } }
    func clearCalls() { state.withLock { $0.calls = [] } }
    func inject(_ fault: Fault) { state.withLock { $0.faults.append(fault) } }
    func heal() { state.withLock { $0.faults = [] } }

    private var shortWriteLimit: Int? {
        state.withLock { state -> Int? in
            for case .shortWrites(let limit) in state.faults { return limit }
            return nil
        }
    }

    private func record(_ operation: String, _ path: String) throws(FileSystemError) {
        let failing = state.withLock { state -> Int32? in
            state.calls.append("\(operation) \((path as NSString).lastPathComponent)")
            for case .fail(let name, let code) in state.faults where name == operation { return code }
            return nil
        }
        if let failing { throw FileSystemError(operation, path, errno: failing) }
    }

    var maxReadBytes: Int { real.maxReadBytes }

    func readFile(_ path: String) throws(FileSystemError) -> [UInt8]? {
        try record("read", path)
        return try real.readFile(path)
    }

    func createExclusive(_ path: String, mode: UInt32) throws(FileSystemError) -> Int32 {
        try record("open", path)
        return try real.createExclusive(path, mode: mode)
    }

    func fsync(_ fd: Int32, path: String) throws(FileSystemError) {
        try record("fsync", path)
        try real.fsync(fd, path: path)
    }

    func openExisting(_ path: String) throws(FileSystemError) -> Int32 {
        try record("open", path)
        return try real.openExisting(path)
    }

    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int, path: String) throws(FileSystemError)
        -> Int
    {
        try record("write", path)
        let tooLarge = state.withLock { state -> Int32? in
            for case .failWritesLargerThan(let limit, let code) in state.faults where bytes.count > limit {
                return code
            }
            return nil
        }
        if let tooLarge { throw FileSystemError("write", path, errno: tooLarge) }
        if let limit = shortWriteLimit, bytes.count > limit {
            return try real.write(fd, UnsafeRawBufferPointer(rebasing: bytes[0..<limit]), at: offset, path: path)
        }
        return try real.write(fd, bytes, at: offset, path: path)
    }

    func syncData(_ fd: Int32, path: String) throws(FileSystemError) {
        try record("fdatasync", path)
        try real.syncData(fd, path: path)
    }

    func close(_ fd: Int32) { real.close(fd) }

    func rename(_ from: String, to: String) throws(FileSystemError) {
        try record("rename", from)
        try real.rename(from, to: to)
    }

    func fsyncDirectory(_ path: String) throws(FileSystemError) {
        try record("fsync-dir", path)
        try real.fsyncDirectory(path)
    }

    func remove(_ path: String) throws(FileSystemError) { try real.remove(path) }
    func createDirectory(_ path: String) throws(FileSystemError) { try real.createDirectory(path) }
    func fileExists(_ path: String) -> Bool { real.fileExists(path) }
    func listDirectory(_ path: String) throws(FileSystemError) -> [String] { try real.listDirectory(path) }
    func link(_ existing: String, to new: String) throws(FileSystemError) {
        try record("link", existing)
        try real.link(existing, to: new)
    }
}
