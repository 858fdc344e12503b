import LumenLoop
import LumenProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// One accepted socket: reads lines into its session and writes the session's output, never blocking.
///
/// The connection's ``EventLoop`` handles the socket's readiness and runs the session's task, so a request is
/// read, answered and its reply written on one thread, in turn with the other connections that loop serves.
///
/// Reading stops while the session has many lines waiting (back-pressure), and output comes from the
/// session's ``Outbox`` as the socket drains, so a slow client gets coalesced notices, not an ever-growing
/// queue.
final class ClientConnection: Sendable {
    private struct IO {
        var readSuspended = false
        var writeArmed = false
        var framer: LineFramer
        var pending: [UInt8] = []
        var pendingOffset = 0
        /// The client shut its write side: nothing more will be read.
        var inputEnded = false
        /// Every request read has been answered: close once the output is written.
        var finishing = false
        /// Since when the connection owes a complete request: from connecting until its first, and from the
        /// first byte of a line until its end; `nil` while none is owed.
        var awaitingRequestSince: ContinuousClock.Instant? = .now
        var requestsRead = 0
        var closed = false
        /// Lines read and not yet handed to the session, in order.
        var queued = LineQueue()
        /// A task is handling the session's requests: new lines wait in `queued` for it.
        var processing = false
        /// The session served, and how its requests are handled and answered: set once, when serving starts.
        var session: Session?
        var serving: Serving?
    }

    /// How the session's requests are handled and answered: set once, when serving starts.
    private struct Serving: Sendable {
        let processor: JSONRPCProcessor<Session>
        let replies: Replies
    }

    /// The places of the session's replies: its outbox's, each fill written out at once.
    private struct Replies: ReplySink {
        let outbox: Outbox
        /// Weak: a write waiting on a device holds its reply, which must not keep a closed connection.
        weak var connection: ClientConnection?

        func reserve() -> UInt64 { outbox.reserve() }

        func fill(_ slot: UInt64, with bytes: [UInt8]?) {
            guard let connection else { return }
            if let overflow = outbox.fillReply(slot, with: bytes, wakeWriter: false) {
                return connection.overflowed(overflow)
            }
            connection.flush()
        }

        func hold(_ slot: UInt64) { outbox.hold(slot) }
    }

    let fd: Int32
    /// The connection's place on its event loop: socket events, and the session's task, run there.
    let loop: ConnectionLoop
    let limits: ServerLimits
    /// Touched only on the loop's thread.
    private let io: LoopBound<IO>
    private let closedHandler: @Sendable (_ reason: String?) -> Void

    /// Requests a read may answer at once, before the rest of what it read waits for the session's task
    /// (which yields between requests): a flood of cheap requests then takes its turns like any other.
    static let answeredPerRead = 16
    /// The bytes of requests a read may parse at once, likewise: a line longer than this (a large batch) is
    /// parsed by the session's task, in a turn of its own, not in the turn that read it.
    static let bytesAnsweredPerRead = 16 << 10

    /// A connection served by `eventLoop`; `onClose` hears of its end, with the reason when the server
    /// ended it.
    init(
        fd: Int32, on eventLoop: EventLoop, limits: ServerLimits,
        onClose: @escaping @Sendable (_ reason: String?) -> Void
    ) {
        self.fd = fd
        self.limits = limits
        io = LoopBound(IO(framer: LineFramer(maxLineBytes: limits.maxLineBytes)), on: eventLoop)
        loop = ConnectionLoop(fd: fd, on: eventLoop)
        closedHandler = onClose
    }

    var session: Session? { io.with { $0.session } }

    /// Starts reading and serving `session`, on the loop's thread.
    func start(session: Session) {
        let replies = Replies(outbox: session.outbox, connection: self)
        let processor = JSONRPCProcessor(
            handler: session, maxDepth: limits.maxDepth, maxBatchReplyBytes: limits.maxPendingReplyBytes,
            executor: loop.eventLoop)
        io.with { io in
            io.session = session
            io.serving = Serving(processor: processor, replies: replies)
        }
        loop.start { [weak self] context in
            self?.readAvailable(context)
        } writable: { [weak self] in
            self?.writable()
        } outputWaiting: { [self] in
            // Strong: the loop drops this handler when the connection stops (``ConnectionLoop/stop(then:)``).
            flush()
        }
    }

    /// Queues a reply and writes what the socket takes. Called on the loop's thread: from the read handler,
    /// or from the session's tasks, which run on the loop.
    func send(reply bytes: [UInt8]) {
        guard let outbox = session?.outbox else { return }
        if let overflow = outbox.enqueue(bytes, wakeWriter: false) { return overflowed(overflow) }
        flush()
    }

