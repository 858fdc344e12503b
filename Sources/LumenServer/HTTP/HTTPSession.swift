import LumenProtocol
import Synchronization

/// One session of the scope protocol over HTTP: the session a socket connection would have, the requests of
/// its `POST /rpc`s, and the log its events stream reads. Everything it holds belongs to the HTTP loop.
final class HTTPSession: Sendable {
    /// The ID its requests name in their `Lumen-Session` header.
    let id: String
    let session: Session
    let processor: JSONRPCProcessor<Session>
    let events: EventLog
    private let activity: LoopBound<Activity>

    private struct Activity {
        /// Requests not answered yet: a session waiting on a device does not expire.
        var requests = 0
        /// When the last request was answered, or the last stream closed.
        var lastActive: ContinuousClock.Instant
    }

    init(id: String, number: UInt64, context: ServerContext, simulationRefusal: LumenError?, loop: EventLoop) {
        self.id = id
        let events = EventLog(on: loop)
        self.events = events
        session = Session(
            id: number, context: context, simulationRefusal: simulationRefusal, eventLoop: loop,
            commandSource: "HTTP session \(number)"
        ) {
            events.outboxReady()
        }
        events.read(from: session.outbox)
        processor = JSONRPCProcessor(
            handler: session, maxDepth: context.limits.maxDepth,
            maxBatchReplyBytes: context.limits.maxPendingReplyBytes, executor: loop)
        activity = LoopBound(Activity(lastActive: .now), on: loop)
    }

    /// Answers the requests in `body`: the reply (or the batch's), once every request in it is answered; 202
    /// when the body holds notifications only.
    func post(_ body: [UInt8]) async -> HTTPResponse {
        activity.with { $0.requests += 1 }
        defer {
            activity.with { activity in
                activity.requests -= 1
                activity.lastActive = .now
            }
        }
        let slot = ReplySlot()
        await processor.process(line: body) { slot.put($0) }
        // Whatever is not JSON, or not a request, was answered already; a reply still to come is one to a
        // request with an `id`, answered later.
        guard let reply = await slot.take(orNothingIf: !Self.holdsRequestWithID(body)) else {
            return HTTPResponse(status: 202)
        }
        return HTTPResponse(
            status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")], body: reply)
    }

    /// Whether the session may be ended for having been idle since `deadline`: no request waits, and no
    /// stream is open.
    func isIdle(since deadline: ContinuousClock.Instant) -> Bool {
        guard !events.hasStream else { return false }
        return activity.with { $0.requests == 0 && $0.lastActive < deadline }
    }

    /// A stream closed: the session's idle time counts from now.
    func touch() { activity.with { $0.lastActive = .now } }

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

/// The one reply to a `POST /rpc`'s body, which comes while it is processed or later.
private final class ReplySlot: Sendable {
    private struct State {
        var reply: [UInt8]?
        var waiter: CheckedContinuation<[UInt8]?, Never>?
    }
    private let state = Mutex(State())

    func put(_ reply: [UInt8]) {
        let waiter = state.withLock { state in
            defer { state.waiter = nil }
            state.reply = reply
            return state.waiter
        }
        waiter?.resume(returning: reply)
    }

    /// The reply, once it comes; `nil` at once if it has not come and `nothingComes`.
    func take(orNothingIf nothingComes: Bool) async -> [UInt8]? {
        if let reply = state.withLock({ $0.reply }) { return reply }
        if nothingComes { return nil }
        return await withCheckedContinuation { continuation in
            let reply = state.withLock { state -> [UInt8]? in
                if state.reply == nil { state.waiter = continuation }
                return state.reply
            }
            if let reply { continuation.resume(returning: reply) }
        }
    }
}
