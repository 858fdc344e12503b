import LumenLoop
import LumenModel
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
        let server = UDPServer(fd: fd) { datagram, _, _ in
            guard datagram.first != 0 else { return nil }
            return { send in
                await Task.yield()
                send([datagram.reversed()], nil)
            }
        }
        let task = Task { try await server.run() }
        defer { task.cancel() }
        // The first datagram is dropped, so the first answer is the second's.
        #expect(await Self.exchange([[0, 1], [1, 2, 3]], with: TCPAddress(host: host, port: port)) == [3, 2, 1])
    }

    /// Given a loop (the home's, in lumend), the server reads and answers on it, leaves it running at its stop,
    /// and sends nothing once its socket is closed: not through a socket that took the closed one's number.
    @Test func aServerOnALoopItIsGivenLeavesItRunningAndSendsNothingAfterItsStop() async throws {
        let loop = EventLoop(name: "test.udp")
        defer { Task { await loop.shutDown() } }
        let fd = try UDPServer.bind(TCPAddress(host: "127.0.0.1", port: 0))
        let port = try #require(TCPListener.boundPort(fd))
        let (started, startedWork) = AsyncStream.makeStream(of: Void.self)
        let (gate, openGate) = AsyncStream.makeStream(of: Void.self)
        let (sentLate, lateWasSent) = AsyncStream.makeStream(of: Void.self)
        // The first byte 1 is answered at once, on the given loop; 2 once the gate opens.
        let server = UDPServer(fd: fd, loop: loop) { datagram, _, _ in
            let onLoop = loop.isCurrent
            return { send in
                if datagram.first == 2 {
                    startedWork.yield()
                    for await _ in gate { break }
                }
                send([[datagram[0], onLoop ? 1 : 0]], nil)
                if datagram.first == 2 { lateWasSent.yield() }
            }
        }
        let task = Task { try await server.run() }
        let client = try TCPAddress(host: "127.0.0.1", port: port).connectedSocket(type: Int32(SOCK_DGRAM.rawValue))
        defer { close(client) }
        var limit = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let answer: [UInt8]? = await offload {
            guard send(client, [UInt8(1)], 1, 0) == 1 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 16)
            let count = recv(client, &buffer, buffer.count, 0)
            return count > 0 ? Array(buffer[0..<count]) : nil
        }
        #expect(answer == [1, 1], "answered, and read on the loop given")
        #expect(send(client, [UInt8(2)], 1, 0) == 1)
        for await _ in started { break }
        task.cancel()
        try await task.value
        // Linux gives the lowest free number: most likely the server's, which a late answer must not reach. Bound
        // to the server's port, so that what it sent would reach the client, which hears only that address.
        let reused = try UDPServer.bind(TCPAddress(host: "127.0.0.1", port: port))
        defer { close(reused) }
        if reused != fd { print("the socket after the stop took another number than the server's: \(reused), \(fd)") }
        openGate.yield()
        for await _ in sentLate { break }
        // The late answer's send was queued on the loop before this block: once it has run, the answer was sent or
        // dropped, and a datagram sent on loopback has arrived.
        let loopRuns = await loop.executeAndWait { context in context != nil }
        #expect(loopRuns, "the loop outlives the server")
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(recv(client, &buffer, buffer.count, Int32(MSG_DONTWAIT)) == -1, "nothing is sent after the stop")
    }

    /// On the wildcard address, the server learns where each datagram was sent and answers from there: a client
    /// connected to one address of the host (and so hearing only that address) hears its answer.
    @Test func anAnswerLeavesFromTheAddressTheDatagramWasSentToAndABroadcastIsToldApart() async throws {
        let fd = try UDPServer.bind(TCPAddress(host: "0.0.0.0", port: 0))
        let port = try #require(TCPListener.boundPort(fd))
        // Answers with where the datagram went: the address's last byte, or 255 for a broadcast.
        let server = UDPServer(fd: fd) { _, destination, _ in
            { send in
                switch destination {
                case .address(let address): send([[UInt8(address.value & 0xFF)]], address)
                // Loopback is interface 1.
                case .broadcast(let interface): send([[interface == 1 ? 255 : 254]], IPv4Address("127.0.0.43"))
                case .unknown: send([[0]], nil)
                }
            }
        }
        let task = Task { try await server.run() }
        defer { task.cancel() }
        #expect(await Self.exchange([[1]], with: TCPAddress(host: "127.0.0.42", port: port)) == [42])
        #expect(await Self.exchange([[1]], with: TCPAddress(host: "127.0.0.43", port: port)) == [43])
        let broadcast: [UInt8]? = await offload {
            let client = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            defer { close(client) }
            var one: Int32 = 1
            setsockopt(client, SOL_SOCKET, SO_BROADCAST, &one, socklen_t(MemoryLayout<Int32>.size))
            var limit = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            inet_pton(AF_INET, "127.255.255.255", &address.sin_addr)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(client, [UInt8(1)], 1, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            var buffer = [UInt8](repeating: 0, count: 16)
            var from = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let count = withUnsafeMutablePointer(to: &from) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(client, &buffer, 16, 0, $0, &length) }
            }
            guard count == 1, UInt32(bigEndian: from.sin_addr.s_addr) == 0x7F00_002B else { return nil }
            return Array(buffer[0..<1])
        }
        #expect(broadcast == [255], "a broadcast is told apart, and answered from the address the server names")
    }

    /// The kernel's default receive buffer holds some 200 small datagrams, which a flood fills while the loop's
    /// thread waits for a busy CPU: the socket asks for more, as much as `net.core.rmem_max` allows.
    @Test func theSocketAsksForALargerReceiveBufferThanTheKernelsDefault() throws {
        let fd = try UDPServer.bind(TCPAddress(host: "127.0.0.1", port: 0))
        defer { close(fd) }
        var room: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        #expect(getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &room, &length) == 0)
        let limit = try String(contentsOfFile: "/proc/sys/net/core/rmem_max", encoding: .utf8)
        let allowed = try #require(Int32(limit.trimmingCharacters(in: .whitespacesAndNewlines)))
        // Linux doubles what it is asked for, for its own bookkeeping, after capping it.
        #expect(room == 2 * min(UDPServer.receiveBufferBytes, allowed))
    }

    @Test func broadcastsAreAnsweredFromTheInterfaceThatHoldsTheBulbsOrFromEveryOneForLoopback() {
        let lan = NetworkInterface(
            index: 2, address: IPv4Address("192.168.1.10")!, netmask: IPv4Address("255.255.255.0")!, isLoopback: false)
        let macvlan = NetworkInterface(
            index: 5, address: IPv4Address("192.168.1.50")!, netmask: IPv4Address("255.255.255.0")!, isLoopback: false)
        let loopback = NetworkInterface(
            index: 1, address: IPv4Address("127.0.0.1")!, netmask: IPv4Address("255.0.0.0")!, isLoopback: true)
        let rule = BroadcastRule(interfaces: [loopback, lan, macvlan])
        func reaches(_ bulb: String, on interface: Int32, from sender: String) -> Bool {
            rule.reaching(interface: interface, sender: sender)(IPv4Address(bulb)!)
        }
        #expect(!NetworkInterface.current().isEmpty, "this machine has at least loopback")
        // Bulbs on the macvlan: a LAN broadcast also arriving on the interface under it is not answered again.
        #expect(reaches("192.168.1.50", on: 5, from: "192.168.1.77:51234"))
        #expect(!reaches("192.168.1.50", on: 2, from: "192.168.1.77:51234"))
        // An address on the LAN's network that no interface holds: the interface of that network.
        #expect(reaches("192.168.1.60", on: 2, from: "192.168.1.77:51234"))
        #expect(!reaches("192.168.1.60", on: 5, from: "192.168.1.77:51234"))
        #expect(reaches("10.9.9.9", on: 5, from: "192.168.1.77:51234"), "on no interface's network: every interface")
        #expect(reaches("10.9.9.9", on: 2, from: "192.168.1.77:51234"))
        // Loopback bulbs take this machine's broadcasts, on whichever interface they loop back, and no other
        // host's.
        #expect(reaches("127.0.0.10", on: 1, from: "127.0.0.1:51234"))
        #expect(reaches("127.0.0.10", on: 2, from: "192.168.1.10:51234"), "this machine's LAN address")
        #expect(!reaches("127.0.0.10", on: 2, from: "192.168.1.77:51234"), "another host on the LAN")
        #expect(!reaches("127.0.0.10", on: 2, from: "not an address"))
    }

    /// A bulb added while lumend runs is judged by its own address, as one found at start: loopback bulbs beside
    /// LAN bulbs take only this machine's broadcasts, and the LAN bulbs the LAN's, whichever came first.
    @Test func eachBulbTakesTheBroadcastsItsOwnAddressReaches() {
        let macvlan = NetworkInterface(
            index: 5, address: IPv4Address("192.168.1.50")!, netmask: IPv4Address("255.255.255.0")!, isLoopback: false)
        let loopback = NetworkInterface(
            index: 1, address: IPv4Address("127.0.0.1")!, netmask: IPv4Address("255.0.0.0")!, isLoopback: true)
        let rule = BroadcastRule(interfaces: [loopback, macvlan])
        func fromTheLAN(_ bulb: IPv4Address, _ interface: Int32, _ sender: String) -> Bool {
            rule.reaching(interface: interface, sender: sender)(bulb)
        }
        #expect(fromTheLAN(IPv4Address("192.168.1.51")!, 5, "192.168.1.77:56700"), "a LAN bulb added later")
        #expect(!fromTheLAN(IPv4Address("127.0.0.12")!, 5, "192.168.1.77:56700"), "a loopback bulb added later")
        #expect(fromTheLAN(IPv4Address("127.0.0.12")!, 1, "127.0.0.1:56700"))
    }
}