    /// Handles the lines a read finished. A request that can be answered at once (a `get` of a published
    /// value) is answered here, on the loop, with no task to wake; the first that cannot starts a task on
    /// the loop's executor, and the lines after it wait for that task, so requests are handed to the session
    /// in order.
    private func handle(_ lines: [[UInt8]]) {
        guard let serving = io.with({ $0.serving }), !lines.isEmpty else { return }
        var index = 0
        var bytes = 0
        while index < lines.count, index < Self.answeredPerRead {
            let busy = io.with { $0.processing || $0.closed }
            if busy { break }
            let line = lines[index]
            bytes += line.count
            // Checked before parsing: what the budget cannot take waits for the task, which parses a large
            // batch in slices.
            if bytes > Self.bytesAnsweredPerRead { break }
            index += 1
            if let pending = serving.processor.processNow(line: line, replies: serving.replies) {
                io.with { $0.processing = true }
                startProcessing(serving, first: pending)
                break
            }
        }
        guard index < lines.count else { return }
        let (start, suspend) = io.with { state -> (Bool, Bool) in
            state.queued.append(contentsOf: lines[index...])
            let start = !state.processing && !state.closed
            if start { state.processing = true }
            let suspend = state.queued.isFull && !state.readSuspended
            if suspend { state.readSuspended = true }
            return (start, suspend)
        }
        if start { startProcessing(serving, first: nil) }
        if suspend { loop.watch(read: false) }
    }

    /// The session's task: handles `first`, then every line queued behind it, yielding between them while
    /// more wait so the loop's other connections get their turns; ends when none is left.
    private func startProcessing(_ serving: Serving, first: JSONRPCProcessor<Session>.Pending?) {
        Task(executorPreference: loop.eventLoop) { [self] in
            if let first { await serving.processor.finish(first) }
            while let (line, waiting, resume) = nextQueued() {
                if resume { resumeReading() }
                // Answered at once when it can be, as lines read while nothing waits are; a large batch is
                // parsed in slices, with turns for the loop's other connections between them.
                await serving.processor.process(line: line, replies: serving.replies)
                // A client with more requests queued yields after each; one that waits for each reply has
                // nothing queued and loses no time to it.
                if waiting > 0 { await Task.yield() }
            }
            if io.with({ $0.inputEnded && !$0.closed }) { await finishInput() }
        }
    }

    /// The next queued line, how many wait behind it and whether reading, suspended, may go on; `nil` (and the
    /// task's end) when none is left.
    private func nextQueued() -> ([UInt8], waiting: Int, resume: Bool)? {
        io.with { state in
            guard !state.closed, let line = state.queued.popFirst() else {
                state.processing = false
                return nil
            }
            return (line, state.queued.count, state.readSuspended && state.queued.hasRoom)
        }
    }

    /// Input ended (the client half-closed) and every request read has been handed over: answer what is
    /// still waiting, then close.
    private func finishInput() async {
        guard let session else { return }
        await session.waitUntilIdle()
        let outbox = session.outbox
        loop.submit { [weak self] in
            guard let self else { return }
            let drained = self.io.with { $0.pending.count == $0.pendingOffset }
            if drained && outbox.pendingReplyBytes == 0 { self.close(reason: nil) } else { self.closeWhenDrained() }
        }
    }

    private func closeWhenDrained() {
        io.with { $0.finishing = true }
        flush()
    }

    // MARK: - Reading

    /// One read a turn: the loop comes back while more is waiting (its `epoll` is level-triggered), and the
    /// other connections it serves get their turns between.
    private func readAvailable(_ context: LoopContext) {
        guard !io.with({ $0.readSuspended || $0.closed }) else { return }
        switch context.read(fd, { chunk in feed(chunk) }) {
        case .moved, .wouldBlock: return
        case .end: endInput()
        case .failed(let code): close(reason: "read failed: \(String(cString: strerror(code)))")
        }
    }

    private func endInput() {
        let idle = io.with { state -> Bool in
            state.readSuspended = true
            state.inputEnded = true
            return !state.processing
        }
        loop.watch(read: false)
        if idle { Task(executorPreference: loop.eventLoop) { await self.finishInput() } }
    }

    private func feed(_ bytes: ArraySlice<UInt8>) {
        let (ready, overlong) = io.with { state -> ([[UInt8]], Bool) in
            let (lines, overlong) = state.framer.feed(bytes)
            state.requestsRead += lines.count
            if !lines.isEmpty { state.awaitingRequestSince = nil }
            // A line begun and not finished is owed from now; a connection that never sent one owes its first.
            if state.framer.hasPartialLine, state.awaitingRequestSince == nil, state.requestsRead > 0 {
                state.awaitingRequestSince = .now
            }
            return (lines, overlong)
        }
        if overlong, let session {
            let error = LumenError(
                .limitExceeded,
                "request line longer than \(limits.maxLineBytes) bytes; the rest of the line is skipped")
            if let overflow = session.outbox.enqueue(JSONRPCProcessor<Session>.errorResponse(error)) {
                overflowed(overflow)
            }
        }
        handle(ready)
    }

