import CLinux
import LumenLoop
import LumenProtocol
import LumenService

#if canImport(Glibc)
    import Glibc
#endif

/// Limits on HTTP clients, so that a slow or hostile one costs what a socket client costs and cannot lock
/// others out.
public struct HTTPLimits: Sendable, Hashable {
    /// Connections open at once. At the limit, a new connection takes the place of one that lingers after
    /// its last answer, else of the one idle longest between requests, else of the one sending its request
    /// longest, else of one whose client has stopped taking its answer; when every connection is being answered,
    /// sends freely or streams, it is answered 503 and closed (closed unanswered on HTTPS).
    package var connections = 256
    /// Connections open at once from one address. At the limit, a new connection from there takes the place of
    /// one of that address's, chosen as at the limit of all; when none can make room, it is answered 503 and
    /// closed (closed unanswered on HTTPS).
    package var connectionsPerAddress = 64
    /// Event streams open at once, so that streams never take the connections that new clients need.
    package var streams = 128
    /// Event streams open at once from one address, and at most half of ``connectionsPerAddress``: streams are
    /// never idle, so could never give up their places to that address's requests.
    package var streamsPerAddress = 32
    /// The streams one address may hold: ``streamsPerAddress``, within half ``connectionsPerAddress``.
    var streamsFromOneAddress: Int { min(streamsPerAddress, connectionsPerAddress / 2) }
    /// Seconds a connection may wait between requests before it is closed.
    var idleSeconds = 30
    /// Seconds within which a request must arrive whole (its line, header fields and body), counted from its
    /// first byte or, on a new connection, from connecting: a client that sends a header line now and then is
    /// answered 408 and closed, as nginx's `client_header_timeout` does.
    package var requestSeconds = 10
    /// Seconds a request may wait for its answer (a write for its device, which on a virtual clock waits for
    /// the clock to be advanced) before it is answered 503.
    package var answerSeconds = 300
    /// The largest request body taken, unless the server is told otherwise for a path; a larger one is
    /// answered 413.
    package var bodyBytes = 16_384
    /// The longest request line and header fields taken; longer ones are answered 431.
    package var headBytes = 16_384
    /// Bytes of large request bodies (over ``smallBodyBytes``) taken in at once across every connection, each
    /// counted whole once it grows past that, as its bytes come (a `Content-Length` announced holds nothing until
    /// its bytes arrive), until its request is answered or its connection closes; one address may hold a quarter
    /// of it. Bodies need no token: without this, 256 connections each sending the 1 MiB `/rpc` takes would hold
    /// 256 MiB. 16 MiB lets sixteen such bodies in at once. A request that would go past it is answered 503 with
    /// `Retry-After` and closed.
    var bodyBudgetBytes = 16 << 20
    /// The largest request body the budget never counts, and so never refuses. Clients that hold large bodies
    /// unfinished from a few addresses fill the budget; were every body counted, they would lock out every
    /// request with one, however small. Real clients' bodies are small: a Hue command is a few dozen bytes (16
    /// KiB at most is taken), a JSON-RPC call or a `hello` a few hundred. 64 KiB is four times the largest Hue
    /// body and far above any call but a large batch, which is counted and may be told to retry. It bounds what
    /// the budget does not: each connection holds at most one body this small uncounted, so bodies hold at
    /// most the budget and `connections` × 64 KiB besides (16 MiB + 256 × 64 KiB = 32 MiB by default).
    var smallBodyBytes = 64 << 10

    /// The defaults.
    package init() {}
}

/// A listening TCP socket an ``HTTPServer`` takes connections on, and the credentials it presents when it speaks
/// HTTPS (HTTP inside TLS); both kinds are answered alike.
package struct HTTPListener: Sendable {
    /// The listening socket (bound by lumend, or inherited through socket activation).
    package var fd: Int32
    /// The certificate and key for TLS; `nil` for plain HTTP.
    package var tls: TLSCredentials?

    /// A listener on `fd`, speaking TLS with `tls` when given.
    package init(fd: Int32, tls: TLSCredentials? = nil) {
        self.fd = fd
        self.tls = tls
    }
}

