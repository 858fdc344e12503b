import Foundation
import LumenLoop
import LumenModel
import LumenProtocol
import LumenScopes
import LumenService
import LumenSimulation
import LumenTestSupport
import Testing

@testable import LumenServer

/// Connections that hold a session without using it cannot lock others out.
@Suite("Idle connections and per-user limits", .timeLimit(.minutes(2)))
struct IdleConnectionTests {
    static func limits(grace: Duration = .milliseconds(200), sessions: Int = 8, perUser: Int = 8) -> ServerLimits {
        var limits = ServerLimits()
        limits.requestGrace = grace
        limits.maxSessions = sessions
        limits.maxSessionsPerUser = perUser
        return limits
    }

    @Test func aConnectionThatSendsNothingIsClosedAfterTheGracePeriodAndSaysWhy() async throws {
        let server = try await TestServer(limits: Self.limits())
        let idle = try server.connect()
        // The client is told why, in a JSON-RPC error line, before the close.
        let told = try await idle.readJSON()
        #expect(told["id"] == .null && told["error"]?["code"] == -32011, "\(told.serialized())")
        #expect(told["error"]?["message"]?.stringValue?.contains("no complete request") == true)
        #expect(await idle.waitForHangUp(timeout: .seconds(10)))
        #expect(server.log.logged.contains { $0.message.contains("no complete request") })
        // One that made a request may then wait as long as it likes (a subscriber, say).
        let active = try server.connect()
        _ = try await active.result("hello")
        #expect(!(await active.waitForHangUp(timeout: .seconds(1))))
        _ = try await active.result("hello")
    }

