import LumenProtocol
import LumenStore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An in-memory file system that remembers what a power cut would keep, as ALICE and CrashMonkey model one:
/// a file's data only once it is `fsync`ed or `fdatasync`ed, a directory entry (create, rename, unlink, link)
/// only once its directory is `fsync`ed. Until then a write may be lost whole, kept whole, or torn at any
/// block, and the directory operations since the last directory `fsync` may survive up to any point in their
/// order (as a journaling file system commits metadata in order).
///
/// Every call that changes the disk records a crash point: the disk as it was just after that call.
/// ``crashImage(at:variant:random:)`` turns one into the files a restart would find.
final class SimulatedDisk: FileSystem {
    /// A file's contents: what is durable, and the writes since.
    struct Inode: Sendable {
        var durable: [UInt8] = []
        var current: [UInt8] = []
        var unsynced: [(offset: Int, bytes: [UInt8])] = []
    }

    enum DirectoryOperation: Sendable {
        case bind(String, inode: Int)
        case unbind(String)
        /// Atomic, as `rename(2)` is: a crash keeps all of it or none.
        case rename(String, to: String, inode: Int)
    }

    /// The disk at one moment.
    struct Model: Sendable {
        var inodes: [Int: Inode] = [:]
        var entries: [String: Int] = [:]
        var durableEntries: [String: Int] = [:]
        var pendingDirectory: [DirectoryOperation] = []
        var nextInode = 1
    }

    /// The disk just after a call, and how many writes were acknowledged by then.
    struct CrashPoint: Sendable {
        var model: Model
        var acknowledged: Int
        var call: String
    }

    /// How unsynced state is treated in a crash image.
    enum Variant: CaseIterable, Sendable {
        /// Nothing unsynced survives.
        case lostAll
        /// Everything written survives, as if the cut came after the disk caught up.
        case keptAll
        /// Each unsynced write lost, kept or torn at random; a random part of the directory operations kept.
        case random
    }

    /// Faults a test can switch on.
    struct Faults: Sendable {
        /// Writes fail with ENOSPC.
        var full = false
        /// Writes of more than this many bytes fail with ENOSPC.
        var largestWrite: Int?
        /// The next `fdatasync` or `fsync` of a file fails with EIO.
        var failNextSync = false
        /// `fdatasync` and `fsync` of files succeed but keep nothing: a store that never synced its data.
        var syncsKeepNothing = false
    }

    let directory: String
    private let state:
        Locked<
            (
                model: Model, fds: [Int32: Int], nextFD: Int32, points: [CrashPoint], acks: Int, faults: Faults,
                recording: Bool
            )
        >

    /// A disk holding `directory` (empty), recording crash points when `recording`.
    init(directory: String, recording: Bool = true) {
        self.directory = directory
        state = Locked((Model(), [:], 100, [], 0, Faults(), recording))
    }

    /// A disk whose files are `files`, all durable, recording nothing: what a restart finds.
    convenience init(directory: String, files: [String: [UInt8]]) {
        self.init(directory: directory, recording: false)
        state.withLock { state in
            for (name, bytes) in files {
                let inode = state.model.nextInode
                state.model.nextInode += 1
                state.model.inodes[inode] = Inode(durable: bytes, current: bytes)
                state.model.entries[name] = inode
            }
            state.model.durableEntries = state.model.entries
        }
    }

    var crashPoints: [CrashPoint] { state.withLock { $0.points } }
    /// Notes that one more write was acknowledged to a client: crash points from now on must keep it.
    func acknowledge() { state.withLock { $0.acks += 1 } }
    func setFaults(_ change: (inout Faults) -> Void) { state.withLock { change(&$0.faults) } }

    /// The files as they are now (not as a crash would leave them).
    var files: [String: [UInt8]] {
        state.withLock { state in state.model.entries.compactMapValues { state.model.inodes[$0]?.current } }
    }

