#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed file-system call, with the operation, path and `errno`.
package struct FileSystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The call that failed ("open", "write", "fsync", "rename", …).
    var operation: String
    /// The path involved.
    var path: String
    /// The `errno` it failed with.
    package var errno: Int32

    /// What was wrong, when it was no failed call's `errno` (then `errno` is `EINVAL`).
    var problem: String?

    /// An error.
    package init(_ operation: String, _ path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    /// An error that no `errno` names, such as a file of the wrong type.
    init(_ operation: String, _ path: String, problem: String) {
        self.init(operation, path, errno: EINVAL)
        self.problem = problem
    }

    package var description: String { "\(operation) \(path): \(problem ?? String(cString: strerror(errno)))" }
}

/// The file-system calls the state store makes, behind a protocol so tests can inject faults
/// (`ENOSPC`, `EIO`, short writes, failing `fsync` or `rename`) and check the order of calls.
package protocol FileSystem: Sendable {
    /// The most a file may hold for ``readFile(_:)`` to read it: past it, the read fails with `EFBIG`.
    var maxReadBytes: Int { get }
    /// The contents of a file, or `nil` when it does not exist.
    /// - Throws: on a failed call, or (`EFBIG`) past ``maxReadBytes``.
    func readFile(_ path: String) throws(FileSystemError) -> [UInt8]?
    /// Creates a new file that must not exist yet (`O_CREAT | O_EXCL`), for writing.
    func createExclusive(_ path: String, mode: UInt32) throws(FileSystemError) -> Int32
    /// Flushes a file's data and metadata to the device.
    func fsync(_ fd: Int32, path: String) throws(FileSystemError)
    /// Opens an existing file for reading and writing.
    func openExisting(_ path: String) throws(FileSystemError) -> Int32
    /// Writes some of `bytes` at `offset`; returns how many were written (a short write is not an error).
    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int, path: String) throws(FileSystemError)
        -> Int
    /// Flushes a file's data, and only the metadata needed to read it back (`fdatasync`).
    func syncData(_ fd: Int32, path: String) throws(FileSystemError)
    /// Closes a file.
    func close(_ fd: Int32)
    /// Renames `from` to `to`, atomically replacing `to`.
    func rename(_ from: String, to: String) throws(FileSystemError)
    /// Flushes a directory, so renames and creations in it survive power loss.
    func fsyncDirectory(_ path: String) throws(FileSystemError)
    /// Removes a file; a missing file is not an error.
    func remove(_ path: String) throws(FileSystemError)
    /// Creates a directory and its parents, mode 0700.
    func createDirectory(_ path: String) throws(FileSystemError)
    /// Whether something exists at `path`.
    func fileExists(_ path: String) -> Bool
    /// The names in a directory (without `.` and `..`).
    func listDirectory(_ path: String) throws(FileSystemError) -> [String]
    /// Gives the file at `existing` a second name, `new`, which must not exist yet: a copy that costs no space.
    func link(_ existing: String, to new: String) throws(FileSystemError)
}

