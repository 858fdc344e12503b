import LumenProtocol
import LumenService
import LumenTestSupport
import Testing

@testable import LumenServer

#if canImport(Glibc)
    import Glibc
#endif

/// A stream whose client stops reading while events keep coming. The server is reached over a Unix socket: once
/// its send fails for want of room, such a socket takes nothing until the peer reads, so what a wake writes is
/// known, where TCP goes on moving bytes between the two sides' buffers for a while.
@Suite("Stalled streams", .serialized, .timeLimit(.minutes(1)))
struct StalledStreamTests {
    /// A server on a Unix socket in `directory` whose every request is answered with `body`; returns it, a
    /// client that sent a request and never reads, and the server's task.
    func start(
        _ body: EndlessStreamBody, limits: HTTPLimits = HTTPLimits(), in directory: TemporaryDirectory
    ) throws -> (HTTPServer, Int32, Task<Void, any Error>) {
        let path = directory.file("http.sock")
        let listener = try UnixSocket.listen(at: path)
        let server = HTTPServer(
            listeners: [HTTPListener(fd: listener)], limits: limits,
            logger: Logger(level: .error, handler: MemoryLogHandler())
        ) { _ in
            .stream(HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream")]), body)
        }
        let task = Task { try await server.run() }
        let client = try UnixSocket.connect(to: path)
        HTTPTestClient.send(client, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        return (server, client, task)
    }

    /// Runs `test` with a server whose one client asked for an endless stream and stopped reading, once a write
    /// found its socket full: with the server, the stream's body and the connection's idle deadline then.
    func withStalledStream(
        limits: HTTPLimits = HTTPLimits(),
        _ test: (HTTPServer, EndlessStreamBody, ContinuousClock.Instant) async throws -> Void
    ) async throws {
        let directory = TemporaryDirectory()
        let body = EndlessStreamBody()
        let (server, client, task) = try start(body, limits: limits, in: directory)
        defer {
            task.cancel()
            close(client)
        }
        try await test(server, body, await blockedDeadline(of: server))
    }

    /// The deadline of the server's one connection once its stream's head is out and a write found the socket
    /// full: a stream that has sent its head has a deadline only then.
    func blockedDeadline(of server: HTTPServer) async -> ContinuousClock.Instant {
        while true {
            let deadlines = await server.loop.executeAndWait { _ in
                guard let connection = server.driver.object.connections.values.first,
                    case .streaming(_, _, nil) = connection.phase
                else { return [ContinuousClock.Instant]() }
                return server.loop.timerDeadlines
            }
            if let deadline = deadlines.first { return deadline }
            await Task.yield()
        }
    }

    /// The connections open, once the loop has done what was asked of it before.
    func openConnections(of server: HTTPServer) async -> Int {
        await server.loop.executeAndWait { _ in server.driver.object.connections.count }
    }

    /// Every new event woke the connection, found the socket still full and set the idle deadline again: a
    /// client that read nothing kept its connection for as long as the home kept changing.
    @Test func aWakeThatWritesNothingLeavesTheIdleDeadlineWhereItWas() async throws {
        try await withStalledStream { server, body, deadline in
            for _ in 0..<3 {
                body.wakeServer()
                let deadlines = await server.loop.executeAndWait { _ in server.loop.timerDeadlines }
                #expect(deadlines == [deadline], "the wake moved the deadline")
            }
        }
    }

    /// The whole of it: events that keep coming, each finding the socket full, no longer keep the client.
    @Test func aStreamClientThatStopsReadingIsLetGoAfterTheIdleTimeThoughEventsKeepComing() async throws {
        var limits = HTTPLimits()
        limits.idleSeconds = 1
        try await withStalledStream(limits: limits) { server, body, _ in
            // Events as fast as the loop takes them, for ten times the idle time at most.
            let giveUp = ContinuousClock.now + .seconds(10)
            while await openConnections(of: server) > 0, ContinuousClock.now < giveUp { body.wakeServer() }
            #expect(
                await openConnections(of: server) == 0, "the client that reads nothing still holds its connection")
            #expect(body.isFinished)
        }
    }

    /// A stream that let its client go for falling behind was left to wait for that client to take what its
    /// socket held, which it never did: the connection, its stream's place and its descriptor stayed taken.
    @Test func aStreamThatLetsItsClientGoIsClosedAtOnceThoughItsSocketIsFull() async throws {
        try await withStalledStream { server, body, _ in
            body.cut()
            #expect(await openConnections(of: server) == 0, "the stream was cut, yet its connection is open")
            #expect(body.isFinished)
            #expect(await server.loop.executeAndWait { _ in server.driver.object.streamCount } == 0)
        }
    }
}

/// A stream body that always has more to send, as a home that keeps changing does, and that can let its client
/// go as a stream whose client falls too far behind does.
final class EndlessStreamBody: HTTPStreamBody {
    /// What the server's loop and the test both touch.
    private struct State {
        var wake: (@Sendable () -> Void)?
        var isCut = false
        var isFinished = false
    }
    private let state = Locked(State())

    /// Keeps `wake`, for ``wakeServer()``.
    func start(wake: @escaping @Sendable () -> Void) { state.withLock { $0.wake = wake } }

    /// As many bytes as asked for, until it is cut.
    func next(maxBytes: Int) -> [UInt8]? {
        state.withLock { $0.isCut } ? nil : [UInt8](repeating: UInt8(ascii: "x"), count: maxBytes)
    }

    /// Notes that the server is done with it.
    func finish() { state.withLock { $0.isFinished = true } }

    /// Once ``cut()`` was called.
    var isCut: Bool { state.withLock { $0.isCut } }

    /// Whether the server is done with it.
    var isFinished: Bool { state.withLock { $0.isFinished } }

    /// Tells the server there is more, as a new event does.
    func wakeServer() { state.withLock { $0.wake }?() }

    /// Lets its client go, and tells the server.
    func cut() {
        state.withLock { $0.isCut = true }
        wakeServer()
    }
}
