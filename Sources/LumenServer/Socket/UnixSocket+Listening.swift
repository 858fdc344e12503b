import CLinux
import LumenProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// The user and process on the other end of a Unix socket (`SO_PEERCRED`).
struct PeerCredentials: Sendable, Hashable {
    /// The peer's process ID.
    var pid: Int32
    /// Its user ID.
    var uid: UInt32
    /// Its group ID.
    var gid: UInt32
}

extension UnixSocket {
    /// Binds and listens on `path`, refusing to take over a socket that another live daemon is serving.
    ///
    /// If something is at `path`, it connects first: a socket that answers belongs to a running daemon and
    /// is left alone; a stale socket file (connection refused) is removed; anything that is not a socket is
    /// never removed. The socket file's mode is 0660: owner and group.
    package static func listen(at path: String) throws(SocketError) -> Int32 {
        var info = stat()
        if lstat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFSOCK else {
                throw SocketError(
                    "bind \(path)", errno: EEXIST, detail: "a file that is not a socket is in the way; remove it")
            }
            if let probe = try? connect(to: path) {
                close(probe)
                throw SocketError(
                    "bind \(path)", errno: EADDRINUSE,
                    detail: "another lumend is serving this socket; stop it or choose another --socket")
            }
            unlink(path)
        }
        let fd = try makeSocket()
        // Create the file with the final mode: no window where a wider mode is visible.
        let previousMask = umask(~0o660 & 0o777)
        let bound = try withAddress(path) { bind(fd, $0, $1) }
        let bindErrno = errno
        umask(previousMask)
        if bound != 0 {
            close(fd)
            throw SocketError("bind \(path)", errno: bindErrno)
        }
        if Glibc.listen(fd, 128) != 0 {
            let error = errno
            close(fd)
            throw SocketError("listen \(path)", errno: error)
        }
        return fd
    }

    /// The path a listening socket is bound to, if it has one.
    package static func boundPath(of fd: Int32) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        let path = withUnsafeBytes(of: &address.sun_path) { raw -> String in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
        return path.isEmpty ? nil : path
    }

    /// Whether `fd` is a listening stream socket (what socket activation must hand over).
    package static func isListeningStreamSocket(_ fd: Int32) -> Bool {
        var type: Int32 = 0
        var accepting: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0 else { return false }
        length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &length) == 0 else { return false }
        return type == Int32(SOCK_STREAM.rawValue) && accepting != 0
    }

    /// The peer's credentials.
    static func peerCredentials(of fd: Int32) -> PeerCredentials? {
        // Glibc hides `struct ucred` behind _GNU_SOURCE; this has its layout (pid_t, uid_t, gid_t).
        struct UCred {
            var pid: Int32 = 0
            var uid: UInt32 = 0
            var gid: UInt32 = 0
        }
        var credentials = UCred()
        var length = socklen_t(MemoryLayout<UCred>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
    }

    /// Sets the socket option `option` at `level` to `value`, for the many options that take an `Int32`. A
    /// failure is ignored: each option tunes a socket that is used all the same without it.
    static func setOption(_ fd: Int32, _ level: Int32, _ option: Int32, to value: Int32) {
        var value = value
        _ = setsockopt(fd, level, option, &value, socklen_t(MemoryLayout<Int32>.size))
    }
}
