import LumenLoop
import LumenModel
import LumenProtocol
import LumenScopes
import LumenService

#if canImport(Glibc)
    import Glibc
#endif

/// The scope protocol over HTTP, in the style of MCP's streamable HTTP transport: `POST /rpc` carries a
/// session's requests, `GET /rpc/events` streams its notices as Server-Sent Events, `DELETE /rpc` ends it
/// (`docs/protocol.md`, "Over HTTP").
///
/// Its sessions are the socket's (same methods, errors, scopes and limits), kept on the HTTP listener's loop:
/// ``respond(to:)`` is called there, and everything the front holds is touched there only.
package final class RPCOverHTTP: Sendable {
    /// What the front is given.
    package struct Settings: Sendable {
        /// The token a `hello` carries (`Authorization: Bearer …`) for its session to open the simulation scope.
        var token: String
        /// HTTP sessions served at once.
        var maxSessions = 256
        /// Subscriptions the sessions without the token hold together: anyone who reaches the listener can open
        /// sessions, and each may hold 4,096, some 350 bytes each (~22 MiB in all, where 256 sessions could
        /// otherwise hold ~400 MiB).
        var maxSharedSubscriptions = 65_536
        /// How long a session with no events stream and no request lives on.
        var sessionIdle = Duration.seconds(60)
        /// How long a request may keep its session alive while it waits for its answer: the listener's
        /// ``HTTPLimits/answerSeconds``, after which its client was answered 503.
        package var answerWait = Duration.seconds(HTTPLimits().answerSeconds)
        /// How often an open stream is sent a comment, so that a connection whose client went is noticed.
        var keepAlive = Duration.seconds(15)

        /// Which requests are lumend's own: by its address or a name it is given, from no page but its own.
        package var access = HTTPAccess()

        /// Settings.
        package init(token: String) { self.token = token }
    }

    private struct Registry {
        var sessions: [String: HTTPSession] = [:]
        var nextNumber: UInt64 = 1
        /// The timer that keeps streams alive and ends idle sessions, while there are sessions.
        var sweep: UInt64?
    }

    let context: ServerContext
    let settings: Settings
    private let registry: LoopBound<Registry>
    /// The time that sessions' idleness is measured in: the continuous clock, or a test's.
    let now: @Sendable () -> ContinuousClock.Instant

    /// A front on `loop` (the HTTP listener's) for `scopeContext`'s home, measuring its sessions' idleness by
    /// `now` (the continuous clock; a test gives its own).
    package init(
        scopeContext: ScopeContext, loop: EventLoop, limits: ServerLimits = ServerLimits(), settings: Settings,
        logger: Logger, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.now = now
        var limits = limits
        limits.maxSharedSubscriptions = settings.maxSharedSubscriptions
        context = ServerContext(scopeContext: scopeContext, limits: limits, logger: logger)
        self.settings = settings
        registry = LoopBound(Registry(), on: loop)
    }

    /// Delivers a change event to the sessions' subscriptions; install it as a watcher of the home.
    package func publish(_ event: ChangeEvent) { context.hub.publish(event) }

    /// The largest body `POST /rpc` takes: a socket's longest line.
    package var maxBodyBytes: Int { context.limits.maxLineBytes }

    /// The paths the front answers.
    package static let paths: Set<String> = ["/rpc", "/rpc/events"]

    /// The answer to a request for one of ``paths``; `nil` for any other path.
    package func respond(to request: HTTPRequest) -> HTTPReply? {
        guard Self.paths.contains(request.path) else { return nil }
        if let refusal = refusal(of: request) { return .now(refusal) }
        switch (request.path, request.method) {
        case ("/rpc", "POST"):
            guard let id = request.headers["lumen-session"] else { return hello(request) }
            guard let session = registry.with({ $0.sessions[id] }) else { return .now(Self.unknown(id)) }
            return .later(session.post(request.body))
        case ("/rpc", "DELETE"):
            guard let id = request.headers["lumen-session"], let session = remove(id) else {
                return .now(Self.unknown(request.headers["lumen-session"] ?? ""))
            }
            session.close()
            return .now(HTTPResponse(status: 204))
        case ("/rpc/events", "GET"):
            let id = request.headers["lumen-session"] ?? request.query["session"] ?? ""
            guard let session = registry.with({ $0.sessions[id] }) else { return .now(Self.unknown(id)) }
            let stream = session.events.openStream(lastEventID: request.headers["last-event-id"])
            return .stream(
                HTTPResponse(
                    status: 200,
                    headers: [
                        ("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"),
                        ("X-Accel-Buffering", "no"),
                    ]),
                stream)
        case ("/rpc", _):
            return .now(HTTPResponse(status: 405, headers: [("Allow", "POST, DELETE")]))
        default:
            return .now(HTTPResponse(status: 405, headers: [("Allow", "GET")]))
        }
    }

    /// A `POST /rpc` with no session: a lone `hello` starts one.
    private func hello(_ request: HTTPRequest) -> HTTPReply {
        guard let document = try? JSONParser.parse(request.body), document["method"]?.stringValue == "hello",
            document["id"] != nil
        else {
            return .now(
                Self.failure(
                    LumenError(
                        .invalidRequest,
                        "Invalid Request: no Lumen-Session header; start a session with a lone hello request, "
                            + "whose reply's Lumen-Session header names it"), status: 400))
        }
        guard let session = makeSession(authorization: request.headers["authorization"]) else {
            return .now(
                Self.failure(
                    LumenError(
                        .limitExceeded,
                        "lumend serves at most \(settings.maxSessions) HTTP sessions; end one (DELETE /rpc) or "
                            + "try again later"), status: 503))
        }
        let work = session.post(request.body)
        return .later {
            var response = await work()
            response.headers.append(("Lumen-Session", session.id))
            return response
        }
    }

    private func makeSession(authorization: String?) -> HTTPSession? {
        // The scheme's name is case-insensitive (RFC 9110, 11.1).
        let bearer = authorization.flatMap { $0.lowercased().hasPrefix("bearer ") ? String($0.dropFirst(7)) : nil }
        let refusal: LumenError? =
            switch bearer.map({ Self.equalInConstantTime($0, settings.token) }) {
            case true?: nil
            case false?:
                LumenError(
                    .permissionDenied,
                    "the token this session's hello sent is not lumend's: send the one lumend logs at start (or the "
                        + "first line of the file --http-token-file names) with a new hello")
            case nil:
                LumenError(
                    .permissionDenied,
                    "the simulation scope over HTTP needs lumend's token: send 'Authorization: Bearer TOKEN' with "
                        + "hello (lumend logs the token at start; --http-token-file sets it)")
            }
        if registry.with({ $0.sessions.count >= settings.maxSessions }) { evictQuietest(holdingToken: refusal == nil) }
        let made = registry.with { registry -> (HTTPSession, startSweep: Bool)? in
            guard registry.sessions.count < settings.maxSessions else { return nil }
            defer { registry.nextNumber += 1 }
            let session = HTTPSession(
                id: .unguessable(), number: registry.nextNumber, context: context, simulationRefusal: refusal,
                loop: self.registry.loop, now: now)
            registry.sessions[session.id] = session
            return (session, registry.sweep == nil)
        }
        guard let (session, startSweep) = made else { return nil }
        context.hub.register(session.session)
        if startSweep { scheduleSweep() }
        return session
    }

    /// Ends the session that has been quiet longest (no stream, no request waiting), if one is: a client that
    /// went without ending its session does not hold a place another needs, unless it holds the token and the
    /// new one does not. For a `hello` with the token,
    /// when none is quiet, the session without the token seen longest ago makes room: whoever runs lumend is
    /// never locked out by sessions that anyone who reaches the listener can open.
    private func evictQuietest(holdingToken: Bool) {
        // A session with the token gives way only to another with it.
        let sessions = registry.with { Array($0.sessions.values) }.filter { holdingToken || !$0.holdsToken }
        let quietest =
            sessions.filter(\.isQuiet).min { $0.lastSeen < $1.lastSeen }
            ?? (holdingToken ? sessions.filter { !$0.holdsToken }.min { $0.lastSeen < $1.lastSeen } : nil)
        guard let quietest else { return }
        _ = remove(quietest.id)
        quietest.close()
    }

    /// Ends every session: the listener stops.
    package func closeAll() {
        let (sessions, sweep) = registry.with { registry -> ([HTTPSession], UInt64?) in
            defer { registry = Registry() }
            return (Array(registry.sessions.values), registry.sweep)
        }
        if let sweep { _ = registry.loop.cancelTimer(sweep) }
        for session in sessions {
            context.hub.unregister(session.session)
            session.close()
        }
    }

    private func remove(_ id: String) -> HTTPSession? {
        let session = registry.with { $0.sessions.removeValue(forKey: id) }
        if let session { context.hub.unregister(session.session) }
        return session
    }

    private func scheduleSweep() {
        let loop = registry.loop
        let timer = loop.schedule(at: .now + settings.keepAlive) { [self] in
            registry.with { $0.sweep = nil }
            sweep(now: now())
        }
        registry.with { $0.sweep = timer }
    }

    /// Keeps every open stream alive, and ends the sessions idle for longer than ``Settings/sessionIdle``.
    func sweep(now: ContinuousClock.Instant) {
        let sessions = registry.with { Array($0.sessions.values) }
        for session in sessions {
            if session.isIdle(
                since: now - settings.sessionIdle, stuck: now - settings.sessionIdle - settings.answerWait)
            {
                _ = remove(session.id)
                session.close()
            } else {
                session.events.keepAlive()
            }
        }
        if registry.with({ !$0.sessions.isEmpty && $0.sweep == nil }) { scheduleSweep() }
    }

    /// The loop the front's sessions are served on.
    var loop: EventLoop { registry.loop }

    /// The session named `id`, if it is open.
    func session(_ id: String) -> HTTPSession? { registry.with { $0.sessions[id] } }

    /// The sessions open now.
    var sessionCount: Int { registry.with { $0.sessions.count } }

    /// Why `request` is refused (403), if it is: see ``HTTPAccess``.
    private func refusal(of request: HTTPRequest) -> HTTPResponse? {
        guard let why = settings.access.refusal(of: request) else { return nil }
        return Self.failure(LumenError(.permissionDenied, why), status: 403)
    }

    private static func unknown(_ id: String) -> HTTPResponse {
        failure(
            LumenError(
                .noSuchSession,
                "no HTTP session '\(id)': it expired, was ended, or lumend restarted; start another with hello"),
            status: 404)
    }

    private static func failure(_ error: LumenError, status: Int) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
            body: JSONRPCProcessor<Session>.errorResponse(error))
    }

    /// Whether `given` is `expected`, in a time that does not depend on where they differ.
    static func equalInConstantTime(_ given: String, _ expected: String) -> Bool {
        let (a, b) = (Array(given.utf8), Array(expected.utf8))
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
