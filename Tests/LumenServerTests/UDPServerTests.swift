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
    /// Sends `datagrams` in order to `address` from a new socket and returns the first datagram that comes back
    /// within 10 s, or `nil`.
    static func exchange(_ datagrams: [[UInt8]], with address: TCPAddress) async -> [UInt8]? {
        await offload {
            guard let fd = try? address.connectedSocket(type: Int32(SOCK_DGRAM.rawValue)) else { return nil }
            defer { close(fd) }
            var limit = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            for datagram in datagrams where send(fd, datagram, datagram.count, 0) != datagram.count {
                return nil
            }
            var buffer = [UInt8](repeating: 0, count: 1_500)
            let count = recv(fd, &buffer, buffer.count, 0)
            return count >= 0 ? Array(buffer[0..<count]) : nil
        }
    }

    @Test(arguments: ["127.0.0.1", "::1"])
    func aDatagramIsAnsweredByItsWorkAndOneItDropsIsNot(host: String) async throws {
        let fd: Int32
        do {
            fd = try UDPServer.bind(TCPAddress(host: host, port: 0))
        } catch {
            print("SKIPPED: UDP on \(host): \(error)")
            return
        }
        let port = try #require(TCPListener.boundPort(fd))
        // Answers a datagram with it reversed, once the work has awaited; drops one that starts with 0.
        let server = UDPServer(fd: fd) { datagram, _ in
            guard datagram.first != 0 else { return nil }
            return { send in
                await Task.yield()
                send([datagram.reversed()])
            }
        }
        let task = Task { try await server.run() }
        defer { task.cancel() }
        // The first datagram is dropped, so the first answer is the second's.
        #expect(await Self.exchange([[0, 1], [1, 2, 3]], with: TCPAddress(host: host, port: port)) == [3, 2, 1])
    }
}