/// The real file system, through POSIX calls.
package struct PosixFileSystem: FileSystem {
    /// The most a file may hold to be read whole: a fixture or state file is far smaller (a hundred thousand
    /// lights' state is about 15 MB), and a device or a pipe that never ends, named by mistake, must not
    /// fill the memory.
    package let maxReadBytes: Int

    /// A directory reached through an open descriptor: a path inside it is resolved from the descriptor
    /// (`openat` and its kin), so nothing on the way to it can be swapped after it was checked.
    let anchor: (path: String, descriptor: Int32)?

    /// The most a file may hold unless told otherwise: 1 GiB.
    package static let defaultMaxReadBytes = 1 << 30

    /// The real file system, reading files of up to `maxReadBytes` (``defaultMaxReadBytes`` unless told).
    /// - Parameter anchor: a directory open as `descriptor` (which must stay open while this is used), by
    ///   which paths inside `path` are reached.
    package init(maxReadBytes: Int = defaultMaxReadBytes, anchor: (path: String, descriptor: Int32)? = nil) {
        self.maxReadBytes = maxReadBytes
        self.anchor = anchor
    }

    /// Where a call on `path` starts: the anchor's descriptor and the rest of the path inside it, or the
    /// working directory and the path as it is.
    private func locate(_ path: String) -> (directory: Int32, name: String) {
        guard let anchor else { return (AT_FDCWD, path) }
        let root = anchor.path.hasSuffix("/") ? String(anchor.path.dropLast()) : anchor.path
        guard path == root || path.hasPrefix(root + "/") else { return (AT_FDCWD, path) }
        // What follows the directory, without the slashes that joined it ("DIR/" + "/state.json" has two): a
        // name that began with one would be absolute, and escape the descriptor.
        let rest = path.dropFirst(root.count).drop { $0 == "/" }
        return (anchor.descriptor, rest.isEmpty ? "." : String(rest))
    }

    /// Opens `path` with `flags` (and `mode`, for a file it creates), reached as ``locate(_:)`` says.
    /// - Throws: the failed call's `errno`, as `operation`.
    private func open(_ path: String, _ flags: Int32, mode: UInt32 = 0, operation: String = "open")
        throws(FileSystemError) -> Int32
    {
        let (directory, name) = locate(path)
        let fd = openat(directory, name, flags, mode_t(mode))
        if fd < 0 { throw FileSystemError(operation, path, errno: errno) }
        return fd
    }

    /// A state file's contents; `nil` when it does not exist.
    ///
    /// Only a regular file is a state file: anything else (a FIFO, a device, a socket) planted in its place is
    /// refused, and opening it never waits (`O_NONBLOCK`), as opening a FIFO would, for a writer that never
    /// comes.
    /// - Throws: `EFBIG` when the file holds more than ``maxReadBytes``; an error saying what the file is when
    ///   it is not a regular file.
    package func readFile(_ path: String) throws(FileSystemError) -> [UInt8]? {
        try read(path, regularOnly: true)?.bytes
    }

    /// The contents of a file the user names, which may be a pipe (`--fixture <(…)`) or a device, and whether
    /// it is a regular file (a pipe cannot be read twice); `nil` when it does not exist.
    ///
    /// A regular file is read as it is. Anything else is opened without waiting (`O_NONBLOCK`: a FIFO would
    /// otherwise hold `open` until a writer comes) and then read as it comes, waiting in `poll` for a writer and
    /// for what it writes; `stop` ends that wait.
    /// - Parameters:
    ///   - limit: read at most this many bytes and stop there, without an error (the first of a longer file).
    ///   - stop: what ends a wait for a writer or for its bytes.
    /// - Throws: `EFBIG` when the file holds more than ``maxReadBytes`` (and no `limit` was given): a regular
    ///   file before it is read, a pipe or device once that much has come; `ECANCELED` when `stop` ended a wait.
    package func readAnyFile(_ path: String, atMost limit: Int? = nil, stop: WaitStop = .never)
        throws(FileSystemError) -> (bytes: [UInt8], isRegularFile: Bool)?
    {
        try read(path, regularOnly: false, limit: limit, stop: stop)
    }

    private func read(_ path: String, regularOnly: Bool, limit: Int? = nil, stop: WaitStop = .never)
        throws(FileSystemError) -> (bytes: [UInt8], isRegularFile: Bool)?
    {
        let fd: Int32
        do throws(FileSystemError) {
            fd = try open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        } catch let error where error.errno == ENOENT {
            return nil
        }
        defer { Glibc.close(fd) }
        var result: [UInt8] = []
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw FileSystemError("fstat", path, errno: errno) }
        let type = status.st_mode & S_IFMT
        let isRegular = type == S_IFREG
        if regularOnly, !isRegular {
            throw FileSystemError("open", path, problem: "not a regular file (\(Self.describe(type)))")
        }
        if isRegular {
            guard limit != nil || status.st_size <= maxReadBytes else {
                throw FileSystemError("read", path, errno: EFBIG)
            }
            // One allocation for the whole file, not one for each doubling.
            result.reserveCapacity(min(Int(status.st_size), limit ?? Int.max))
        }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            // A regular file never makes a reader wait; anything else may, for a writer or for its bytes.
            if !isRegular { try waitUntilReadable(fd, path, stop: stop) }
            let wanted = min(chunk.count, limit.map { $0 - result.count } ?? chunk.count)
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, wanted) }
            if count < 0 {
                // EAGAIN: what `poll` said was there went to another reader of the same pipe.
                if errno == EINTR || errno == EAGAIN { continue }
                throw FileSystemError("read", path, errno: errno)
            }
            if count == 0 { return (result, isRegular) }
            guard result.count + count <= maxReadBytes else { throw FileSystemError("read", path, errno: EFBIG) }
            result.append(contentsOf: chunk[0..<count])
            if let limit, result.count >= limit { return (result, isRegular) }
        }
    }

    /// Waits until `fd` has bytes or its writer has gone, or `stop` ends the wait.
    ///
    /// A FIFO opened without waiting and not yet written to is not at its end: `poll` waits for a writer to
    /// come (it reports the end only after one has come and gone).
    private func waitUntilReadable(_ fd: Int32, _ path: String, stop: WaitStop) throws(FileSystemError) {
        while true {
            var watched =
                [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
                + stop.sources.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            if poll(&watched, nfds_t(watched.count), -1) < 0 {
                if errno == EINTR { continue }
                throw FileSystemError("poll", path, errno: errno)
            }
            for (source, polled) in zip(stop.sources, watched.dropFirst()) where polled.revents != 0 {
                if source.isRequested() {
                    var error = FileSystemError("read", path, errno: ECANCELED)
                    error.problem = "stopped while waiting for it to be written"
                    throw error
                }
            }
            if watched[0].revents != 0 { return }
        }
    }

    package func createExclusive(_ path: String, mode: UInt32) throws(FileSystemError) -> Int32 {
        // O_EXCL also refuses to follow a symlink planted at the temporary name.
        try open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: mode)
    }

    package func fsync(_ fd: Int32, path: String) throws(FileSystemError) {
        if Glibc.fsync(fd) != 0 { throw FileSystemError("fsync", path, errno: errno) }
    }

    package func openExisting(_ path: String) throws(FileSystemError) -> Int32 {
        try open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
    }

    package func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int, path: String)
        throws(FileSystemError) -> Int
    {
        while true {
            let count = pwrite(fd, bytes.baseAddress, bytes.count, off_t(offset))
            if count >= 0 { return count }
            if errno != EINTR { throw FileSystemError("write", path, errno: errno) }
        }
    }

    package func syncData(_ fd: Int32, path: String) throws(FileSystemError) {
        if fdatasync(fd) != 0 { throw FileSystemError("fdatasync", path, errno: errno) }
    }

    package func close(_ fd: Int32) { _ = Glibc.close(fd) }

    package func rename(_ from: String, to: String) throws(FileSystemError) {
        let (fromDirectory, fromName) = locate(from)
        let (toDirectory, toName) = locate(to)
        if renameat(fromDirectory, fromName, toDirectory, toName) != 0 {
            throw FileSystemError("rename", from, errno: errno)
        }
    }

    package func fsyncDirectory(_ path: String) throws(FileSystemError) {
        let fd = try open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { Glibc.close(fd) }
        if Glibc.fsync(fd) != 0 { throw FileSystemError("fsync", path, errno: errno) }
    }

    package func remove(_ path: String) throws(FileSystemError) {
        let (directory, name) = locate(path)
        if unlinkat(directory, name, 0) != 0, errno != ENOENT { throw FileSystemError("unlink", path, errno: errno) }
    }

    package func fileExists(_ path: String) -> Bool {
        let (directory, name) = locate(path)
        return faccessat(directory, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0
    }

    package func listDirectory(_ path: String) throws(FileSystemError) -> [String] {
        let fd = try open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, operation: "opendir")
        guard let stream = fdopendir(fd) else {
            let code = errno
            Glibc.close(fd)
            throw FileSystemError("opendir", path, errno: code)
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    package func link(_ existing: String, to new: String) throws(FileSystemError) {
        let (fromDirectory, fromName) = locate(existing)
        let (toDirectory, toName) = locate(new)
        if linkat(fromDirectory, fromName, toDirectory, toName, 0) != 0 {
            throw FileSystemError("link", existing, errno: errno)
        }
    }

    package func createDirectory(_ path: String) throws(FileSystemError) {
        let (directory, name) = locate(path)
        var prefix = name.hasPrefix("/") ? "" : "."
        for component in name.split(separator: "/") {
            prefix += "/" + component
            if mkdirat(directory, prefix, 0o700) != 0, errno != EEXIST {
                throw FileSystemError("mkdir", prefix, errno: errno)
            }
        }
    }
}

extension FileSystem {
    /// Creates `path` (which must not exist), writes `bytes` to it and `fsync`s it; on failure removes it.
    /// Its directory entry is made durable only by a later ``fsyncDirectory(_:)``.
    package func writeDurably(_ bytes: [UInt8], to path: String, mode: UInt32 = 0o600) throws(FileSystemError) {
        try remove(path)
        let fd = try createExclusive(path, mode: mode)
        do throws(FileSystemError) {
            try writeAll(fd, bytes, at: 0, path: path)
            try fsync(fd, path: path)
            close(fd)
        } catch {
            close(fd)
            try? remove(path)
            throw error
        }
    }

    /// Writes every byte of `bytes` at `offset`, resuming short writes.
    func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int, path: String) throws(FileSystemError) {
        let failure: FileSystemError? = bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                do throws(FileSystemError) {
                    let written = try write(
                        fd, UnsafeRawBufferPointer(rebasing: buffer[done...]), at: offset + done, path: path)
                    // A write that makes no progress would loop forever; treat it as an I/O error.
                    if written == 0 { return FileSystemError("write", path, errno: EIO) }
                    done += written
                } catch {
                    return error
                }
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// What a file of type `type` (`st_mode & S_IFMT`) is, in words.
    static func describe(_ type: mode_t) -> String {
        switch type {
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFDIR: "a directory"
        default: "of type \(String(type, radix: 8))"
        }
    }

    /// The directory part of a path ("." when there is none).
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
