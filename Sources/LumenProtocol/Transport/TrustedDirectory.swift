#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A directory lumend may keep its socket or state in, opened by walking its path one component at a time
/// from `/`, as the kernel resolves it, and checking everything on the way.
///
/// As OpenSSH's `StrictModes` does for its files: every directory on the path must be owned by the user or by
/// root, and writable by no one else (its group may write when that group is the user's own). A directory
/// above may be sticky and writable by all, as `/tmp` is (nobody may rename or remove another's entries
/// there); the directory itself may not, since anyone could still place a file of their own in it. A symbolic
/// link on the way must be owned by the user or root too, and its target's path is walked and checked in
/// turn. Each component is opened relative to the one checked before it (`openat` with `O_NOFOLLOW`) and
/// checked through that descriptor, so nothing on the path can be swapped between the check and the use.
///
/// A directory opened is held to the user and root alone. ``distrust(_:trustingSystemAccounts:)``, which only checks,
/// may also let a directory or link belong to a system account (the system lumend's runtime directory belongs to
/// the user systemd runs it as).
package final class TrustedDirectory: Sendable {
    /// Why a directory is not trusted: what is wrong and what to do, in words for a message.
    package struct Distrust: Error, Sendable, CustomStringConvertible {
        /// The reason.
        package var description: String
    }

    /// The directory, open for reading (for `openat`, `flock` and `fsync`).
    package let descriptor: Int32
    /// The path it was opened by, made absolute.
    package let path: String

    /// Opens `path` (made absolute against the working directory), creating what is missing (mode 0700).
    /// - Throws: ``Distrust`` when anything on the path could be changed by another user, or a call fails.
    package init(opening path: String) throws(Distrust) {
        let absolute = Self.absolute(path)
        var walk = Walk(trustingSystemAccounts: false)
        guard let found = try walk.resolve(absolute, creating: true) else {
            throw Distrust(description: "\(absolute) does not exist")
        }
        defer { close(found) }
        let fd = openat(found, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Distrust(description: "cannot open \(absolute): \(Self.error(errno))") }
        descriptor = fd
        self.path = absolute
    }

    deinit { close(descriptor) }

    /// Why `path` cannot be trusted, or `nil` when it can: checked up to the part of it that exists (lumend
    /// creates the rest itself, mode 0700). Nothing is created.
    package static func distrust(_ path: String, trustingSystemAccounts: Bool) -> String? {
        var walk = Walk(trustingSystemAccounts: trustingSystemAccounts)
        do throws(Distrust) {
            if let fd = try walk.resolve(absolute(path), creating: false) { close(fd) }
            return nil
        } catch {
            return error.description
        }
    }

    /// `path`, made absolute against the working directory.
    package static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" + path }
        let directory = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (directory == "/" ? "" : directory) + "/" + path
    }

    static func error(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// One resolution of a path: where it has got to, and how many links it has followed.
    private struct Walk {
        /// This process's user, whom every step must belong to (or root, or a system account when trusted).
        let uid = geteuid()
        let trustingSystemAccounts: Bool
        var links = 0

        /// An `O_PATH` descriptor of the directory `path` names, every step checked; `nil` when a part of it
        /// does not exist and `creating` is off.
        mutating func resolve(_ path: String, creating: Bool) throws(Distrust) -> Int32? {
            var current = open("/", pathOnly | O_DIRECTORY | O_CLOEXEC)
            guard current >= 0 else { throw Distrust(description: "cannot open /: \(error(errno))") }
            var shown = ""
            // The components still to walk, the next one last.
            var pending = Array(path.split(separator: "/").reversed())
            do throws(Distrust) {
                try check(current, shown: "/", isLast: pending.isEmpty)
                while let name = pending.popLast() {
                    if name == "." { continue }
                    if name == ".." {
                        // Back to the directory above, checked again: a link may have led here from elsewhere.
                        let parent = openat(current, "..", pathOnly | O_DIRECTORY | O_CLOEXEC)
                        guard parent >= 0 else {
                            throw Distrust(description: "cannot open \(shown)/..: \(error(errno))")
                        }
                        close(current)
                        current = parent
                        shown = String(shown[..<(shown.lastIndex(of: "/") ?? shown.startIndex)])
                        try check(current, shown: shown.isEmpty ? "/" : shown, isLast: pending.isEmpty)
                        continue
                    }
                    let next = "\(shown)/\(name)"
                    var fd = openat(current, String(name), pathOnly | O_NOFOLLOW | O_CLOEXEC)
                    if fd < 0, errno == ENOENT {
                        guard creating else {
                            close(current)
                            return nil
                        }
                        // As the kernel would, a missing directory that the path then leaves with `..` is an
                        // error, not one to make.
                        guard !pending.contains("..") else { throw Distrust(description: "\(next) does not exist") }
                        if mkdirat(current, String(name), 0o700) != 0, errno != EEXIST {
                            throw Distrust(description: "cannot create \(next): \(error(errno))")
                        }
                        fd = openat(current, String(name), pathOnly | O_NOFOLLOW | O_CLOEXEC)
                    }
                    guard fd >= 0 else { throw Distrust(description: "cannot open \(next): \(error(errno))") }
                    var info = stat()
                    guard fstat(fd, &info) == 0 else {
                        close(fd)
                        throw Distrust(description: "cannot examine \(next): \(error(errno))")
                    }
                    if info.st_mode & S_IFMT == S_IFLNK {
                        defer { close(fd) }
                        let target = try follow(fd, info, shown: next)
                        if target.hasPrefix("/") {
                            close(current)
                            current = open("/", pathOnly | O_DIRECTORY | O_CLOEXEC)
                            shown = ""
                        }
                        pending += target.split(separator: "/").reversed()
                        continue
                    }
                    close(current)
                    current = fd
                    shown = next
                    guard info.st_mode & S_IFMT == S_IFDIR else {
                        throw Distrust(description: "\(shown) is not a directory")
                    }
                    try check(current, shown: shown, isLast: pending.isEmpty)
                }
                return current
            } catch {
                close(current)
                throw error
            }
        }

        /// The target of the link open as `fd`, once the link's owner is found trustworthy.
        mutating func follow(_ fd: Int32, _ info: stat, shown: String) throws(Distrust) -> String {
            links += 1
            guard links <= 40 else { throw Distrust(description: "\(shown): too many levels of symbolic links") }
            let owner = UInt32(info.st_uid)
            guard isTrusted(owner) else {
                throw Distrust(
                    description: "\(shown) is a symbolic link that uid \(owner) owns, not uid \(uid) or root, so "
                        + "that user could point it elsewhere; replace it with the directory it points to, or "
                        + "choose another path")
            }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlinkat(fd, "", &buffer, buffer.count - 1)
            guard count > 0 else { throw Distrust(description: "cannot read the link \(shown): \(error(errno))") }
            return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }

        /// Checks a directory on the path through its descriptor.
        func check(_ fd: Int32, shown: String, isLast: Bool) throws(Distrust) {
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw Distrust(description: "cannot examine \(shown): \(error(errno))") }
            let owner = UInt32(info.st_uid)
            let mode = UInt32(info.st_mode) & 0o7777
            guard isTrusted(owner) else {
                throw Distrust(
                    description: "\(shown) belongs to uid \(owner), not to uid \(uid) or root, so that user could "
                        + "replace what lumend keeps there; remove it (or chown it to uid \(uid) and chmod 700), or "
                        + "choose another directory")
            }
            // Group-writable is fine when the group is the user's own (a user private group).
            let groupWritable = mode & 0o020 != 0 && UInt32(info.st_gid) != getegid()
            let sticky = mode & UInt32(S_ISVTX) != 0
            guard mode & 0o002 != 0 || groupWritable else { return }
            if sticky && !isLast { return }
            let octal = String(mode, radix: 8)
            throw Distrust(
                description: "\(shown) is writable by other users (mode \(octal))"
                    + (sticky ? ", and even sticky they could place files of their own in it" : "")
                    + ", so they could replace what lumend keeps there; chmod go-w \(shown), or choose another "
                    + "directory")
        }

        func isTrusted(_ owner: UInt32) -> Bool {
            owner == uid || owner == 0 || trustingSystemAccounts && LumenPaths.isSystemAccount(owner)
        }
    }
}

#if os(Linux)
    /// Linux's `O_PATH` (Glibc hides it behind `_GNU_SOURCE`): a descriptor that names a file without opening
    /// it, enough to `fstat` it and to resolve names relative to it, and, with `O_NOFOLLOW`, a link itself.
    private let pathOnly: Int32 = 0o10_000_000
#else
    /// Elsewhere a descriptor open for reading: a link on the path then fails to open (`O_NOFOLLOW`), and is
    /// refused rather than checked.
    private let pathOnly: Int32 = O_RDONLY
#endif