    private func resumeReading() {
        let resume = io.with { state -> Bool in
            guard state.readSuspended, !state.inputEnded, !state.closed else { return false }
            state.readSuspended = false
            // A line begun before the suspension is owed from now: the time reading was suspended was the
            // server's, not the client's.
            if state.framer.hasPartialLine { state.awaitingRequestSince = .now }
            return true
        }
        if resume { loop.watch(read: true) }
    }

    // MARK: - Writing

    private func writable() {
        let disarm = io.with { state -> Bool in
            defer { state.writeArmed = false }
            return state.writeArmed
        }
        if disarm { loop.watch(write: false) }
        flush()
    }

    /// Writes what the socket takes. Runs on the loop's thread only, so the bytes can be taken out of the
    /// state and written with no lock held across `send`.
    private func flush() {
        guard let outbox = session?.outbox else { return }
        while true {
            let next = io.with { state -> FlushStep in
                if state.closed { return .stop }
                if state.pendingOffset == state.pending.count {
                    state.pending = outbox.take(maxBytes: 256 * 1_024)
                    state.pendingOffset = 0
                    // Not at the end of input: requests read before it may still be waiting for their answers.
                    if state.pending.isEmpty { return state.finishing ? .finished : .stop }
                }
                return .write(state.pending, from: state.pendingOffset)
            }
            guard case .write(let bytes, let offset) = next else {
                if case .finished = next { close(reason: nil) }
                return
            }
            let sent = bytes.withUnsafeBytes { UnixSocket.send(fd, UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            switch sent {
            case .moved(let count):
                io.with { $0.pendingOffset += count }
            case .wouldBlock:
                let arm = io.with { state -> Bool in
                    defer { state.writeArmed = true }
                    return !state.writeArmed
                }
                if arm { loop.watch(write: true) }
                return
            case .failed(let code):
                // A client that hangs up without reading its replies is ordinary, not worth a warning.
                let hungUp = code == EPIPE || code == ECONNRESET
                close(reason: hungUp ? nil : "write failed: \(String(cString: strerror(code)))")
                return
            case .end:
                close(reason: nil)
                return
            }
        }
    }

    private enum FlushStep {
        case write([UInt8], from: Int)
        case stop, finished
    }

    /// Disconnects the client, which left unread what `overflow` says.
    private func overflowed(_ overflow: Outbox.Overflow) {
        loop.submit { [weak self] in
            self?.close(reason: "client is not reading its replies (\(overflow.reason)); disconnected")
        }
    }

    /// Whether reading is suspended: many lines, or many bytes of them, wait to be handed to the session.
    var isReadingSuspended: Bool { io.with { $0.readSuspended } }

    /// The bytes of the lines read and not yet handed to the session.
    var queuedLineBytes: Int { io.with { $0.queued.bytes } }

    /// Complete request lines read so far.
    var requestsReadCount: Int { io.with { $0.requestsRead } }

    /// Whether everything queued has been written.
    var isDrained: Bool {
        let bufferEmpty = io.with { $0.pending.count == $0.pendingOffset || $0.closed }
        return bufferEmpty && (session?.outbox.pendingReplyBytes ?? 0) == 0
    }

    /// Why the connection should be closed for owing a request longer than `grace`, or `nil`. Time spent
    /// with reading suspended (the server's own back-pressure) or after end of input does not count.
    func overdue(now: ContinuousClock.Instant, grace: Duration) -> String? {
        io.with { state in
            guard let since = state.awaitingRequestSince, !state.readSuspended, !state.closed, !state.finishing,
                now - since >= grace
            else { return nil }
            let seconds = grace.components.seconds > 0 ? "\(grace.components.seconds) s" : "\(grace)"
            return state.requestsRead == 0
                ? "no complete request within \(seconds) of connecting; closed"
                : "a request line not finished within \(seconds); closed"
        }
    }

    // MARK: - Closing

    /// Closes a connection that owed a request too long (``overdue(now:grace:)``), once it has told the client
    /// why in a JSON-RPC error line: a client that waited in silence would otherwise see only the close.
    func closeOverdue(reason: String) {
        if let session { session.context.logger.warning(reason, [("session", String(session.id))]) }
        let why = reason.hasSuffix("; closed") ? String(reason.dropLast(8)) : reason
        let error = LumenError(
            .timedOut,
            why + "; the connection is closed: send a request (hello, say) as soon as you connect, and finish each "
                + "line you start")
        send(reply: JSONRPCProcessor<Session>.errorResponse(error))
        closeWhenDrained()
    }

    /// Closes the connection; `reason` is logged when the server, not the client, ended it.
    func close(reason: String?) {
        let first = io.with { state -> Bool in
            guard !state.closed else { return false }
            state.closed = true
            state.pending = []
            return true
        }
        guard first else { return }
        session?.close()
        if let reason, let session {
            session.context.logger.warning(reason, [("session", String(session.id))])
        }
        // The loop closes the socket after the work already queued; the server forgets the session just before.
        loop.stop(closing: { [self] in closedHandler(reason) })
    }
}
