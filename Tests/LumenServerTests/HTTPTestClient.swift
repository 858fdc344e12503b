import LumenProtocol
import LumenTestSupport

@testable import LumenServer

#if canImport(Glibc)
    import Glibc
#endif

/// A plain HTTP client over a real TCP socket, for the tests of the HTTP listener and what it serves. Its
/// blocking calls run on threads of their own: they must not hold a thread of the pool the server's tasks run on.
enum HTTPTestClient {
    /// Sends `request` whole on a new connection and reads until the server closes it.
    static func exchange(_ port: UInt16, _ request: String) async throws -> String {
        try await offload {
            let fd = try connected(port)
            defer { close(fd) }
            send(fd, request)
            var received: [UInt8] = []
            while let bytes = receive(fd) { received += bytes }
            return String(decoding: received, as: UTF8.self)
        }
    }

    /// Sends `request` whole on a new connection from `source` (a loopback address) and reads until the server
    /// closes it.
    static func exchange(_ port: UInt16, _ request: String, from source: String) async throws -> String {
        try await offload {
            let fd = try connected(port, from: source)
            defer { close(fd) }
            send(fd, request)
            var received: [UInt8] = []
            while let bytes = receive(fd) { received += bytes }
            return String(decoding: received, as: UTF8.self)
        }
    }

    /// A socket connected to the server on `port`, whose reads give up after 30 s, so that a server that never
    /// answers fails the test rather than holding it.
    static func connected(_ port: UInt16) throws -> Int32 {
        let fd = try TCPAddress(host: "127.0.0.1", port: port).connectedSocket(type: Int32(SOCK_STREAM.rawValue))
        var limit = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// A socket connected to the server on `port` from `source`, an IPv4 loopback address other than 127.0.0.1
    /// (all of 127.0.0.0/8 is this machine's), so that the server takes it for another client; its reads give up
    /// after 30 s.
    static func connected(_ port: UInt16, from source: String) throws -> Int32 {
        let fd = try TCPAddress(host: source, port: 0).boundSocket(type: Int32(SOCK_STREAM.rawValue)) { _ in }
        var limit = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var server = sockaddr_in()
        server.sin_family = sa_family_t(AF_INET)
        server.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &server.sin_addr)
        let connected = withUnsafePointer(to: &server) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let error = SocketError("connect from \(source)", errno: errno)
            close(fd)
            throw error
        }
        return fd
    }

    static func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// What the next read gives; `nil` at the end of the stream, or after 30 s without a byte.
    static func receive(_ fd: Int32) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return count > 0 ? Array(buffer[0..<count]) : nil
    }
}

/// A `GET` whose response stays open (an events stream), read as it comes.
final class HTTPStreamReader: Sendable {
    let fd: Int32
    private let received = Locked("")

    /// Opens `path` on the server on `port`, with `headers` (lines, each ending in `\r\n`).
    init(port: UInt16, path: String, headers: String = "") throws {
        fd = try HTTPTestClient.connected(port)
        HTTPTestClient.send(fd, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(headers)\r\n")
    }

    deinit { close(fd) }

    /// Everything read, once it contains `text` (or the stream ended, or 30 s passed without a byte).
    func read(until text: String) async throws -> String {
        await offload { [self] in
            while !received.withLock({ $0.contains(text) }) {
                guard let bytes = HTTPTestClient.receive(fd) else { break }
                received.withLock { $0 += String(decoding: bytes, as: UTF8.self) }
            }
            return received.withLock { $0 }
        }
    }

    /// Reads until the server closes the stream; returns everything read.
    func readToEnd() async throws -> String {
        await offload { [self] in
            while let bytes = HTTPTestClient.receive(fd) {
                received.withLock { $0 += String(decoding: bytes, as: UTF8.self) }
            }
            return received.withLock { $0 }
        }
    }
}
