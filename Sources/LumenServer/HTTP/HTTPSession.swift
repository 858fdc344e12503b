import LumenLoop
import LumenProtocol

/// One session of the scope protocol over HTTP: the session a socket connection would have, the requests of
/// its `POST /rpc`s, and the log its events stream reads. Everything it holds belongs to the HTTP loop.
final class HTTPSession: Sendable {
    /// The ID its requests name in their `Lumen-Session` header.
    let id: String
    /// Whether its `hello` carried lumend's token: such a session is always given a place.
    let holdsToken: Bool
    let session: Session
    let processor: JSONRPCProcessor<Session>
    let events: EventLog
    private let activity: LoopBound<Activity>
    /// The time, as the front's clock tells it.
    private let now: @Sendable () -> ContinuousClock.Instant

    private struct Activity {
        /// Requests not answered yet: a session waiting on a device does not expire while the answer may still
        /// reach its client.
        var requests = 0
        /// When the last request came or was answered.
        var lastActive: ContinuousClock.Instant
    }

    init(
        id: String, number: UInt64, context: ServerContext, simulationRefusal: LumenError?, loop: EventLoop,
        now: @escaping @Sendable () -> ContinuousClock.Instant
    ) {
        self.id = id
        self.now = now
        holdsToken = simulationRefusal == nil
        let events = EventLog(on: loop, now: now)
        self.events = events
        session = Session(
            id: number, context: context, simulationRefusal: simulationRefusal, eventLoop: loop,
            commandSource: "HTTP session \(number)"
        ) { [weak events] in
            // Weak: the log holds the outbox, which holds this.
            events?.outboxReady()
        }
        events.read(from: session.outbox)
        processor = JSONRPCProcessor(
            handler: session, maxDepth: context.limits.maxDepth,
            maxBatchReplyBytes: context.limits.maxPendingReplyBytes, executor: loop)
        activity = LoopBound(Activity(lastActive: now()), on: loop)
    }

    /// The work that answers the requests in `body`: the reply (or the batch's), once every request in it is
    /// answered; 202 when the body holds notifications only. The request counts as waiting from now, so the
    /// session is neither expired nor made room of before the work begins.
    func post(_ body: [UInt8]) -> @Sendable () async -> HTTPResponse {
        activity.with { activity in
            activity.requests += 1
            activity.lastActive = now()
        }
        return { await self.answer(body) }
    }

    private func answer(_ body: [UInt8]) async -> HTTPResponse {
        defer {
            activity.with { activity in
                activity.requests -= 1
                activity.lastActive = now()
            }
        }
        let slot = ReplySlot(on: activity.loop)
        await processor.process(line: body, replies: RepliesAsFilled { slot.put($0) })
        // Whatever is not JSON, or not a request, was answered already; a reply still to come is one to a
        // request with an `id`, answered later.
        guard let reply = await slot.take(orNothingIf: !Self.holdsRequestWithID(body)) else {
            return HTTPResponse(status: 202)
        }
        return HTTPResponse(
            status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")], body: reply)
    }

    /// Whether the session may be ended: no stream is open, and it was last seen (``lastSeen``) before
    /// `deadline`; or, with a request still waiting, before `stuck`, after which that request's client has been
    /// answered 503 (a write waiting for a virtual clock nobody moves).
    func isIdle(since deadline: ContinuousClock.Instant, stuck: ContinuousClock.Instant) -> Bool {
        guard !events.hasStream else { return false }
        return lastSeen < (activity.with { $0.requests == 0 } ? deadline : stuck)
    }

    /// Whether no request waits and no stream is open: the session may be ended to make room for another.
    var isQuiet: Bool { !events.hasStream && activity.with { $0.requests == 0 } }

    /// When the session was last seen: its last request or answer, or its last stream's close.
    var lastSeen: ContinuousClock.Instant {
        let active = activity.with { $0.lastActive }
        return events.lastStreamClosed.map { max($0, active) } ?? active
    }

    /// Ends the session: its stream ends, its scopes close and its subscriptions end.
    func close() {
        events.close()
        session.close()
    }

    /// Whether `body` is a request or batch in which some request has an `id`: one a reply is owed to.
    static func holdsRequestWithID(_ body: [UInt8]) -> Bool {
        guard let document = try? JSONParser.parse(body) else { return false }
        switch document {
        case .object(let object): return object["id"] != nil
        case .array(let elements): return elements.contains { $0.objectValue?["id"] != nil }
        default: return false
        }
    }
}

/// The one reply to a `POST /rpc`'s body, which comes while it is processed or later, on the session's loop.
private final class ReplySlot: Sendable {
    private struct State {
        var reply: [UInt8]?
        var waiter: CheckedContinuation<[UInt8]?, Never>?
    }
    private let state: LoopBound<State>

    init(on loop: EventLoop) { state = LoopBound(State(), on: loop) }

    func put(_ reply: [UInt8]) {
        let waiter = state.with { state in
            defer { state.waiter = nil }
            state.reply = reply
            return state.waiter
        }
        waiter?.resume(returning: reply)
    }

    /// The reply, once it comes; `nil` at once if it has not come and `nothingComes` (asked only then: the
    /// answer may cost a parse of the body).
    func take(orNothingIf nothingComes: @autoclosure () -> Bool) async -> [UInt8]? {
        if let reply = state.with({ $0.reply }) { return reply }
        if nothingComes() { return nil }
        return await withCheckedContinuation { continuation in
            let reply = state.with { state -> [UInt8]? in
                if state.reply == nil { state.waiter = continuation }
                return state.reply
            }
            if let reply { continuation.resume(returning: reply) }
        }
    }
}
