import LumenProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// Opens listening TCP sockets.
public enum TCPListener {
    /// A socket listening on `address`, non-blocking and closed on `exec`; with port 0, on the port the kernel
    /// chose (``boundPort(_:)``).
    /// - Throws: ``SocketError`` when the address is not numeric, or binding fails (in use, not permitted).
    package static func listen(on address: TCPAddress, backlog: Int32 = 128) throws(SocketError) -> Int32 {
        let fd = try address.boundSocket(type: Int32(SOCK_STREAM.rawValue)) { fd in
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let error = SocketError("listen on \(address)", errno: errno)
            close(fd)
            throw error
        }
        UnixSocket.setNonBlocking(fd)
        return fd
    }

    /// Whether `fd` is a TCP socket (IPv4 or IPv6), as opposed to a Unix one.
    public static func isTCP(_ fd: Int32) -> Bool { boundAddress(fd) != nil }

    /// The port a socket is bound to (a listening TCP socket, or a UDP one).
    public static func boundPort(_ fd: Int32) -> UInt16? { boundAddress(fd)?.port }

    /// The address a listening socket is bound to (systemd's, under socket activation); `nil` when it is not an
    /// IPv4 or IPv6 socket.
    public static func boundAddress(_ fd: Int32) -> TCPAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let found = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard found == 0 else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        func hostText() -> String {
            String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return withUnsafePointer(to: &storage) { pointer -> TCPAddress? in
            switch Int32(pointer.pointee.ss_family) {
            case AF_INET:
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var bytes = address.pointee.sin_addr
                    guard inet_ntop(AF_INET, &bytes, &text, socklen_t(text.count)) != nil else { return nil }
                    return TCPAddress(host: hostText(), port: UInt16(bigEndian: address.pointee.sin_port))
                }
            case AF_INET6:
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var bytes = address.pointee.sin6_addr
                    guard inet_ntop(AF_INET6, &bytes, &text, socklen_t(text.count)) != nil else { return nil }
                    return TCPAddress(host: hostText(), port: UInt16(bigEndian: address.pointee.sin6_port))
                }
            default: return nil
            }
        }
    }
}
