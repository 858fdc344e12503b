import LumenLoop
import LumenProtocol
import LumenScopes
import LumenService
import LumenSimulation

/// A session with no socket: bytes in, the bytes a client would read out, against a home in this process.
/// It takes the path a connection's bytes take (line framing, JSON-RPC decoding, dispatch, subscriptions),
/// so a fuzzer or a harness can drive the protocol without a socket. It watches the home as lumend's server
/// does, so the notices of its subscriptions come out with the replies, until it is closed.
///
/// ```swift
/// let session = InProcessSession(scopeContext: ScopeContext(home: home))
/// let output = await session.feed(Array(#"{"jsonrpc":"2.0","id":1,"method":"hello"}\n"#.utf8))
/// ```
package final class InProcessSession: Sendable {
    let session: Session
    private let framer: LoopBound<LineFramer>
    private let processor: JSONRPCProcessor<Session>
    private let home: Home
    /// The session's subscriptions' registration as a watcher of the home: made with the session, awaited
    /// before its first request is read, removed when it closes.
    private let watching: Task<Home.WatcherID, Never>

    /// The loop every in-process session is served on, as a connection is on its own.
    static let loop = EventLoop(name: "lumen.in-process")

    /// A session on `scopeContext`'s home, with the default ``ServerLimits``.
    package init(scopeContext: ScopeContext) {
        let limits = ServerLimits()
        let context = ServerContext(
            scopeContext: scopeContext, limits: limits, logger: Logger(level: .critical, handler: MemoryLogHandler()))
        session = Session(id: 1, context: context, simulationRefusal: nil, eventLoop: Self.loop) {}
        context.hub.register(session)
        let (home, hub) = (scopeContext.home, context.hub)
        self.home = home
        watching = Task { await home.addWatcher { hub.publish($0) } }
        framer = LoopBound(LineFramer(maxLineBytes: limits.maxLineBytes), on: Self.loop)
        processor = JSONRPCProcessor(
            handler: session, maxDepth: limits.maxDepth, maxBatchReplyBytes: limits.maxPendingReplyBytes,
            executor: Self.loop)
    }

    /// Feeds bytes as a client would send them; returns what the client would read once every request they
    /// finished is answered (writes waiting on a device are answered when the device applies them).
    package func feed(_ bytes: [UInt8]) async -> [UInt8] {
        await Task(executorPreference: Self.loop) { [self] in
            _ = await watching.value
            let (lines, overlong) = framer.with { $0.feed(bytes[...]) }
            if overlong {
                let error = LumenError(.limitExceeded, "request line too long; the rest of the line is skipped")
                _ = session.outbox.enqueue(JSONRPCProcessor<Session>.errorResponse(error))
            }
            for line in lines {
                await processor.process(line: line, replies: session.outbox)
            }
            return session.outbox.take(maxBytes: .max)
        }.value
    }

    /// Ends the session: its scopes close, its subscriptions end and the home stops telling it of changes.
    package func close() async {
        Self.loop.execute { [session] _ in session.close() }
        await home.removeWatcher(await watching.value)
    }
}
