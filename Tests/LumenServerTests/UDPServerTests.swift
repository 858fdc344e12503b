import LumenProtocol
import LumenTestSupport
import Testing

@testable import LumenServer

#if canImport(Glibc)
    import Glibc
#endif

/// The UDP listener the LIFX front answers through: each datagram to `respond`, its work's datagrams back to the
/// sender, on IPv4 and IPv6.
@Suite("UDP server", .timeLimit(.minutes(1)))
struct UDPServerTests {
    /// Sends `datagrams` in order from a new socket of `family` to `port` on the loopback address and returns
    /// the first datagram that comes back within 10 s, or `nil`.
    static func exchange(_ datagrams: [[UInt8]], family: Int32, port: UInt16) async -> [UInt8]? {
        await offload {
            let fd = socket(family, Int32(SOCK_DGRAM.rawValue), 0)
            defer { close(fd) }
            var limit = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            for datagram in datagrams where send(datagram, from: fd, family: family, port: port) != datagram.count {
                return nil
            }
            var buffer = [UInt8](repeating: 0, count: 1_500)
            let count = recv(fd, &buffer, buffer.count, 0)
            return count >= 0 ? Array(buffer[0..<count]) : nil
        }
    }

    /// Sends `datagram` from `fd` to `port` on the loopback address of `family`; returns what `sendto` did.
    static func send(_ datagram: [UInt8], from fd: Int32, family: Int32, port: UInt16) -> Int {
        if family == AF_INET6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = in6addr_loopback
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, datagram, datagram.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, datagram, datagram.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    @Test(arguments: [("127.0.0.1", AF_INET), ("::1", AF_INET6)])
    func aDatagramIsAnsweredByItsWorkAndOneItDropsIsNot(host: String, family: Int32) async throws {
        let fd: Int32
        do {
            fd = try UDPServer.bind(TCPAddress(host: host, port: 0))
        } catch {
            print("SKIPPED: UDP on \(host): \(error)")
            return
        }
        let port = try #require(TCPListener.boundPort(fd))
        // Answers a datagram with it reversed, once the work has awaited; drops one that starts with 0.
        let server = UDPServer(fd: fd) { datagram in
            guard datagram.first != 0 else { return nil }
            return { send in
                await Task.yield()
                send([datagram.reversed()])
            }
        }
        let task = Task { try await server.run() }
        defer { task.cancel() }
        // The first datagram is dropped, so the first answer is the second's.
        #expect(await Self.exchange([[0, 1], [1, 2, 3]], family: family, port: port) == [3, 2, 1])
    }
}
