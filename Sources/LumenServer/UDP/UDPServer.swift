import CLinux
import LumenLoop
import LumenModel
import LumenProtocol
import LumenService
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What a front makes of a datagram it answers: work that sends datagrams to the sender through the function it
/// is given, as each is ready (a command's once its device has taken it), each from the address of this host it
/// names (`nil`: the one the kernel picks).
package typealias UDPWork =
    @Sendable (_ send: @escaping @Sendable (_ datagrams: [[UInt8]], _ from: IPv4Address?) -> Void) async -> Void

/// Where a datagram was sent, as the kernel tells it (`IP_PKTINFO`).
package enum UDPDestination: Sendable, Hashable {
    /// To this address of the host.
    case address(IPv4Address)
    /// To a broadcast address (the LAN's, `255.255.255.255`, `127.255.255.255`), arriving on the interface of
    /// this index.
    case broadcast(interface: Int32)
    /// Not known: an IPv6 socket.
    case unknown
}

/// A UDP listener on an event loop, its own or one it is given: each datagram read is handed to `respond` with the
/// address it was sent to and its sender's address (`127.0.0.1:51234`, written out when asked), which drops it (`nil`,
/// as a bulb drops what it does not read) or gives the work that answers it. Bounded work per turn: at most
/// ``readsPerTurn`` datagrams are read before the loop's other work gets its turn, a datagram is at most 1,500 bytes (a
/// bigger one arrives cut short, and is malformed), and at most ``maxWaiting`` datagrams are being answered at once: a
/// datagram beyond them is dropped before `respond` sees it, as a flooded bulb drops it, and work `respond` gives is
/// always run. That bounds datagrams, not the work each makes (a LIFX broadcast is answered by every bulb): the front
/// bounds its own answers (`LIFXAnswerBudget`).
package final class UDPServer: Service, Sendable {
    package var name: String { "UDP server" }

    /// The bound socket.
    let fd: Int32
    let loop: EventLoop
    /// Whether ``loop`` is the server's own, made for it and shut down at its stop, or another's (the home's),
    /// which outlives it.
    let ownsLoop: Bool
    /// Set on ``loop`` once the socket is closed: an answer that comes later is not sent (on a loop of its own,
    /// stopped by then, it would not be anyway).
    let isClosed = Atomic<Bool>(false)
    let respond:
        @Sendable (_ datagram: [UInt8], _ destination: UDPDestination, _ sender: @escaping @Sendable () -> String) ->
            UDPWork?
    /// The datagrams being answered now.
    let waiting = Atomic<Int>(0)
    /// The most datagrams answered at once.
    static let maxWaiting = 1_024
    /// The most datagrams read before the loop's other work gets its turn: as many as may be answered at once, so
    /// that the socket is drained before the answers to what was read are worked on. Under a flood the loop's
    /// thread gets a share of a busy CPU; a datagram left in the socket while answers run may find the kernel's
    /// receive buffer full and be dropped, a client's query among them.
    static let readsPerTurn = 1_024
    /// The receive buffer asked of the kernel: 1 MiB, some 1,000 small datagrams, against the 208 KiB most
    /// kernels give by default, some 200, which a flood of 10,000 a second fills while the loop's thread waits
    /// for a busy CPU. The kernel caps it at `net.core.rmem_max` (often that same default, unless raised).
    static let receiveBufferBytes: Int32 = 1_024 * 1_024
    /// Datagrams dropped because too many were being answered.
    let dropped = Atomic<Int>(0)

    /// Told, at stop, how many datagrams were dropped because too many were being answered.
    let onStop: @Sendable (_ dropped: Int) -> Void

    /// A server on the bound UDP socket `fd`, on `loop`, or on a loop of its own when none is given. Given the
    /// loop a front's state lives on (the home's), a datagram is read and answered on that thread, with no hop
    /// between threads; the loop is then the caller's, and outlives the server.
    package init(
        fd: Int32, loop: EventLoop? = nil, onStop: @escaping @Sendable (_ dropped: Int) -> Void = { _ in },
        respond:
            @escaping @Sendable (
                _ datagram: [UInt8], _ destination: UDPDestination, _ sender: @escaping @Sendable () -> String
            ) -> UDPWork?
    ) {
        self.fd = fd
        self.respond = respond
        self.onStop = onStop
        ownsLoop = loop == nil
        self.loop = loop ?? EventLoop(name: "lumend.udp")
    }

    /// Serves until graceful shutdown is requested, then closes the socket.
    package func run() async throws {
        let stop = loop.watchReadable(fd) { [self] in readPending() }
        await gracefulShutdown()
        stop()
        // Closed on the loop, after the watch is removed there and before any later answer is sent there.
        await loop.executeAndWait { [self] _ in
            isClosed.store(true, ordering: .relaxed)
            close(fd)
        }
        if ownsLoop { await loop.shutDown() }
        onStop(dropped.load(ordering: .relaxed))
    }

    /// A sender's address, as `recvfrom` gave it.
    struct Sender: Sendable {
        var storage: sockaddr_storage
        var length: socklen_t
    }

    private func readPending() {
        var buffer = [UInt8](repeating: 0, count: 1_500)
        for _ in 0..<Self.readsPerTurn {
            var sender = Sender(storage: sockaddr_storage(), length: socklen_t(MemoryLayout<sockaddr_storage>.size))
            var destination: UInt32 = 0
            var local: UInt32 = 0
            var interface: Int32 = 0
            let count = buffer.withUnsafeMutableBytes { bytes in
                lumen_udp_receive(
                    fd, bytes.baseAddress, bytes.count, &sender.storage, &sender.length, &destination, &local,
                    &interface)
            }
            guard count >= 0 else { return }
            // The place is taken before `respond` is asked, so that work it gives is always run: a front may hold
            // something for the work until it is done (a broadcast's place among those in progress).
            guard waiting.add(1, ordering: .relaxed).newValue <= Self.maxWaiting else {
                waiting.subtract(1, ordering: .relaxed)
                dropped.add(1, ordering: .relaxed)
                continue
            }
            // The sender's address (`127.0.0.1:51234`, `[::1]:51234`: received on an IPv4 or IPv6 socket, it is one
            // of them) is written out only if a command needs it: not for every datagram of a flood.
            guard
                let work = respond(
                    Array(buffer[0..<count]), Self.destination(destination, local: local, interface: interface),
                    { [sender] in TCPAddress(sender.storage)?.description ?? "unknown" })
            else {
                waiting.subtract(1, ordering: .relaxed)
                continue
            }
            Task(executorPreference: loop) { [self, sender] in
                await work { replies, source in
                    self.loop.execute { context in
                        // Once the socket is closed (or the loop has stopped) nothing is sent.
                        guard context != nil, !self.isClosed.load(ordering: .relaxed) else { return }
                        self.send(replies, to: sender, from: source)
                    }
                }
                waiting.subtract(1, ordering: .relaxed)
            }
        }
    }

    /// Where a datagram was sent, from what `IP_PKTINFO` told (network order): the kernel answers a datagram
    /// sent to one of the host's addresses from that address, and a broadcast from an address of the interface
    /// it came in on, so the two differ only for a broadcast.
    static func destination(_ destination: UInt32, local: UInt32, interface: Int32) -> UDPDestination {
        guard destination != 0 else { return .unknown }
        guard destination == local else { return .broadcast(interface: interface) }
        return .address(IPv4Address(value: UInt32(bigEndian: destination)))
    }

    private func send(_ datagrams: [[UInt8]], to sender: Sender, from source: IPv4Address?) {
        var address = sender
        for datagram in datagrams {
            _ = datagram.withUnsafeBytes { bytes in
                lumen_udp_send(
                    fd, bytes.baseAddress, bytes.count, &address.storage, address.length, source?.value.bigEndian ?? 0)
            }
        }
    }

    /// A UDP socket bound to `address` (IPv4 or IPv6), closed on `exec`, allowed to send to broadcast addresses,
    /// with a receive buffer of ``receiveBufferBytes``, and, on IPv4, told each datagram's destination, so that a
    /// reply can leave from the address a request was sent to. lumend's `--lifx` takes IPv4 alone: LIFX clients
    /// find bulbs by IPv4 broadcast.
    /// - Throws: ``SocketError`` when the address is not numeric, or binding fails (in use, not permitted).
    package static func bind(_ address: TCPAddress) throws(SocketError) -> Int32 {
        // Not SO_REUSEADDR: on UDP it would let another socket share the port and take the bulbs' traffic.
        try address.boundSocket(type: Int32(SOCK_DGRAM.rawValue)) { fd in
            UnixSocket.setOption(fd, SOL_SOCKET, SO_BROADCAST, to: 1)
            UnixSocket.setOption(fd, SOL_SOCKET, SO_RCVBUF, to: Self.receiveBufferBytes)
            if !address.host.contains(":") { _ = lumen_udp_want_destination(fd) }
        }
    }
}
