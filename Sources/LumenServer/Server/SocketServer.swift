import CLinux
import LumenLoop
import LumenModel
import LumenProtocol
import LumenScopes
import LumenService
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The listening socket and every session on it: a ``Service`` that serves until asked to shut down (or
/// cancelled), then stops accepting, fails what is still waiting on a device with a clear error, sends what
/// is queued, and closes.
package final class SocketServer: Service, Sendable {
    package var name: String { "socket server" }

    private struct State {
        var connections: [UInt64: ClientConnection] = [:]
        /// Each session's peer UID, and how many sessions each UID holds.
        var users: [UInt64: UInt32] = [:]
        var sessionsByUser: [UInt32: Int] = [:]
        var nextSession: UInt64 = 1
    }

    /// Where accepting stands; touched on the listener's loop, and by ``run()`` before the listener starts.
    private struct Accepting {
        /// The listener's place on its loop, while the server runs.
        var listener: ConnectionLoop?
        /// Accepting is paused for want of descriptors (or memory), and the listener not watched.
        var paused = false
        /// The timer that tries again while paused.
        var retry: UInt64?
        /// The listener is closed: a retry due finds nothing to do.
        var stopped = false
    }

    /// How long accepting pauses when the process is out of descriptors, before it is tried again.
    static let acceptRetryDelay = Duration.milliseconds(100)

    /// The listening descriptor (bound here, or inherited through socket activation).
    let listenFD: Int32
    /// The path the socket is bound to, removed at shutdown when this process created it.
    let ownedPath: String?
    let context: ServerContext
    /// Who may open the `simulation` scope.
    let simulationAccess: SimulationAccess
    let ownUID = getuid()
    /// What the server's timers sleep on.
    let clock: any Clock<Duration>
    /// The threads that serve every connection.
    let eventLoops: EventLoopGroup
    private let state = Locked(State())
    private let accepting = Locked(Accepting())

    /// A server.
    /// - Parameters:
    ///   - listenFD: a listening Unix stream socket.
    ///   - ownedPath: the socket file to remove at shutdown (`nil` when socket-activated: systemd owns it).
    ///   - scopeContext: the scopes to serve.
    ///   - clock: what its timers sleep on (lumend's main event loop's clock, so that they need no other
    ///     thread).
    package init(
        listenFD: Int32, ownedPath: String?, scopeContext: ScopeContext, limits: ServerLimits = ServerLimits(),
        simulationAccess: SimulationAccess = .owner, clock: any Clock<Duration> = ContinuousClock(), logger: Logger
    ) {
        self.clock = clock
        self.listenFD = listenFD
        self.ownedPath = ownedPath
        self.simulationAccess = simulationAccess
        context = ServerContext(scopeContext: scopeContext, limits: limits, logger: logger)
        eventLoops = EventLoopGroup(count: limits.eventLoops)
    }

    /// Delivers a change event to subscribers; install it as an observer of the home.
    package func publish(_ event: ChangeEvent) { context.hub.publish(event) }

    /// The number of connected clients.
    package var sessionCount: Int { state.withLock { $0.connections.count } }

    /// Serves until graceful shutdown is requested of it or its task is cancelled; then stops accepting,
    /// answers what is in flight and closes every session.
    package func run() async throws {
        UnixSocket.setNonBlocking(listenFD)
        // Accepted on an event loop, like any other socket it serves: no thread of its own.
        let listener = ConnectionLoop(fd: listenFD, on: eventLoops.nextLoop())
        accepting.withLock { $0.listener = listener }
        listener.start { [weak self] _ in
            self?.acceptPending()
        } writable: {
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.closeOverdueConnections() }
            // Serves until asked to shut down (or cancelled, which ends it the same way here).
            await gracefulShutdown()
            group.cancelAll()
        }
        // Stop accepting first (the loop closes the listening socket); the rest of the shutdown drains what is
        // already connected.
        if let ownedPath { unlink(ownedPath) }
        await withCheckedContinuation { continuation in
            listener.stop(closing: { [self] in stopAccepting() }, then: { continuation.resume() })
        }
        await shutDown()
        await eventLoops.shutDown()
    }

    /// Closes, a few times a grace period, the connections that owe a request for longer than it allows.
    private func closeOverdueConnections() async {
        let grace = context.limits.requestGrace
        let interval = min(grace / 4, .seconds(1))
        while !Task.isCancelled {
            try? await clock.sleep(for: interval)
            let now = ContinuousClock.now
            onEachLoop { connections in
                for connection in connections {
                    if let reason = connection.overdue(now: now, grace: grace) {
                        connection.closeOverdue(reason: reason)
                    }
                }
            }
        }
    }

    /// Runs `body` on each event loop with the connections it serves (connections are their loop's to
    /// touch), without waiting for it.
    private func onEachLoop(_ body: @escaping @Sendable ([ClientConnection]) -> Void) {
        let connections = state.withLock { Array($0.connections.values) }
        for loop in eventLoops.loops {
            let served = connections.filter { $0.loop.eventLoop === loop }
            loop.execute { _ in body(served) }
        }
    }

    /// Whether any connection still has requests waiting on devices or replies unsent; asked of each loop.
    private func anyConnectionBusy() async -> Bool {
        let connections = state.withLock { Array($0.connections.values) }
        for loop in eventLoops.loops {
            let served = connections.filter { $0.loop.eventLoop === loop }
            let busy = await loop.executeAndWait { _ in
                served.contains { ($0.session?.inflight ?? 0) > 0 || !$0.isDrained }
            }
            if busy { return true }
        }
        return false
    }

    /// Takes every connection waiting, on the listener's loop.
    private func acceptPending() {
        while true {
            let fd = lumen_accept_nonblocking(listenFD)
            if fd >= 0 {
                admit(fd)
                continue
            }
            let code = errno
            switch code {
            case EINTR, ECONNABORTED: continue
            case EAGAIN, EWOULDBLOCK: return resumeAccepting()
            case EMFILE, ENFILE, ENOBUFS, ENOMEM: return pauseAccepting(code)
            default:
                context.logger.error("accept failed: \(String(cString: strerror(code)))")
                return
            }
        }
    }

    /// Out of descriptors (or memory): the connection waiting stays queued and the listener readable, so
    /// watching it would have its loop spin. It is left unwatched, and accepting tried again after
    /// ``acceptRetryDelay``, until a try finds nothing more to take; said once for each such spell.
    private func pauseAccepting(_ code: Int32) {
        let (listener, first) = accepting.withLock { accepting -> (ConnectionLoop?, Bool) in
            guard !accepting.stopped, let listener = accepting.listener else { return (nil, false) }
            defer { accepting.paused = true }
            return (listener, !accepting.paused)
        }
        guard let listener else { return }
        if first {
            listener.watch(read: false)
            context.logger.warning(
                "cannot accept connections: \(String(cString: strerror(code))); "
                    + "not accepting until some close (trying again every \(Int(Self.acceptRetryDelay / .milliseconds(1))) ms)"
            )
        }
        let retry = listener.eventLoop.schedule(at: .now + Self.acceptRetryDelay) { [weak self] in
            self?.retryAccepting()
        }
        accepting.withLock { $0.retry = retry }
    }

    /// A pause is over: accepting is tried again, unless the listener has closed meanwhile.
    private func retryAccepting() {
        let stopped = accepting.withLock { accepting in
            accepting.retry = nil
            return accepting.stopped
        }
        if !stopped { acceptPending() }
    }

    /// Nothing more waits to be accepted: after a pause, the listener is watched again.
    private func resumeAccepting() {
        let listener = accepting.withLock { accepting -> ConnectionLoop? in
            guard accepting.paused, !accepting.stopped else { return nil }
            accepting.paused = false
            return accepting.listener
        }
        guard let listener else { return }
        listener.watch(read: true)
        context.logger.notice("accepting connections again")
    }

    /// The listener is closing (on its loop, just before): a retry still due is called off.
    private func stopAccepting() {
        let (retry, loop) = accepting.withLock { accepting in
            accepting.stopped = true
            defer { accepting.retry = nil }
            return (accepting.retry, accepting.listener?.eventLoop)
        }
        if let retry { loop?.cancelTimer(retry) }
    }

    private func admit(_ fd: Int32) {
        let credentials = UnixSocket.peerCredentials(of: fd)
        let uid = credentials?.uid ?? UInt32.max
        let limits = context.limits
        // The place is taken here, under the same lock as the check, so two connections cannot both take the last.
        let id = state.withLock { state -> UInt64? in
            guard !context.isShuttingDown, state.connections.count < limits.maxSessions,
                state.sessionsByUser[uid, default: 0] < limits.maxSessionsPerUser
            else { return nil }
            defer { state.nextSession += 1 }
            state.users[state.nextSession] = uid
            state.sessionsByUser[uid, default: 0] += 1
            return state.nextSession
        }
        guard let id else {
            let perUser = state.withLock { $0.sessionsByUser[uid, default: 0] } >= limits.maxSessionsPerUser
            let error: LumenError
            if context.isShuttingDown {
                error = LumenError.shuttingDown
            } else if perUser {
                error = LumenError(
                    .limitExceeded,
                    "user \(uid) already has \(limits.maxSessionsPerUser) sessions, the most lumend serves per user; "
                        + "close some and try again", data: ["uid": .int(Int(uid))])
            } else {
                error = LumenError(
                    .limitExceeded, "lumend serves at most \(limits.maxSessions) sessions; try again later")
            }
            var line = JSONRPCProcessor<Session>.errorResponse(error)
            line.append(UInt8(ascii: "\n"))
            // The socket is non-blocking: one try, and a client that cannot take a short line misses it.
            _ = line.withUnsafeBytes { UnixSocket.send(fd, $0) }
            close(fd)
            context.logger.warning(error.message, peerMetadata(credentials))
            return
        }
        let connection = ClientConnection(fd: fd, on: eventLoops.nextLoop(), limits: context.limits) {
            [weak self] reason in
            self?.remove(id: id, reason: reason)
        }
        // The session's output wakes the connection's writer through its loop (which holds no reference back to
        // the connection, so this makes no cycle and needs no weak reference, whose loads a fan-out to thousands
        // of sessions pays for each).
        let session = Session(
            id: id, context: context, simulationRefusal: simulationRefusal(credentials), isOwner: isOwner(credentials),
            eventLoop: connection.loop.eventLoop
        ) {
            [connectionLoop = connection.loop] in
            _ = connectionLoop.requestWrite()
        }
        context.hub.register(session)
        state.withLock { $0.connections[id] = connection }
        context.logger.info("client connected", [("session", String(id))] + peerMetadata(credentials))
        connection.loop.eventLoop.execute { _ in connection.start(session: session) }
    }

    /// Why a peer with `credentials` may not open the `simulation` scope; `nil` when it may.
    func simulationRefusal(_ credentials: PeerCredentials?) -> LumenError? {
        guard !mayUseSimulation(credentials) else { return nil }
        return LumenError(
            .permissionDenied,
            "the simulation scope is for root and lumend's own user; start lumend with "
                + "--simulation-access any to open it to everyone who can reach the socket")
    }

    func mayUseSimulation(_ credentials: PeerCredentials?) -> Bool {
        simulationAccess == .any || isOwner(credentials)
    }

    /// Whether a peer with `credentials` is root or lumend's own user: ``Session/isOwner``.
    func isOwner(_ credentials: PeerCredentials?) -> Bool {
        // An in-process session (the watchdog probe) has no peer and is the daemon itself.
        guard let credentials else { return true }
        return credentials.uid == 0 || credentials.uid == ownUID
    }

    private func peerMetadata(_ credentials: PeerCredentials?) -> [(String, String)] {
        guard let credentials else { return [] }
        return [
            ("peer_pid", String(credentials.pid)), ("peer_uid", String(credentials.uid)),
            ("peer_gid", String(credentials.gid)),
        ]
    }

    private func remove(id: UInt64, reason: String?) {
        state.withLock { state in
            state.connections[id] = nil
            if let uid = state.users.removeValue(forKey: id) {
                state.sessionsByUser[uid, default: 1] -= 1
                if state.sessionsByUser[uid] == 0 { state.sessionsByUser[uid] = nil }
            }
        }
        var metadata = [("session", String(id))]
        if let reason { metadata.append(("reason", reason)) }
        context.logger.info("client disconnected", metadata)
    }

    /// Stops accepting, fails device waits, sends queued replies (for up to two seconds), closes all.
    private func shutDown() async {
        context.beginShutdown()
        await context.scopeContext.home.shutDown()
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline, await anyConnectionBusy() {
            try? await clock.sleep(for: .milliseconds(10))
        }
        await withCheckedContinuation { continuation in
            let closed = Atomic(0)
            let loops = eventLoops.loops.count
            onEachLoop { connections in
                for connection in connections { connection.close(reason: nil) }
                if closed.add(1, ordering: .acquiringAndReleasing).newValue == loops { continuation.resume() }
            }
        }
    }

    /// Runs a request through the same machinery a client's request takes (decoding, the session's
    /// dispatch, the simulation's event loop, encoding) and returns when it is answered. The watchdog pings
    /// only when this returns, so a stalled daemon stops pinging.
    package func probe() async -> Bool {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        let loop = eventLoops.loops[0]
        await Task(executorPreference: loop) { [context] in
            let session = Session(id: 0, context: context, simulationRefusal: nil, eventLoop: loop) {}
            let processor = JSONRPCProcessor(handler: session, maxDepth: context.limits.maxDepth, executor: loop)
            let request = Array(
                #"{"jsonrpc":"2.0","id":"watchdog","method":"get","params":{"scope":0,"connection":"name"}}"#.utf8)
            await processor.process(line: request, replies: RepliesAsFilled { continuation.yield($0) })
            session.close()
        }.value
        var iterator = stream.makeAsyncIterator()
        guard let reply = await iterator.next() else { return false }
        return (try? JSONParser.parse(reply))?["result"] != nil
    }
}
