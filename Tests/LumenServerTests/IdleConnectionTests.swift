import Foundation
import LumenModel
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
}
