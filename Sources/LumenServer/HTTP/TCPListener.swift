import LumenProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// Opens listening TCP sockets.
package enum TCPListener {
    /// A socket listening on `address`, non-blocking and closed on `exec`; with port 0, on the port the kernel
    /// chose (``boundPort(_:)``).
    /// - Throws: ``SocketError`` when the address is not numeric, or binding fails (in use, not permitted).
    package static func listen(on address: TCPAddress) throws(SocketError) -> Int32 {
        let fd = try address.boundSocket(type: Int32(SOCK_STREAM.rawValue)) { fd in
            UnixSocket.setOption(fd, SOL_SOCKET, SO_REUSEADDR, to: 1)
        }
        guard Glibc.listen(fd, 128) == 0 else {
            let error = SocketError("listen on \(address)", errno: errno)
            close(fd)
            throw error
        }
        UnixSocket.setNonBlocking(fd)
        return fd
    }

    /// Whether `fd` is a TCP socket (IPv4 or IPv6), as opposed to a Unix one.
    package static func isTCP(_ fd: Int32) -> Bool { boundAddress(fd) != nil }

    /// The port a socket is bound to (a listening TCP socket, or a UDP one).
    package static func boundPort(_ fd: Int32) -> UInt16? { boundAddress(fd)?.port }

    /// The address a listening socket is bound to (systemd's, under socket activation); `nil` when it is not an
    /// IPv4 or IPv6 socket.
    package static func boundAddress(_ fd: Int32) -> TCPAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let found = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return found == 0 ? TCPAddress(storage) : nil
    }
}
