import Foundation
import LumenModel
import LumenProtocol
import LumenScopes
import LumenService
import LumenSimulation
import LumenTestSupport

@testable import LumenServer

/// A socket server in this process over a virtual-clock home, on a socket in a temporary directory.
final class TestServer: Sendable {
    let directory = TemporaryDirectory()
    let home: Home
    let server: SocketServer
    let task: Task<Void, any Error>
    /// What the server logged (from notice up, and info for connections).
    let log = MemoryLogHandler()
    var socketPath: String { directory.file("s.sock") }

    /// The limits tests run with: the defaults, but a request timeout long enough for a sanitized build to
    /// send a 10 MiB line (tests of the timeout set their own).
    static var testLimits: ServerLimits {
        var limits = ServerLimits()
        limits.requestGrace = .seconds(120)
        return limits
    }

    /// A server over `fixture`; `durable` and `resetFixture` stand in for lumend's state store and fixture
    /// file (``ScopeContext``), so that a test can make them fail.
    init(
        fixture: String = TestFixtures.instantHome, limits: ServerLimits = TestServer.testLimits,
        clock: ClockMode = .virtual, durable: (@Sendable () async throws(LumenError) -> Void)? = nil,
        resetFixture: (@Sendable () throws(LumenError) -> Fixture)? = nil
    ) async throws {
        home = Home(fixture: try Fixture(json: Array(fixture.utf8)), clock: clock)
        let path = directory.file("s.sock")
        let fd = try UnixSocket.listen(at: path)
        let server = SocketServer(
            listenFD: fd, ownedPath: path,
            scopeContext: ScopeContext(home: home, durable: durable, fixture: resetFixture), limits: limits,
            logger: Logger(level: .info, handler: log))
        self.server = server
        await home.addWatcher { server.publish($0) }
        task = Task { try await server.run() }
    }

    func connect() throws -> LineClient { try LineClient(path: socketPath) }

    /// The reply to `line` from a session of this server for a peer with `credentials`, run in this process:
    /// how a test is a user other than the server's own, which a socket peer in this process cannot be.
    func reply(to line: String, from credentials: PeerCredentials) async -> JSONValue? {
        let (server, loop) = (server, server.eventLoops.loops[0])
        let (replies, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        await Task(executorPreference: loop) {
            let session = Session(
                id: 1_000, context: server.context,
                simulationRefusal: server.simulationRefusal(credentials), eventLoop: loop
            ) {}
            let processor = JSONRPCProcessor(handler: session, maxDepth: 64, executor: loop)
            await processor.process(line: Array(line.utf8), replies: RepliesAsFilled { continuation.yield($0) })
            session.close()
            continuation.finish()
        }.value
        var iterator = replies.makeAsyncIterator()
        let bytes = await iterator.next()
        return bytes.flatMap { try? JSONParser.parse($0) }
    }

    /// A connection served as one from a user who is neither root nor lumend's own is, over a socket pair (a
    /// peer in this process cannot be another user): the client, and the connection, which the caller keeps.
    func connectAsAnotherUser() throws -> (LineClient, ClientConnection) {
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else {
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        // Non-blocking, as an accepted socket is: the loop must never wait on a client that does not read.
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        let other = PeerCredentials(pid: 1, uid: 4_242, gid: 4_242)
        let loop = server.eventLoops.loops[0]
        let connection = ClientConnection(fd: ends[0], on: loop, limits: server.context.limits) { _ in }
        let session = Session(
            id: 2_000, context: server.context, simulationRefusal: server.simulationRefusal(other),
            isOwner: server.isOwner(other), eventLoop: loop
        ) { [connectionLoop = connection.loop] in _ = connectionLoop.requestWrite() }
        server.context.hub.register(session)
        loop.execute { _ in connection.start(session: session) }
        return (LineClient(connected: ends[1]), connection)
    }

    deinit { task.cancel() }
}

extension LineClient {
    /// Opens `room`, then `light` in it; returns the light scope's ID.
    func openLight(_ room: String, _ light: String) async throws -> JSONValue {
        let roomScope = try await result("open", ["scope": 0, "connection": "room", "configuration": .string(room)])
        let lightScope = try await result(
            "open", ["scope": roomScope["scope"]!, "connection": "light", "configuration": .string(light)])
        return lightScope["scope"]!
    }

    /// Opens the `simulation` scope; returns its ID.
    func openSimulation() async throws -> JSONValue {
        try await result("open", ["scope": 0, "connection": "simulation"])["scope"]!
    }

    /// Advances the virtual clock by `ms` through the session's `simulation` scope: after the requests sent
    /// before it, which the session has taken to the home by then. Replies come in the order of their requests,
    /// so the advance's comes after theirs, which it keeps (``response(to:timeout:)``) for the caller.
    @discardableResult
    func advance(byMilliseconds ms: Int, in simulation: JSONValue) async throws -> JSONValue {
        try await result("call", ["scope": simulation, "connection": "advance", "arguments": ["ms": .int(ms)]])
    }

    /// The error code of a response.
    func errorCode(_ method: String, _ params: JSONValue? = nil) async throws -> Int? {
        try await request(method, params)["error"]?["code"]?.intValue
    }
}