    @Test func aLineNeverFinishedIsClosedAfterTheGracePeriod() async throws {
        let server = try await TestServer(limits: Self.limits())
        let slow = try server.connect()
        _ = try await slow.result("hello")
        slow.sendRaw(Array(#"{"jsonrpc":"2.0","id":2,"#.utf8))
        #expect(await slow.waitForHangUp(timeout: .seconds(10)))
    }

    @Test func idleConnectionsBeyondTheLimitDoNotKeepNewClientsOutForLong() async throws {
        let server = try await TestServer(limits: Self.limits(sessions: 4, perUser: 4))
        let idle = try (0..<4).map { _ in try server.connect() }
        for connection in idle { #expect(await connection.waitForHangUp(timeout: .seconds(10))) }
        let client = try server.connect()
        #expect(try await client.result("hello")["server"] == "lumend")
    }

    @Test func oneUserCannotTakeEverySession() async throws {
        let server = try await TestServer(limits: Self.limits(grace: .seconds(60), sessions: 8, perUser: 3))
        var held: [LineClient] = []
        for _ in 0..<3 {
            let client = try server.connect()
            _ = try await client.result("hello")
            held.append(client)
        }
        let refused = try server.connect()
        let reply = try await refused.readJSON()
        #expect(reply["error"]?["code"] == -32020)
        #expect(reply["error"]?["message"]?.stringValue?.contains("per user") == true, "\(reply.serialized())")
        #expect(await refused.waitForHangUp())
        // A place freed by a hang-up admits the user's next session.
        held.removeFirst()
        var admitted = false
        for _ in 0..<100 where !admitted {
            let next = try server.connect()
            admitted = (try? await next.result("hello")) != nil
            if admitted { held.append(next) }
        }
        #expect(admitted)
    }

    @Test func everyConnectionLogsItsEnd() async throws {
        let server = try await TestServer(limits: Self.limits(grace: .seconds(60)))
        for _ in 0..<5 {
            let client = try server.connect()
            _ = try await client.result("hello")
        }
        await server.log.wait(for: 5) { $0.message.hasPrefix("client disconnected") }
        let connected = server.log.logged.filter { $0.message == "client connected" }.count
        let disconnected = server.log.logged.filter { $0.message.hasPrefix("client disconnected") }.count
        #expect(connected == 5)
        #expect(disconnected == 5)
    }

    /// Runs `body` on `loop`'s thread and returns what it returns.
    static func onLoop<T: Sendable>(_ loop: EventLoop, _ body: @escaping @Sendable () -> T) async -> T {
        await loop.executeAndWait { _ in body() }
    }

    /// A connection on a socket pair whose session's home is held up until `release()`: what a client sends
    /// after a request that needs the home piles up as lines read and not yet handed over.
    final class HeldUpConnection: Sendable {
        let homeLoop = EventLoop(name: "test.home")
        let loop = EventLoop(name: "test.connection")
        let gate = DispatchSemaphore(value: 0)
        let home: Home
        let connection: ClientConnection
        /// The client's end of the pair.
        let client: Int32

        init() throws {
            homeLoop.execute { [gate] _ in gate.wait() }
            home = Home(
                fixture: try Fixture(json: Array(TestFixtures.instantHome.utf8)), clock: .virtual, executor: homeLoop)
            var ends: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else {
                throw POSIXError(.init(rawValue: errno) ?? .EIO)
            }
            client = ends[1]
            let context = ServerContext(
                scopeContext: ScopeContext(home: home), limits: ServerLimits(),
                logger: Logger(level: .critical, handler: MemoryLogHandler()))
            let connection = ClientConnection(fd: ends[0], on: loop, limits: ServerLimits()) { _ in }
            let session = Session(id: 1, context: context, simulationRefusal: nil, eventLoop: loop) {
                [connectionLoop = connection.loop] in _ = connectionLoop.requestWrite()
            }
            self.connection = connection
            loop.execute { _ in connection.start(session: session) }
        }

        /// A request that needs the home, which waits for it.
        static let subscribe =
            #"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"scope":0,"connection":"name"}}"#

        /// Lets the home go on.
        func release() { gate.signal() }

        func shutDown() async {
            loop.execute { [connection] _ in connection.close(reason: nil) }
            close(client)
            await home.shutDown()
            await loop.shutDown()
            await homeLoop.shutDown()
        }
    }

    /// A line begun before reading was suspended (the server's own back-pressure, for as long as the home takes)
    /// is owed from when reading resumes, not from before: the suspension is not the client's delay.
    @Test func aLineBegunBeforeASuspensionIsOwedFromWhenReadingResumes() async throws {
        let held = try HeldUpConnection()
        let (loop, connection) = (held.loop, held.connection)
        let grace = Duration.seconds(3_600)
        let farFuture = ContinuousClock.now + .seconds(100_000)
        // One write, one read: a request for the home, more lines than the high-water mark, and a line begun.
        let lines =
            HeldUpConnection.subscribe + "\n" + String(repeating: "x\n", count: LineQueue.highWaterLines + 8)
            + #"{"jsonrpc""#
        UnixSocket.sendAll(held.client, Array(lines.utf8))
        // Suspended: nothing is owed while it is (before the read, the first request was).
        while await Self.onLoop(loop, { connection.overdue(now: farFuture, grace: grace) }) != nil {
            await Task.yield()
        }
        let duringSuspension = ContinuousClock.now
        while ContinuousClock.now <= duringSuspension {}
        held.release()
        // Reading resumed: the line begun is owed again.
        while await Self.onLoop(loop, { connection.overdue(now: farFuture, grace: grace) }) == nil {
            await Task.yield()
        }
        let overdue = await Self.onLoop(loop) { connection.overdue(now: duringSuspension + grace, grace: grace) }
        #expect(overdue == nil, "the suspension counted against the client")
        await held.shutDown()
    }

    /// Reading stops for the bytes waiting as well as the lines: a few long lines (a mebibyte each, the longest
    /// a request may be) would otherwise hold up to the lines' high-water mark of them, 128 MiB, for one client.
    @Test func readingIsSuspendedOnceTheLinesWaitingComeToTheirHighWaterInBytes() async throws {
        let held = try HeldUpConnection()
        let (loop, connection) = (held.loop, held.connection)
        let longLine = String(repeating: " ", count: 512 * 1_024) + "{}"
        let lines = HeldUpConnection.subscribe + "\n" + String(repeating: longLine + "\n", count: 8)
        // Written by a thread of its own: the socket stops taking them once reading is suspended.
        let writer = Task { [client = held.client] in
            await offload { _ = UnixSocket.sendAll(client, Array(lines.utf8)) }
        }
        // Until suspended, or the suite's time limit cancels the wait: the lines alone, 8 of them, never reach
        // their own mark.
        while !Task.isCancelled, await !Self.onLoop(loop, { connection.isReadingSuspended }) { await Task.yield() }
        let waiting = await Self.onLoop(loop) { connection.queuedLineBytes }
        #expect(waiting >= LineQueue.highWaterBytes && waiting < LineQueue.highWaterBytes + longLine.utf8.count + 1)
        held.release()
        // Handed over, the lines let reading go on to the last.
        await writer.value
        while !Task.isCancelled, await Self.onLoop(loop, { connection.requestsReadCount }) < 9 { await Task.yield() }
        await held.shutDown()
    }
}
