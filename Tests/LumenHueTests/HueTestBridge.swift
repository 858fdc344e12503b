import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import LumenTestSupport
import Testing

@testable import LumenHue

/// A bridge over the test home of ``HueBridgeTests`` on the virtual clock, with a paired user, and every record
/// the home hands its state store kept, so that a test can start the home again from them.
final class HueTestBridge: Sendable {
    let home: Home
    let bridge: HueBridge
    let records: Locked<[StateRecord]>
    let user: String

    /// A bridge over `fixture` (``HueBridgeTests/home`` unless given), with the user `tests` paired.
    init(fixture: Fixture? = nil) async throws {
        let fixture = try fixture ?? Fixture(json: Array(HueBridgeTests.home.utf8))
        home = Home(fixture: fixture, clock: .virtual)
        bridge = HueBridge(scopeContext: ScopeContext(home: home))
        records = Locked([])
        user = "tests"
        await home.setPersistenceSink { [self] record in records.withLock { $0.append(record) } }
        if await !bridge.users.contains(where: { $0.username == user }) {
            try await bridge.pairUser(user, deviceType: "tests#swift")
        }
    }

    /// The home as a restart after a crash finds it: the fixture it started from with every record since,
    /// each read back from its saved form as the journal holds it.
    func restarted(from fixture: Fixture? = nil) async throws -> HueTestBridge {
        let fixture = try fixture ?? Fixture(json: Array(HueBridgeTests.home.utf8))
        let saved = try records.withLock { records in
            try records.map { record in
                try StateRecord(cursor: JSONCursor(try JSONParser.parse(Array(record.jsonValue.serialized().utf8))))
            }
        }
        return try await HueTestBridge(fixture: try fixture.applying(saved))
    }

    /// The bridge's answer to the user's request at `path` (after `/api/tests`), moving the clock until it comes.
    func answer(_ method: String, _ path: String, _ body: String = "") async throws -> JSONValue {
        let request = HTTPRequest(
            method: method, path: path.hasPrefix("/api") ? path : "/api/\(user)\(path)",
            headers: HueBridgeTests.headers, body: Array(body.utf8))
        guard case .later(let work) = try #require(bridge.respond(to: request)) else {
            Issue.record("answered at once")
            return .null
        }
        return try JSONParser.parse(try await home.driving(work).body)
    }

    /// The error type of the answer's first entry, if it is an error.
    func errorType(_ method: String, _ path: String, _ body: String = "") async throws -> Int? {
        try await answer(method, path, body).arrayValue?.first?["error"]?["type"]?.intValue
    }

    /// The ID a `POST /scenes` answer gives.
    func createScene(_ body: String) async throws -> String {
        let answer = try await answer("POST", "/scenes", body)
        return try #require(answer.arrayValue?.first?["success"]?["id"]?.stringValue, "\(answer)")
    }
}

/// What the tests read of the bridge's memory and set on it, each in one visit to the home.
extension HueBridge {
    var users: [HueBridgeState.User] { get async { await visit { _, memory in memory.state.users } } }
    var state: HueBridgeState { get async { await visit { _, memory in memory.state } } }
    var isLinkButtonPressed: Bool {
        get async { await visit { home, memory in memory.isLinkButtonPressed(atMs: home.nowMilliseconds) } }
    }

    func lights() async -> [HueLight] { await visit { home, memory in memory.lights(in: home) } }
    func setPairingOpen(_ open: Bool) async { await visit { _, memory in memory.isPairingOpen = open } }
    func setUserLimit(_ limit: Int) async { await visit { _, memory in memory.userLimit = limit } }
}
