import CLinux
import LumenProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// A numeric IP address and port, as `--http 127.0.0.1:8080` or `--http [::1]:8080` gives it: what a TCP or UDP
/// socket is bound or connected to.
public struct TCPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The numeric IPv4 or IPv6 address.
    package var host: String
    /// The port; 0 lets the kernel choose.
    package var port: UInt16

    /// Reads `HOST:PORT` (an IPv6 host in brackets); `nil` when it is not one.
    package init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        // Numeric only: a name would be looked up, and could mean another address tomorrow.
        var v4 = in_addr()
        var v6 = in6_addr()
        guard inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1 else { return nil }
        self.host = host
        self.port = port
    }

    /// An address.
    package init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// The address in a socket address, as `getsockname`, `accept` or `recvmsg` gives it; `nil` when it is not
    /// an IPv4 or IPv6 one.
    init?(_ storage: sockaddr_storage) {
        var storage = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let port = withUnsafePointer(to: &storage) { pointer -> UInt16? in
            switch Int32(pointer.pointee.ss_family) {
            case AF_INET:
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address -> UInt16? in
                    var bytes = address.pointee.sin_addr
                    guard inet_ntop(AF_INET, &bytes, &text, socklen_t(text.count)) != nil else { return nil }
                    return UInt16(bigEndian: address.pointee.sin_port)
                }
            case AF_INET6:
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address -> UInt16? in
                    var bytes = address.pointee.sin6_addr
                    guard inet_ntop(AF_INET6, &bytes, &text, socklen_t(text.count)) != nil else { return nil }
                    return UInt16(bigEndian: address.pointee.sin6_port)
                }
            default: return nil
            }
        }
        guard let port else { return nil }
        self.host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Whether it is a loopback address, which only this machine reaches.
    package var isLoopback: Bool { host == "::1" || host.hasPrefix("127.") }
}

extension TCPAddress {
    /// A socket of `type` (`SOCK_STREAM`, `SOCK_DGRAM`) bound to this address, closed on `exec`; `configure`
    /// sets its options before it is bound.
    /// - Throws: ``SocketError`` when the address is not numeric, or binding fails (in use, not permitted).
    func boundSocket(type: Int32, configure: (Int32) -> Void) throws(SocketError) -> Int32 {
        try socket(type, configure: configure, operation: "bind") { bind($0, $1, $2) }
    }

    /// A blocking socket of `type` (`SOCK_STREAM`, `SOCK_DGRAM`) connected to this address, closed on `exec`:
    /// a client's, as the benchmarks and tests use.
    /// - Throws: ``SocketError`` when the address is not numeric, or connecting fails (nothing listens).
    package func connectedSocket(type: Int32) throws(SocketError) -> Int32 {
        try socket(type, configure: { _ in }, operation: "connect") { connect($0, $1, $2) }
    }

    /// A socket of `type` in this address's family, set up by `configure` and then given the address by
    /// `attach` (`bind` or `connect`).
    private func socket(
        _ type: Int32, configure: (Int32) -> Void, operation: String,
        attach: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32
    ) throws(SocketError) -> Int32 {
        let made: Result<Int32, SocketError>? = withSocketAddress { family, address, length in
            let fd = Glibc.socket(family, type | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { return .failure(SocketError("socket", errno: errno)) }
            configure(fd)
            guard attach(fd, address, length) == 0 else {
                let error = SocketError("\(operation) \(self)", errno: errno)
                close(fd)
                return .failure(error)
            }
            return .success(fd)
        }
        guard let made else {
            throw SocketError(operation, errno: EINVAL, detail: "'\(host)' is not a numeric IPv4 or IPv6 address")
        }
        return try made.get()
    }

    /// `body` given this address as a `sockaddr` of its family, with the family and the length; `nil` when the
    /// host is not a numeric address.
    private func withSocketAddress<T>(
        _ body: (_ family: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> T
    ) -> T? {
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            return Self.asSocketAddress(v4, family: AF_INET, body)
        }
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            return Self.asSocketAddress(v6, family: AF_INET6, body)
        }
        return nil
    }

    /// `body` given `address` (a `sockaddr_in` or `sockaddr_in6` of `family`) as the `sockaddr` it starts with,
    /// and its length.
    private static func asSocketAddress<Address, T>(
        _ address: Address, family: Int32,
        _ body: (_ family: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> T
    ) -> T {
        withUnsafePointer(to: address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body(family, $0, socklen_t(MemoryLayout<Address>.size))
            }
        }
    }
}
