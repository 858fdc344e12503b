import CLinux
import LumenLoop
import LumenModel
import LumenProtocol
import LumenService

#if canImport(Glibc)
    import Glibc
#endif

/// Answers multicast DNS for one service on one interface, as a small responder of its own rather than through
/// a system daemon: it announces the service at start (twice, a second apart, RFC 6762 §8.3), answers the
/// queries that ask for its names, and withdraws it at stop. It answers only queries from its link: a sender
/// on the network of the interface that holds the service's address (RFC 6762 §11), so that a query routed or
/// sent from elsewhere learns nothing and makes it send nothing.
///
/// Bounded under a flood: at most 64 datagrams are read a turn, the same records are multicast at most once a
/// second (§6), and one-shot resolvers (queries from a port other than 5353, answered by unicast) get at most 20
/// answers a second between them.
package final class MDNSResponder: Service, Sendable {
    package var name: String { "mDNS responder" }

    let fd: Int32
    let service: MDNSService
    let loop: EventLoop
    let logger: Logger
    /// The interface address (and its network) the service is announced on; `nil` if it is not listed.
    let link: NetworkInterface?
    /// When the records were last multicast, and the one-shot answers given in the current second.
    private let pacing = Locked<(multicast: ContinuousClock.Instant?, second: ContinuousClock.Instant, unicast: Int)>(
        (nil, .now, 0))

    /// A responder for `service` on the interface that holds `service.address`, its socket bound now.
    /// - Throws: ``SocketError`` when port 5353 cannot be bound or the group joined on that address (not one of
    ///   this machine's, or an interface without multicast).
    package init(service: MDNSService, logger: Logger) throws(SocketError) {
        // Other responders (Avahi) may hold port 5353 too: each gets every datagram.
        let fd = try TCPAddress(host: "0.0.0.0", port: MDNSService.port).boundSocket(
            type: Int32(SOCK_DGRAM.rawValue)
        ) { fd in
            UnixSocket.setOption(fd, SOL_SOCKET, SO_REUSEADDR, to: 1)
            UnixSocket.setOption(fd, SOL_SOCKET, SO_REUSEPORT, to: 1)
            // Only the group joined here, on that interface, is heard: not what other sockets joined elsewhere.
            UnixSocket.setOption(fd, Int32(IPPROTO_IP), IP_MULTICAST_ALL, to: 0)
            // Every response, a one-shot resolver's by unicast too, leaves with IP TTL 255 (RFC 6762 §11): older
            // queriers take a lower one as sent from beyond the link.
            UnixSocket.setOption(fd, Int32(IPPROTO_IP), IP_MULTICAST_TTL, to: 255)
            UnixSocket.setOption(fd, Int32(IPPROTO_IP), IP_TTL, to: 255)
            UnixSocket.setOption(fd, Int32(IPPROTO_IP), IP_MULTICAST_LOOP, to: 1)
        }
        let interface = in_addr(s_addr: service.address.value.bigEndian)
        var membership = ip_mreq(
            imr_multiaddr: in_addr(s_addr: MDNSService.group.value.bigEndian), imr_interface: interface)
        var outgoing = interface
        guard
            setsockopt(fd, Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP, &membership, socklen_t(MemoryLayout<ip_mreq>.size))
                == 0,
            setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_IF, &outgoing, socklen_t(MemoryLayout<in_addr>.size)) == 0
        else {
            let error = SocketError("join the mDNS group on \(service.address)", errno: errno)
            close(fd)
            throw error
        }
        UnixSocket.setNonBlocking(fd)
        self.fd = fd
        self.service = service
        self.logger = logger
        link = NetworkInterface.current().first { $0.address == service.address }
        loop = EventLoop(name: "lumend.mdns")
    }

    /// Announces the service, answers until graceful shutdown is requested, then withdraws it and closes.
    package func run() async throws {
        let stop = loop.watchReadable(fd) { [self] in readPending() }
        announce()
        loop.schedule(at: .now + .seconds(1)) { [self] in announce() }
        await gracefulShutdown()
        stop()
        await loop.executeAndWait { [self] _ in multicast(service.announcement(goodbye: true)) }
        await loop.shutDown()
        close(fd)
    }

    private func announce() {
        multicast(service.announcement())
        pacing.withLock { $0.multicast = .now }
    }

    private func readPending() {
        var buffer = [UInt8](repeating: 0, count: 9_000)
        for _ in 0..<64 {
            var sender = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let count = buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &sender) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(fd, bytes.baseAddress, bytes.count, 0, $0, &length)
                    }
                }
            }
            guard count >= 0 else { return }
            let from = IPv4Address(value: UInt32(bigEndian: sender.sin_addr.s_addr))
            guard Self.isOnLink(from, link) else { continue }
            let legacy = UInt16(bigEndian: sender.sin_port) != MDNSService.port
            guard let answer = service.answer(to: Array(buffer[0..<count]), legacy: legacy) else { continue }
            let now = ContinuousClock.now
            let allowed = pacing.withLock { pacing -> Bool in
                if legacy {
                    if now - pacing.second >= .seconds(1) { (pacing.second, pacing.unicast) = (now, 0) }
                    pacing.unicast += 1
                    return pacing.unicast <= 20
                }
                if let last = pacing.multicast, now - last < .seconds(1) { return false }
                pacing.multicast = now
                return true
            }
            guard allowed else { continue }
            if legacy { send(answer, to: sender) } else { multicast(answer) }
        }
    }

    /// Whether a query from `sender` came from `link`'s network (any, when the link is not known).
    static func isOnLink(_ sender: IPv4Address, _ link: NetworkInterface?) -> Bool {
        link?.contains(sender) ?? true
    }

    private func multicast(_ message: [UInt8]) {
        var group = sockaddr_in()
        group.sin_family = sa_family_t(AF_INET)
        group.sin_port = MDNSService.port.bigEndian
        group.sin_addr = in_addr(s_addr: MDNSService.group.value.bigEndian)
        send(message, to: group)
    }

    private func send(_ message: [UInt8], to address: sockaddr_in) {
        var address = address
        let sent = message.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(
                        fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0,
                        socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        if sent < 0 { logger.debug("mDNS: cannot send (\(String(cString: strerror(errno))))") }
    }
}
