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

    init(fixture: String = TestFixtures.instantHome, limits: ServerLimits = TestServer.testLimits) async throws {
        home = Home(fixture: try Fixture(json: Array(fixture.utf8)), clock: .virtual)
        let path = directory.file("s.sock")
        let fd = try UnixSocket.listen(at: path)
        let server = SocketServer(
            listenFD: fd, ownedPath: path, scopeContext: ScopeContext(home: home), limits: limits,
            logger: Logger(level: .info, handler: log))
        self.server = server
        await home.addWatcher { server.publish($0) }
        task = Task { try await server.run() }
    }

    func connect() throws -> LineClient { try LineClient(path: socketPath) }

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

    /// The error code of a response.
    func errorCode(_ method: String, _ params: JSONValue? = nil) async throws -> Int? {
        try await request(method, params)["error"]?["code"]?.intValue
    }
}
