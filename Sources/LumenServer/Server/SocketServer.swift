import Dispatch
import LumenModel
import LumenScopes
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The listening socket and every session on it: a ``Service`` that serves until cancelled, then stops
/// accepting, fails what is still waiting on a device with a clear error, sends what is queued, and closes.
public final class SocketServer: Service, Sendable {
    public var name: String { "socket server" }

    private struct State {
        var connections: [UInt64: ClientConnection] = [:]
        var nextSession: UInt64 = 1
    }

    /// The listening descriptor (bound here, or inherited through socket activation).
    public let listenFD: Int32
    /// The path the socket is bound to, removed at shutdown when this process created it.
    public let ownedPath: String?
    let context: ServerContext
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "lumend.accept")

    /// A server.
    /// - Parameters:
    ///   - listenFD: a listening Unix stream socket.
    ///   - ownedPath: the socket file to remove at shutdown (`nil` when socket-activated: systemd owns it).
    ///   - container: the scopes to serve.
    public init(
        listenFD: Int32, ownedPath: String?, container: ScopeContainer, limits: ServerLimits = ServerLimits(),
        simulationAccess: SimulationAccess = .owner, logger: Logger
    ) {
        self.listenFD = listenFD
        self.ownedPath = ownedPath
        context = ServerContext(
            container: container, hub: SubscriptionHub(), limits: limits, logger: logger,
            simulationAccess: simulationAccess)
    }

    /// Delivers a change event to subscribers; install it as an observer of the home.
    public func publish(_ event: ChangeEvent) { context.hub.publish(event) }

    /// The number of connected clients.
    public var sessionCount: Int { state.withLock { $0.connections.count } }

    public func run() async throws {
        UnixSocket.setNonBlocking(listenFD)
        let source = DispatchSource.makeReadSource(fileDescriptor: listenFD, queue: queue)
        source.setEventHandler { [weak self] in self?.acceptPending() }
        source.resume()
        await waitForCancellation()
        // Stop accepting first; the rest of the shutdown drains what is already connected.
        source.cancel()
        await shutDown()
    }

    private func waitForCancellation() async {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        await withTaskCancellationHandler {
            for await _ in stream {}
        } onCancel: {
            continuation.finish()
        }
    }

    private func acceptPending() {
        while true {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 {
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EAGAIN, EWOULDBLOCK: return
                default:
                    context.logger.error("accept failed: \(String(cString: strerror(errno)))")
                    return
                }
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            UnixSocket.setNonBlocking(fd)
            admit(fd)
        }
    }

    private func admit(_ fd: Int32) {
        let credentials = UnixSocket.peerCredentials(of: fd)
        guard !context.isShuttingDown, sessionCount < context.limits.maxSessions else {
            let error = LumenError(
                context.isShuttingDown ? .shuttingDown : .limitExceeded,
                context.isShuttingDown
                    ? "lumend is shutting down; retry once it is back"
                    : "lumend serves at most \(context.limits.maxSessions) sessions; try again later")
            var line = JSONRPCProcessor<Session>.response(id: .null, .failure(error))
            line.append(UInt8(ascii: "\n"))
            _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            close(fd)
            context.logger.warning(error.message, peerMetadata(credentials))
            return
        }
        let id = state.withLock { state -> UInt64 in
            defer { state.nextSession += 1 }
            return state.nextSession
        }
        let connection = ClientConnection(fd: fd, limits: context.limits) { [weak self] connection in
            self?.remove(connection, id: id)
        }
        let session = Session(id: id, context: context, credentials: credentials) { [weak connection] in
            connection?.wake()
        }
        context.hub.register(session)
        state.withLock { $0.connections[id] = connection }
        context.logger.info("client connected", [("session", String(id))] + peerMetadata(credentials))
        connection.start(session: session)
    }

    private func peerMetadata(_ credentials: PeerCredentials?) -> [(String, String)] {
        guard let credentials else { return [] }
        return [
            ("peer_pid", String(credentials.pid)), ("peer_uid", String(credentials.uid)),
            ("peer_gid", String(credentials.gid)),
        ]
    }

    private func remove(_ connection: ClientConnection, id: UInt64) {
        state.withLock { $0.connections[id] = nil }
        context.logger.debug("client disconnected", [("session", String(id))])
    }

    /// Stops accepting, fails device waits, sends queued replies (for up to `drainTimeout`), closes all.
    private func shutDown(drainTimeout: Duration = .seconds(2)) async {
        context.beginShutdown()
        if let ownedPath { unlink(ownedPath) }
        close(listenFD)
        await context.container.home.shutDown()
        let deadline = ContinuousClock.now + drainTimeout
        while ContinuousClock.now < deadline {
            let connections = state.withLock { Array($0.connections.values) }
            let busy = connections.contains {
                ($0.session?.inflight.load(ordering: .relaxed) ?? 0) > 0 || !$0.isDrained
            }
            if !busy { break }
            try? await Task.sleep(for: .milliseconds(10))
        }
        let connections = state.withLock { Array($0.connections.values) }
        for connection in connections { connection.close(reason: nil) }
    }

    /// Runs a request through the same machinery a client's request takes (decoding, the session's
    /// dispatch, the simulation's event loop, encoding) and returns when it is answered. The watchdog pings
    /// only when this returns, so a stalled daemon stops pinging.
    public func probe() async -> Bool {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        let session = Session(id: 0, context: context, credentials: nil) {}
        defer { session.close() }
        let processor = JSONRPCProcessor(handler: session, maxDepth: context.limits.maxDepth)
        let request = Array(
            #"{"jsonrpc":"2.0","id":"watchdog","method":"get","params":{"scope":0,"connection":"name"}}"#.utf8)
        await processor.process(line: request) { continuation.yield($0) }
        var iterator = stream.makeAsyncIterator()
        guard let reply = await iterator.next() else { return false }
        return (try? JSONParser.parse(reply))?["result"] != nil
    }
}