/// An HTTP/1.1 listener on an event loop of its own. Each connection is a socket that loop watches: its
/// requests are read strictly as RFC 9112 frames them (``HTTPRequestParser``), answered in order, and a
/// request whose answer waits on a device waits without holding a thread.
///
/// A front (the Hue API, for one) answers each request through `respond`, at once, later, or as a stream.
package final class HTTPServer: Service, Sendable {
    package var name: String { "HTTP server" }

    /// The listening sockets (bound by lumend, or inherited through socket activation).
    let listeners: [HTTPListener]
    let loop: EventLoop
    let driver: LoopBound<HTTPDriver>

    /// A server taking connections on every one of `listeners` (plain HTTP and HTTPS alike, sharing the limits),
    /// whose requests `respond` answers, on `loop` (a new one when not given: a front that keeps state of its own,
    /// such as sessions, is given the loop it keeps it on).
    /// - Parameters:
    ///   - bodyLimit: the largest body taken for a path, when not `limits.bodyBytes`.
    ///   - whenStopping: called on the loop once the server stops taking requests, once every waiting request
    ///     has been given its 503 and every stream told to end (before they are sent): a front ends what it
    ///     keeps there.
    package init(
        listeners: [HTTPListener], loop: EventLoop? = nil, limits: HTTPLimits = HTTPLimits(), logger: Logger,
        bodyLimit: (@Sendable (_ path: String) -> Int)? = nil, whenStopping: (@Sendable () -> Void)? = nil,
        respond: @escaping @Sendable (HTTPRequest) -> HTTPReply
    ) {
        self.listeners = listeners
        let loop = loop ?? EventLoop(name: "lumend.http")
        self.loop = loop
        let driver = HTTPDriver(
            listeners: listeners, limits: limits, logger: logger,
            bodyLimit: bodyLimit ?? { [limits] _ in limits.bodyBytes }, whenStopping: whenStopping, respond: respond)
        self.driver = LoopBound(driver, on: loop)
    }

    /// Serves until graceful shutdown is requested; then answers what waits, and closes.
    package func run() async throws {
        for listener in listeners { UnixSocket.setNonBlocking(listener.fd) }
        await loop.executeAndWait { [driver] _ in driver.object.start(driver) }
        await gracefulShutdown()
        // Stop accepting, answer what waits, and give the answers half a second to go out before closing.
        await loop.executeAndWait { [driver] _ in driver.object.beginStop() }
        for _ in 0..<50 {
            let open = await loop.executeAndWait { [driver] _ in driver.object.connections.count }
            if open == 0 { break }
            try? await Task.sleep(for: .milliseconds(10))
        }
        await loop.executeAndWait { [driver] context in
            if let context { driver.object.stop(context) }
        }
        await loop.shutDown()
    }
}

/// What only the HTTP loop's thread touches: the listener, every connection, and what they count.
final class HTTPDriver {
    let listeners: [HTTPListener]
    let limits: HTTPLimits
    let logger: Logger
    let bodyLimit: @Sendable (String) -> Int
    let whenStopping: (@Sendable () -> Void)?
    let respond: @Sendable (HTTPRequest) -> HTTPReply
    /// Itself, as the loop-bound box that timers and tasks reach it through.
    weak var bound: LoopBound<HTTPDriver>?
    var stopAccepting: [@Sendable () -> Void] = []
    /// Where TLS sessions put the plaintext of the record they read (one record's at most).
    var tlsBuffer = [UInt8](repeating: 0, count: 16_384 + 256)
    /// The open connections, by their registration on the loop.
    var connections: [UInt64: HTTPConnection] = [:]
    /// Connections and streams open from each address.
    var perAddress: [String: (connections: Int, streams: Int)] = [:]
    var streamCount = 0
    /// Request body bytes taken from ``HTTPLimits/bodyBudgetBytes`` by connections whose requests are not yet
    /// answered, in all and by the address that sent them.
    var bodyBytesHeld = 0
    var bodyBytesByAddress: [String: Int] = [:]
    /// Requests refused for the budget, for the log.
    var bodyRefusals = RefusalLog()
    /// Connections refused at the limit for one address, for the log.
    var addressRefusals = RefusalLog()
    /// Connections refused at the limit of all, for the log.
    var connectionRefusals = RefusalLog()
    /// Set once stopping has begun: a request that comes now is answered 503 at once.
    var isStopping = false

    init(
        listeners: [HTTPListener], limits: HTTPLimits, logger: Logger, bodyLimit: @escaping @Sendable (String) -> Int,
        whenStopping: (@Sendable () -> Void)?, respond: @escaping @Sendable (HTTPRequest) -> HTTPReply
    ) {
        self.listeners = listeners
        self.limits = limits
        self.logger = logger
        self.bodyLimit = bodyLimit
        self.whenStopping = whenStopping
        self.respond = respond
    }

    var loop: EventLoop { bound!.loop }

    func start(_ bound: LoopBound<HTTPDriver>) {
        self.bound = bound
        for (index, listener) in listeners.enumerated() {
            stopAccepting.append(
                bound.loop.watchReadable(listener.fd) {
                    bound.loop.execute { context in if let context { bound.object.acceptPending(index, context) } }
                })
        }
    }

