import LumenProtocol
import LumenService
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What a front makes of a datagram: nothing (dropped, as a bulb drops what it does not read), replies now, or
/// replies once work is done (a command waiting for its device).
public enum UDPReply: Sendable {
    /// No answer.
    case none
    /// These datagrams, to the sender.
    case now([[UInt8]])
    /// Work that sends datagrams to the sender through the function it is given, as each is ready.
    case later(@Sendable (_ send: @escaping @Sendable ([[UInt8]]) -> Void) async -> Void)
}

/// A UDP listener on an event loop of its own: each datagram read is handed to `respond`, and what it gives is
/// sent back to the sender. Bounded work per turn: at most 64 datagrams are read before the loop's other work
/// gets its turn, a datagram is at most 1,500 bytes (a bigger one arrives cut short, and is malformed), and at
/// most ``maxWaiting`` answers wait at once: a datagram beyond them is dropped, as a flooded bulb drops it.
public final class UDPServer: Service, Sendable {
    public var name: String { "UDP server" }

    /// The bound socket.
    public let fd: Int32
    let loop: EventLoop
    let respond: @Sendable ([UInt8]) -> UDPReply
    /// The answers being worked on now.
    let waiting = Atomic<Int>(0)
    /// The most answers worked on at once.
    public static let maxWaiting = 1_024
    /// Datagrams dropped because too many answers were waiting.
    public let dropped = Atomic<Int>(0)

    /// Told, at stop, how many datagrams were dropped because too many answers were waiting.
    let onStop: @Sendable (_ dropped: Int) -> Void

    /// A server on the bound UDP socket `fd`.
    public init(
        fd: Int32, onStop: @escaping @Sendable (_ dropped: Int) -> Void = { _ in },
        respond: @escaping @Sendable ([UInt8]) -> UDPReply
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
            let datagram = Array(buffer[0..<count])
            switch respond(datagram) {
            case .none: break
            case .now(let replies): send(replies, to: sender)
            case .later(let work):
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

    /// A UDP socket bound to `address`, closed on `exec`, allowed to send to broadcast addresses.
    public static func bind(_ address: TCPAddress) throws(SocketError) -> Int32 {
        var v4 = sockaddr_in()
        guard inet_pton(AF_INET, address.host, &v4.sin_addr) == 1 else {
            throw SocketError("bind", errno: EINVAL, detail: "'\(address.host)' is not a numeric IPv4 address")
        }
        v4.sin_family = sa_family_t(AF_INET)
        v4.sin_port = address.port.bigEndian
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError("socket", errno: errno) }
        // Not SO_REUSEADDR: on UDP it would let another socket share the port and take the bulbs' traffic.
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &v4) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let error = SocketError("bind \(address)", errno: errno)
            close(fd)
            throw error
        }
        return fd
    }
}
