import LumenLoop
import LumenProtocol

/// The notices of one session over HTTP, numbered as they are sent, with the last of them kept so that a
/// client that reconnects with `Last-Event-ID` is sent again what it missed.
///
/// Notices wait in the session's outbox (coalesced there as on the socket) until a stream takes them; each is
/// then given the next event ID and kept, up to ``keptEvents`` events and ``keptBytes`` bytes.
final class EventLog: Sendable {
    /// The most events kept for resuming.
    static let keptEvents = 1_024
    /// The most bytes of events kept for resuming.
    static let keptBytes = 256 << 10

    private struct State {
        var outbox: Outbox?
        var nextID: UInt64 = 1
        /// Events sent, oldest first, from `head`.
        var kept: [(id: UInt64, bytes: [UInt8])] = []
        var head = 0
        var keptBytes = 0
        /// The stream open now, if any.
        var stream: EventStream?
        /// When the last stream closed.
        var streamClosed: ContinuousClock.Instant?
    }

    private let state: LoopBound<State>
    private let now: @Sendable () -> ContinuousClock.Instant

    init(on loop: EventLoop, now: @escaping @Sendable () -> ContinuousClock.Instant) {
        state = LoopBound(State(), on: loop)
        self.now = now
    }

    /// Whether a stream is open.
    var hasStream: Bool { state.with { $0.stream != nil } }

    /// When the last stream closed, if one did.
    var lastStreamClosed: ContinuousClock.Instant? { state.with { $0.streamClosed } }

    /// Reads notices from `outbox` from now on.
    func read(from outbox: Outbox) { state.with { $0.outbox = outbox } }

    /// The outbox has notices: the stream, if one is open, takes them.
    func outboxReady() { state.with { $0.stream }?.wakeServer() }

    /// A new stream, which ends the one open before. With `lastEventID` it first sends the events after that
    /// one again, or a `reload` notice when they are no longer all kept; without, it sends a `reload` notice if
    /// the session was sent events before.
    func openStream(lastEventID: String?) -> EventStream {
        let (previous, opening) = state.with { state -> (EventStream?, [UInt8]) in
            var opening = Array("retry: 2000\n\n".utf8)
            let last = state.nextID - 1
            if let lastEventID {
                if let seen = UInt64(lastEventID), seen <= last,
                    seen == last || (state.head < state.kept.count && state.kept[state.head].id <= seen + 1)
                {
                    for event in state.kept[state.head...] where event.id > seen { opening += event.bytes }
                } else {
                    opening += Self.event(
                        &state,
                        Self.reload("events after \(lastEventID) are no longer kept; read the values shown again"))
                }
            } else if last > 0 {
                opening += Self.event(
                    &state, Self.reload("this session's stream was opened before; read the values shown again"))
            }
            let previous = state.stream
            return (previous, opening)
        }
        previous?.end()
        let stream = EventStream(log: self, opening: opening, on: state.loop)
        state.with { $0.stream = stream }
        return stream
    }

    /// `stream` is closed; the log no longer sends to it.
    func streamClosed(_ stream: EventStream) {
        state.with { state in
            guard state.stream === stream else { return }
            state.stream = nil
            state.streamClosed = now()
        }
    }

    /// Sends a comment down the open stream, so that a connection whose client went is noticed.
    func keepAlive() { state.with { $0.stream }?.send(Array(": keep-alive\n\n".utf8)) }

    /// Ends the open stream, if any, and lets go of the outbox and the events kept: the session is over.
    func close() {
        let stream = state.with { state -> EventStream? in
            defer { state = State() }
            return state.stream
        }
        stream?.end()
    }

    /// The notices waiting in the outbox, as numbered events; empty when none wait.
    func takeEvents() -> [UInt8] {
        state.with { state in
            guard let outbox = state.outbox else { return [] }
            let lines = outbox.take(maxBytes: 64 << 10)
            var events: [UInt8] = []
            for line in lines.split(separator: UInt8(ascii: "\n")) { events += Self.event(&state, Array(line)) }
            return events
        }
    }

    /// `notice` as the next event, kept.
    private static func event(_ state: inout State, _ notice: [UInt8]) -> [UInt8] {
        var event = Array("id: ".utf8)
        Outbox.appendDecimal(state.nextID, to: &event)
        event += Array("\ndata: ".utf8)
        event += notice
        event += Array("\n\n".utf8)
        state.kept.append((state.nextID, event))
        state.keptBytes += event.count
        state.nextID += 1
        while state.kept.count - state.head > keptEvents || state.keptBytes > keptBytes {
            state.keptBytes -= state.kept[state.head].bytes.count
            state.kept[state.head].bytes = []
            state.head += 1
        }
        if state.head > keptEvents {
            state.kept.removeFirst(state.head)
            state.head = 0
        }
        return event
    }

    private static func reload(_ reason: String) -> [UInt8] {
        Array(Wire.notification(.reload, params: ["reason": .string(reason)]))
    }
}

/// The body of one `GET /rpc/events` response: the events of its session's log, as they come.
final class EventStream: HTTPStreamBody {
    private struct State {
        var log: EventLog?
        /// What is still to be sent, from `offset`.
        var pending: [UInt8]
        var offset = 0
        var wake: (@Sendable () -> Void)?
        var isEnded = false
    }

    private let state: LoopBound<State>

    init(log: EventLog, opening: [UInt8], on loop: EventLoop) {
        state = LoopBound(State(log: log, pending: opening), on: loop)
    }

    func start(wake: @escaping @Sendable () -> Void) { state.with { $0.wake = wake } }

    func next(maxBytes: Int) -> [UInt8]? {
        guard let log = state.with({ $0.isEnded ? nil : $0.log }) else { return nil }
        if state.with({ $0.offset >= $0.pending.count }) {
            let events = log.takeEvents()
            state.with { state in
                state.pending = events
                state.offset = 0
            }
        }
        return state.with { state in
            let end = min(state.pending.count, state.offset + maxBytes)
            defer { state.offset = end }
            return Array(state.pending[state.offset..<end])
        }
    }

    /// Never: a session's notices waiting for a slow client are bounded in its outbox, which past 256 KiB keeps one
    /// notice a subscription, its latest value, rather than let the client go.
    var isCut: Bool { false }

    func finish() {
        let log = state.with { state -> EventLog? in
            state.isEnded = true
            defer { state.log = nil }
            return state.log
        }
        log?.streamClosed(self)
    }

    /// There may be events to take: wakes the server if it waits for more.
    func wakeServer() { state.with { $0.wake }?() }

    /// Sends `bytes` after what is pending.
    func send(_ bytes: [UInt8]) {
        state.with { state in
            state.pending.removeFirst(state.offset)
            state.offset = 0
            state.pending += bytes
        }
        wakeServer()
    }

    /// Ends the stream: the server closes the response at its next read.
    func end() {
        state.with { $0.isEnded = true }
        wakeServer()
    }
}
