import CLinux
import LumenProtocol
import LumenService
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What a front makes of a datagram it answers: work that sends datagrams to the sender through the function it
/// is given, as each is ready (a command's once its device has taken it).
public typealias UDPWork = @Sendable (_ send: @escaping @Sendable ([[UInt8]]) -> Void) async -> Void

/// A UDP listener on an event loop of its own: each datagram read is handed to `respond` with its sender's
/// address (`127.0.0.1:51234`, written out when asked), which drops it (`nil`, as a bulb drops what it does not read) or gives the work
/// that answers it. Bounded work per turn: at most 64 datagrams are read before the loop's other work gets its
/// turn, a datagram is at most 1,500 bytes (a bigger one arrives cut short, and is malformed), and at most
/// ``maxWaiting`` datagrams are being answered at once: a datagram beyond them is dropped, as a flooded bulb
/// drops it. That bounds datagrams, not the work each
/// makes (a LIFX broadcast is answered by every bulb): the front bounds its own answers (`LIFXAnswerBudget`).
public final class UDPServer: Service, Sendable {
    public var name: String { "UDP server" }

    /// The bound socket.
    public let fd: Int32
    let loop: EventLoop
    let respond: @Sendable (_ datagram: [UInt8], _ sender: @escaping @Sendable () -> String) -> UDPWork?
    /// The datagrams being answered now.
    let waiting = Atomic<Int>(0)
    /// The most datagrams answered at once.
    public static let maxWaiting = 1_024
    /// Datagrams dropped because too many were being answered.
    public let dropped = Atomic<Int>(0)

    /// Told, at stop, how many datagrams were dropped because too many were being answered.
    let onStop: @Sendable (_ dropped: Int) -> Void

    /// A server on the bound UDP socket `fd`.
    public init(
        fd: Int32, onStop: @escaping @Sendable (_ dropped: Int) -> Void = { _ in },
        respond: @escaping @Sendable (_ datagram: [UInt8], _ sender: @escaping @Sendable () -> String) -> UDPWork?
    ) {
        self.fd = fd
        self.respond = respond
        self.onStop = onStop
        loop = EventLoop(name: "lumend.udp")
    }

    /// Serves until graceful shutdown is requested, then closes the socket.
    public func run() async throws {
        let stop = loop.watchReadable(fd) { [self] in readPending() }
        await gracefulShutdown()
        stop()
        await loop.shutDown()
        close(fd)
        onStop(dropped.load(ordering: .relaxed))
    }

    /// A sender's address, as `recvfrom` gave it.
    struct Sender: Sendable {
        var storage: sockaddr_storage
        var length: socklen_t
    }

    private func readPending() {
        var buffer = [UInt8](repeating: 0, count: 1_500)
        for _ in 0..<64 {
            var sender = Sender(storage: sockaddr_storage(), length: socklen_t(MemoryLayout<sockaddr_storage>.size))
            let count = buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &sender.storage) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(fd, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT), $0, &sender.length)
                    }
                }
            }
            guard count >= 0 else { return }
            // The sender's address is written out only if a command needs it: not for every datagram of a flood.
            guard let work = respond(Array(buffer[0..<count]), { [sender] in Self.describe(sender) }) else {
                continue
            }
            guard waiting.add(1, ordering: .relaxed).newValue <= Self.maxWaiting else {
                waiting.subtract(1, ordering: .relaxed)
                dropped.add(1, ordering: .relaxed)
                continue
            }
            Task(executorPreference: loop) { [self, sender] in
                await work { replies in
                    self.loop.execute { context in
                        // Once the loop has stopped the socket is closed: nothing is sent.
                        guard context != nil else { return }
                        self.send(replies, to: sender)
                    }
                }
                waiting.subtract(1, ordering: .relaxed)
            }
        }
    }

    /// A sender's address as text: `127.0.0.1:51234`, `[::1]:51234`.
    static func describe(_ sender: Sender) -> String {
        let host = HTTPDriver.host(of: sender.storage)
        var storage = sender.storage
        let port = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    private func send(_ datagrams: [[UInt8]], to sender: Sender) {
        var address = sender
        for datagram in datagrams {
            _ = datagram.withUnsafeBytes { bytes in
                withUnsafePointer(to: &address.storage) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT), $0, address.length)
                    }
                }
            }
        }
    }

    /// A UDP socket bound to `address` (IPv4 or IPv6), closed on `exec`, allowed to send to broadcast addresses.
    /// lumend's `--lifx` takes IPv4 alone: LIFX clients find bulbs by IPv4 broadcast.
    /// - Throws: ``SocketError`` when the address is not numeric, or binding fails (in use, not permitted).
    package static func bind(_ address: TCPAddress) throws(SocketError) -> Int32 {
        // Not SO_REUSEADDR: on UDP it would let another socket share the port and take the bulbs' traffic.
        try address.boundSocket(type: Int32(SOCK_DGRAM.rawValue)) { fd in
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, socklen_t(MemoryLayout<Int32>.size))
        }
    }
}