    /// Takes the connections waiting, a bounded number a turn so that the loop's other work gets its turn.
    func acceptPending(_ listenerIndex: Int, _ context: LoopContext) {
        let listener = listeners[listenerIndex]
        for _ in 0..<64 where !isStopping {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = lumen_accept_peer(listener.fd, &address, &length)
            guard fd >= 0 else { return }
            // Accepted from a TCP listener: always an IPv4 or IPv6 peer.
            let host = TCPAddress(address)?.host ?? "unknown"
            if let limit = makeRoom(for: host, context) {
                turnAway(fd, from: host, at: limit, answering: listener.tls == nil)
                continue
            }
            UnixSocket.setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, to: 1)
            var tls: TLSSession?
            if let credentials = listener.tls {
                tls = TLSSession(fd: fd, credentials: credentials)
                guard tls != nil else {
                    close(fd)
                    continue
                }
            }
            let key = EventLoop.nextKey.add(1, ordering: .relaxed).newValue
            let connection = HTTPConnection(key: key, fd: fd, host: host, tls: tls, driver: self)
            connections[key] = connection
            perAddress[host, default: (0, 0)].connections += 1
            let bound = bound!
            context.register(key, fd: fd) { readiness, context in
                guard let connection = bound.object.connections[key] else { return }
                if readiness.readable { connection.readable(context) }
                if readiness.writable, connection.isOpen { connection.writable(context) }
            }
            connection.begin(context)
        }
    }

    /// A limit on connections that a new one found no room under.
    enum ConnectionLimit {
        /// ``HTTPLimits/connectionsPerAddress``.
        case perAddress
        /// ``HTTPLimits/connections``.
        case all
    }

    /// Makes room for a new connection from `host` at a limit: at the limit for one address, by closing one of
    /// that address's own connections, so that idle or silent ones never shut out the others from there; at the
    /// limit of all, by closing any. The one closed has its answer already (lingering before its close), else is
    /// the one idle longest between requests, else the one that has been sending its request longest (a client
    /// that sends a header line now and then, or a TLS handshake not done), else one whose client takes no more of
    /// its answer. The limit no connection could make room under, when every one is answered, answering or
    /// streaming; `nil` once there is room.
    private func makeRoom(for host: String, _ context: LoopContext) -> ConnectionLimit? {
        if perAddress[host, default: (0, 0)].connections >= limits.connectionsPerAddress {
            guard let chosen = readiestToYield(connections.values.filter { $0.host == host }) else {
                return .perAddress
            }
            chosen.close(context)
        }
        if connections.count >= limits.connections {
            guard let chosen = readiestToYield(connections.values) else { return .all }
            chosen.close(context)
        }
        return nil
    }

    /// The one of `candidates` to close first for a new connection (``HTTPConnection/yield``); `nil` when none
    /// may be closed.
    private func readiestToYield(_ candidates: some Sequence<HTTPConnection>) -> HTTPConnection? {
        candidates.compactMap { connection in connection.yield.map { (connection, $0) } }.min { $0.1 < $1.1 }?.0
    }

    /// Turns away a new connection that found no room under `limit`, and logs it at most once a minute for each
    /// limit. With `answering` (plain HTTP) it is first sent a 503 that says why, in one try (a new socket has room
    /// for it), and what it has sent is read once (the socket is non-blocking: only what has come) and dropped, so
    /// that the close ends the connection rather than resetting it and losing the answer: a send and a read more
    /// than the bare close, nothing kept after. Over TLS it is closed unanswered: a plain answer would be noise to
    /// its client, and a handshake costs far more.
    private func turnAway(_ fd: Int32, from host: String, at limit: ConnectionLimit, answering: Bool) {
        let (why, busy, count) =
            switch limit {
            case .perAddress:
                (
                    "lumend takes at most \(limits.connectionsPerAddress) connections from one address",
                    "every one from that address is busy", addressRefusals.note()
                )
            case .all:
                (
                    "lumend takes at most \(limits.connections) connections", "every one is busy",
                    connectionRefusals.note()
                )
            }
        if let count {
            logger.warning(
                "refused a connection from \(host): \(why), and \(busy) (a request being answered, or an event "
                    + "stream); see which clients hold them (ss -tnp)" + RefusalLog.since(count), [("peer", host)])
        }
        if answering {
            var refusal = HTTPResponse.text("\(why), and \(busy); retry in a moment\n", status: 503)
            refusal.headers.append(("Retry-After", "5"))
            let bytes =
                HTTPConnection.head(of: refusal, framing: .length(refusal.body.count), closing: true) + refusal.body
            _ = bytes.withUnsafeBytes { UnixSocket.send(fd, $0) }
            _ = tlsBuffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        }
        close(fd)
    }

    /// Whether another stream may open from `host`; if so, it is counted.
    func openStream(from host: String) -> Bool {
        guard streamCount < limits.streams, perAddress[host, default: (0, 0)].streams < limits.streamsFromOneAddress
        else { return false }
        streamCount += 1
        perAddress[host, default: (0, 0)].streams += 1
        return true
    }

    /// Takes `count` bytes of request body sent from `host` from the budget; `false` when they do not fit in
    /// it, or in the quarter of it one address may hold (so that one client cannot take it all).
    func takeBodyBytes(_ count: Int, from host: String) -> Bool {
        let own = bodyBytesByAddress[host, default: 0]
        guard bodyBytesHeld + count <= limits.bodyBudgetBytes, own + count <= limits.bodyBudgetBytes / 4 else {
            return false
        }
        bodyBytesHeld += count
        bodyBytesByAddress[host] = own + count
        return true
    }

    /// Logs that a request from `host` was refused for the budget, at most once a minute.
    func bodyRefused(from host: String) {
        guard let count = bodyRefusals.note() else { return }
        logger.warning(
            "refused a request from \(host) with 503: request bodies over \(limits.smallBodyBytes) bytes being "
                + "taken in hold \(bodyBytesHeld) of the \(limits.bodyBudgetBytes) bytes lumend takes in at once, "
                + "\(bodyBytesByAddress[host, default: 0]) from that address (\(limits.bodyBudgetBytes / 4) at most)"
                + RefusalLog.since(count), [("peer", host)])
    }

    /// Gives back `count` bytes of request body sent from `host`.
    func giveBackBodyBytes(_ count: Int, from host: String) {
        let own = bodyBytesByAddress[host, default: 0] - count
        assert(own >= 0 && bodyBytesHeld >= count, "body bytes given back that were not taken")
        bodyBytesHeld -= count
        bodyBytesByAddress[host] = own > 0 ? own : nil
    }

    /// Forgets the stream of a connection, ended or closed.
    func forgetStream(of connection: HTTPConnection) {
        streamCount -= 1
        perAddress[connection.host]?.streams -= 1
    }

    /// Forgets a closed connection.
    func forget(_ connection: HTTPConnection) {
        connections[connection.key] = nil
        var counts = perAddress[connection.host, default: (0, 0)]
        counts.connections -= 1
        perAddress[connection.host] = counts.connections > 0 ? counts : nil
    }

    /// Stops accepting, answers what waits with 503 and ends every stream; closes connections between
    /// requests. What comes meanwhile is answered 503 at once.
    func beginStop() {
        guard !isStopping else { return }
        isStopping = true
        stopListening()
        loop.execute { [bound] context in
            guard let context, let driver = bound?.object else { return }
            for connection in Array(driver.connections.values) { connection.stopping(context) }
            driver.whenStopping?()
        }
    }

    private func stopListening() {
        for stop in stopAccepting { stop() }
        stopAccepting = []
        for listener in listeners { close(listener.fd) }
    }

    static let stopping = HTTPResponse(
        status: 503, headers: [("Content-Type", "text/plain; charset=utf-8"), ("Connection", "close")],
        body: Array("lumend is shutting down; retry once it is back\n".utf8))

    /// Closes every connection still open.
    func stop(_ context: LoopContext) {
        if !isStopping {
            isStopping = true
            stopListening()
        }
        for connection in Array(connections.values) { connection.close(context) }
    }

    /// Runs `body` on the loop of `driver` with the connection `key`, if it is still open, after the work
    /// queued before (from any thread: a timer, a task, a stream waking its connection).
    static func later(
        _ driver: LoopBound<HTTPDriver>, _ key: UInt64,
        _ body: @escaping @Sendable (HTTPConnection, LoopContext) -> Void
    ) {
        driver.loop.execute { context in
            guard let context, let connection = driver.object.connections[key] else { return }
            body(connection, context)
        }
    }
}

/// Refusals of one kind, logged at most once a minute: a client refused again and again (an attack, or one that
/// retries at once) would otherwise flood the journal, yet an operator must see that clients are turned away, and
/// how many.
struct RefusalLog {
    /// The least time between two lines.
    static let interval = Duration.seconds(60)
    /// When the last line was logged; `nil` before the first.
    private var lastLogged: ContinuousClock.Instant?
    /// Refusals noted since the last line.
    private var unlogged = 0

    /// Notes a refusal at `now`: the number of refusals a line due now tells of (this one and those not logged
    /// since the last line), or `nil` while the last line is less than ``interval`` old. Those left unlogged are
    /// told with the next refusal after that, so that a refusal that is not repeated costs no timer.
    mutating func note(at now: ContinuousClock.Instant = .now) -> Int? {
        unlogged += 1
        if let lastLogged, now - lastLogged < Self.interval { return nil }
        lastLogged = now
        defer { unlogged = 0 }
        return unlogged
    }

    /// What a line adds for the `count` refusals it tells of: those besides its own.
    static func since(_ count: Int) -> String {
        count > 1 ? "; \(count - 1) more refused since the last such warning" : ""
    }
}
