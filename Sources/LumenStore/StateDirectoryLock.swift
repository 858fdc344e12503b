#if canImport(Glibc)
    import Glibc
#endif

/// An exclusive lock on a state directory, held for the life of the process: one lumend per directory.
///
/// It is an `flock` on the directory itself, which works on a read-only file system too, and the holder's PID
/// is written to `lumend.lock` beside the state (when the directory is writable) so that a second lumend can
/// say who holds it. The lock goes with the process, however it ends: nothing is left to clean up after
/// `kill -9`.
package final class StateDirectoryLock: Sendable {
    /// The file that names the holder.
    static let fileName = "lumend.lock"

    /// Another process holds the lock.
    package struct InUse: Error, Sendable, CustomStringConvertible {
        /// The directory.
        var directory: String
        /// The holder's PID, when it could be found.
        package var holder: Int32?

        package var description: String {
            let who = holder.map { "lumend (PID \($0))" } ?? "another process"
            return "the state directory \(directory) is in use by \(who); two daemons on one state directory "
                + "would lose each other's writes. Stop that one, or give this one another --state-dir"
        }
    }

    /// The lock could not be taken for another reason.
    struct Failure: Error, Sendable, CustomStringConvertible {
        /// What failed.
        var description: String
    }

    private let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    /// Takes the lock on `directory` without waiting.
    /// - Throws: ``InUse`` when another process holds it; ``Failure`` when the directory cannot be opened.
    ///   - descriptor: the directory, already open (``TrustedDirectory``): it is locked through a descriptor of
    ///     its own opened from this one, so the path is not resolved again.
    package static func acquire(_ directory: String, descriptor: Int32? = nil) throws -> StateDirectoryLock {
        let fd =
            descriptor.map { openat($0, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
            ?? open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            throw Failure(
                description: "cannot open the state directory \(directory): \(String(cString: strerror(errno)))")
        }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            close(fd)
            if code == EWOULDBLOCK { throw InUse(directory: directory, holder: holder(of: directory)) }
            throw Failure(
                description: "cannot lock the state directory \(directory): \(String(cString: strerror(code)))")
        }
        writePID(in: fd)
        return StateDirectoryLock(fd: fd)
    }

    /// Lets go of the lock (it also goes when the process ends).
    package func release() { close(fd) }

    /// Records this process as the holder; a read-only directory simply keeps no record.
    private static func writePID(in directory: Int32) {
        let file = openat(directory, fileName, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard file >= 0 else { return }
        defer { close(file) }
        let text = "\(getpid())\n"
        _ = ftruncate(file, 0)
        _ = text.withCString { pwrite(file, $0, strlen($0), 0) }
    }

    /// The holder's PID from `/proc/locks`, or from `lumend.lock` when the kernel does not say: the file may
    /// still name an earlier holder, which has died, until the new one writes its own.
    private static func holder(of directory: String) -> Int32? {
        if let pid = lockHolderFromProc(directory) { return pid }
        // Read as a state file is: one planted in its place that is not a regular file (a FIFO), or is longer than
        // a PID could make it, is no record.
        guard let bytes = try? PosixFileSystem(maxReadBytes: 64).readFile("\(directory)/\(fileName)"),
            let pid = Int32(String(decoding: bytes, as: UTF8.self).filter(\.isNumber)), pid > 0
        else { return nil }
        return pid
    }

    /// Finds the PID holding an `flock` on `directory`'s inode in `/proc/locks`.
    private static func lockHolderFromProc(_ directory: String) -> Int32? {
        var info = stat()
        guard stat(directory, &info) == 0 else { return nil }
        guard let bytes = try? PosixFileSystem().readFile("/proc/locks") else { return nil }
        let inode = ":\(info.st_ino)"
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"
            guard fields.count >= 6, fields[1] == "FLOCK", fields[5].hasSuffix(inode) else { continue }
            return Int32(fields[4])
        }
        return nil
    }
}