    private func name(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    private func mutate<T>(
        _ call: String, _ body: (inout Model, inout [Int32: Int], inout Int32, Faults) throws(FileSystemError) -> T
    )
        throws(FileSystemError) -> T
    {
        let result: Result<T, FileSystemError> = state.withLock { state in
            do throws(FileSystemError) {
                let value = try body(&state.model, &state.fds, &state.nextFD, state.faults)
                if state.recording {
                    state.points.append(CrashPoint(model: state.model, acknowledged: state.acks, call: call))
                }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    // MARK: - FileSystem

    /// No bound: the simulated files are the tests' own.
    var maxReadBytes: Int { .max }

    func readFile(_ path: String) throws(FileSystemError) -> [UInt8]? {
        state.withLock { state in state.model.entries[name(path)].flatMap { state.model.inodes[$0]?.current } }
    }

    func createExclusive(_ path: String, mode: UInt32) throws(FileSystemError) -> Int32 {
        let file = name(path)
        return try mutate("create \(file)") { model, fds, nextFD, _ throws(FileSystemError) in
            if model.entries[file] != nil { throw FileSystemError("open", path, errno: EEXIST) }
            let inode = model.nextInode
            model.nextInode += 1
            model.inodes[inode] = Inode()
            model.entries[file] = inode
            model.pendingDirectory.append(.bind(file, inode: inode))
            nextFD += 1
            fds[nextFD] = inode
            return nextFD
        }
    }

    func openExisting(_ path: String) throws(FileSystemError) -> Int32 {
        let file = name(path)
        return try state.withLock { state throws(FileSystemError) -> Int32 in
            guard let inode = state.model.entries[file] else { throw FileSystemError("open", path, errno: ENOENT) }
            state.nextFD += 1
            state.fds[state.nextFD] = inode
            return state.nextFD
        }
    }

    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int, path: String) throws(FileSystemError)
        -> Int
    {
        let data = [UInt8](bytes)
        return try mutate("write \(name(path)) @\(offset)+\(data.count)") {
            model, fds, _, faults throws(FileSystemError) in
            if faults.full || faults.largestWrite.map({ data.count > $0 }) ?? false {
                throw FileSystemError("write", path, errno: ENOSPC)
            }
            guard let inode = fds[fd] else { throw FileSystemError("write", path, errno: EBADF) }
            var file = model.inodes[inode]!
            if file.current.count < offset + data.count {
                file.current += [UInt8](repeating: 0, count: offset + data.count - file.current.count)
            }
            file.current.replaceSubrange(offset..<(offset + data.count), with: data)
            file.unsynced.append((offset, data))
            model.inodes[inode] = file
            return data.count
        }
    }

    func fsync(_ fd: Int32, path: String) throws(FileSystemError) { try sync(fd, path: path, "fsync") }
    func syncData(_ fd: Int32, path: String) throws(FileSystemError) { try sync(fd, path: path, "fdatasync") }

    private func sync(_ fd: Int32, path: String, _ call: String) throws(FileSystemError) {
        let (failing, keepNothing) = state.withLock { state -> (Bool, Bool) in
            defer { state.faults.failNextSync = false }
            return (state.faults.failNextSync, state.faults.syncsKeepNothing)
        }
        if failing { throw FileSystemError(call, path, errno: EIO) }
        try mutate("\(call) \(name(path))") { model, fds, _, _ throws(FileSystemError) in
            guard let inode = fds[fd] else { throw FileSystemError(call, path, errno: EBADF) }
            if keepNothing { return }
            model.inodes[inode]!.durable = model.inodes[inode]!.current
            model.inodes[inode]!.unsynced = []
        }
    }

    func close(_ fd: Int32) { _ = state.withLock { $0.fds.removeValue(forKey: fd) } }

    func rename(_ from: String, to: String) throws(FileSystemError) {
        let (source, target) = (name(from), name(to))
        try mutate("rename \(source) \(target)") { model, _, _, _ throws(FileSystemError) in
            guard let inode = model.entries[source] else { throw FileSystemError("rename", from, errno: ENOENT) }
            model.entries[source] = nil
            model.entries[target] = inode
            model.pendingDirectory.append(.rename(source, to: target, inode: inode))
        }
    }

    func link(_ existing: String, to new: String) throws(FileSystemError) {
        let (source, target) = (name(existing), name(new))
        try mutate("link \(source) \(target)") { model, _, _, _ throws(FileSystemError) in
            guard let inode = model.entries[source] else { throw FileSystemError("link", existing, errno: ENOENT) }
            if model.entries[target] != nil { throw FileSystemError("link", new, errno: EEXIST) }
            model.entries[target] = inode
            model.pendingDirectory.append(.bind(target, inode: inode))
        }
    }

    func fsyncDirectory(_ path: String) throws(FileSystemError) {
        try mutate("fsync-dir") { model, _, _, _ throws(FileSystemError) in
            model.durableEntries = model.entries
            model.pendingDirectory = []
        }
    }

    func remove(_ path: String) throws(FileSystemError) {
        let file = name(path)
        guard state.withLock({ $0.model.entries[file] != nil }) else { return }
        try mutate("unlink \(file)") { model, _, _, _ throws(FileSystemError) in
            model.entries[file] = nil
            model.pendingDirectory.append(.unbind(file))
        }
    }

    func createDirectory(_ path: String) throws(FileSystemError) {}
    func fileExists(_ path: String) -> Bool { state.withLock { $0.model.entries[name(path)] != nil } }
    func listDirectory(_ path: String) throws(FileSystemError) -> [String] {
        state.withLock { Array($0.model.entries.keys) }
    }

    // MARK: - Crash images

    /// The files a restart would find after a power cut at `point`.
    static func crashImage(
        at point: CrashPoint, variant: Variant, random: inout some RandomNumberGenerator
    ) -> [String: [UInt8]] {
        let model = point.model
        var entries = model.durableEntries
        let keptOperations: Int
        switch variant {
        case .lostAll: keptOperations = 0
        case .keptAll: keptOperations = model.pendingDirectory.count
        case .random: keptOperations = Int.random(in: 0...model.pendingDirectory.count, using: &random)
        }
        for operation in model.pendingDirectory.prefix(keptOperations) {
            switch operation {
            case .bind(let name, let inode): entries[name] = inode
            case .unbind(let name): entries[name] = nil
            case .rename(let source, let target, let inode):
                entries[source] = nil
                entries[target] = inode
            }
        }
        var contents: [Int: [UInt8]] = [:]
        for inode in Set(entries.values) {
            let file = model.inodes[inode]!
            var data = file.durable
            for write in file.unsynced {
                switch variant {
                case .lostAll: continue
                case .keptAll: apply(write.bytes, at: write.offset, to: &data)
                case .random:
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: continue
                    case 1: apply(write.bytes, at: write.offset, to: &data)
                    default:
                        // Torn: each 512-byte sector of the write kept or lost on its own.
                        var start = write.offset
                        while start < write.offset + write.bytes.count {
                            let end = min((start / 512 + 1) * 512, write.offset + write.bytes.count)
                            if Bool.random(using: &random) {
                                apply(
                                    Array(write.bytes[(start - write.offset)..<(end - write.offset)]), at: start,
                                    to: &data)
                            }
                            start = end
                        }
                    }
                }
            }
            contents[inode] = data
        }
        return entries.mapValues { contents[$0]! }
    }

    private static func apply(_ bytes: [UInt8], at offset: Int, to data: inout [UInt8]) {
        if data.count < offset + bytes.count {
            data += [UInt8](repeating: 0, count: offset + bytes.count - data.count)
        }
        data.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
    }
}
