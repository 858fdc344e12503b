import LumenModel
import LumenProtocol
import LumenScopes
import LumenService
import LumenSimulation
import Synchronization
import Testing

@testable import LumenHue

/// Who may pair with the bridge and use it: unguessable users, requests only by lumend's own names, each user's
/// own entry in the whitelist, and a full whitelist that forgets the user unused longest, saying so.
@Suite("Hue bridge access")
struct HueAccessTests {
    let home: Home
    let log = MemoryLogHandler()
    let bridge: HueBridge

    init() throws {
        home = Home(fixture: try Fixture(json: Array(HueBridgeTests.home.utf8)), clock: .virtual)
        bridge = HueBridge(
            scopeContext: ScopeContext(home: home), access: HTTPAccess(allowedHosts: ["bridge.lan"]),
            logger: Logger(level: .debug, handler: log))
    }

    /// The bridge's answer to a request with `headers`, and its body as JSON.
    func answer(
        _ method: String, _ path: String, _ body: String = "", headers: [String: String] = ["host": "127.0.0.1"]
    ) async throws -> (status: Int, json: JSONValue) {
        let request = HTTPRequest(method: method, path: path, headers: headers, body: Array(body.utf8))
        let response: HTTPResponse
        switch try #require(bridge.respond(to: request)) {
        case .now(let now): response = now
        case .later(let work): response = await work()
        case .stream: throw HueTestError.streamed
        }
        return (response.status, try JSONParser.parse(response.body))
    }

    enum HueTestError: Error { case streamed }

    func pair(_ deviceType: String = "tests#swift") async throws -> String {
        await bridge.pressLinkButton()
        let (_, json) = try await answer("POST", "/api", #"{"devicetype": "\#(deviceType)"}"#)
        return try #require(json.arrayValue?.first?["success"]?["username"]?.stringValue)
    }

    @Test func twoBridgesOnTheSameFixtureNeverPairTheSameName() async throws {
        // Anyone may run the public demo fixture with the same seed: a name drawn from the seed is known to all.
        let fixture = try Fixture(json: Array(HueBridgeTests.home.utf8))
        var names: [String] = []
        for _ in 0..<2 {
            let bridge = HueBridge(scopeContext: ScopeContext(home: Home(fixture: fixture, clock: .virtual)))
            await bridge.setPairingOpen(true)
            names.append(try await bridge.pair(deviceType: "tests#same", username: nil).user.username)
        }
        #expect(names[0] != names[1])
        #expect(names.allSatisfy { $0.count == 40 && $0.allSatisfy(\.isHexDigit) })
    }

    @Test func aRequestByAForeignNameOrFromAForeignPageIsRefused() async throws {
        let user = try await pair()
        // A DNS name rebound to lumend's address comes with its own Host, and with that name's page as Origin.
        let rebound = try await answer(
            "GET", "/api/\(user)/lights", headers: ["host": "evil.example:80", "origin": "http://evil.example:80"])
        #expect(rebound.status == 403)
        #expect(rebound.json.arrayValue?.first?["error"]?["type"] == 1)
        let page = try await answer(
            "PUT", "/api/\(user)/lights/1/state", #"{"on": true}"#,
            headers: ["host": "127.0.0.1:80", "origin": "http://evil.example"])
        #expect(page.status == 403)
        #expect(try await home.light("den.lamp").state.isOn == false)
        // Pairing is refused the same way, even with the button pressed.
        await bridge.pressLinkButton()
        let pairing = try await answer(
            "POST", "/api", #"{"devicetype": "evil#page"}"#,
            headers: ["host": "127.0.0.1", "origin": "http://evil.example"])
        #expect(pairing.status == 403)
        #expect(await bridge.users.count == 1)
        // A name the operator lists is the bridge's own, as is the page served under it.
        let listed = try await answer(
            "GET", "/api/\(user)/lights", headers: ["host": "Bridge.LAN:80", "origin": "http://bridge.lan:80"])
        #expect(listed.status == 200)
        #expect(try await answer("GET", "/api/\(user)/lights", headers: ["host": "[::1]:80"]).status == 200)
    }

    @Test func aUserReadsItsOwnEntryOfTheWhitelistOnly() async throws {
        let first = try await pair("first#app")
        let second = try await pair("second#app")
        for (user, other) in [(first, second), (second, first)] {
            let config = try await answer("GET", "/api/\(user)/config").json
            let whitelist = try #require(config["whitelist"]?.objectValue)
            #expect(whitelist.keys == [user])
            let full = try await answer("GET", "/api/\(user)").json
            #expect(full["config"]?["whitelist"]?[other] == nil)
            #expect(full["config"]?["whitelist"]?[user] != nil)
        }
    }

    @Test func aFullWhitelistForgetsTheUserUnusedLongestAndLogsIt() async throws {
        await bridge.setUserLimit(3)
        let users = [try await pair("a#app"), try await pair("b#app"), try await pair("c#app")]
        try await home.advance(byMilliseconds: 1_000)
        // The oldest is the one in use: the main app of a test rig that pairs often.
        #expect(try await answer("GET", "/api/\(users[0])/lights").status == 200)
        let fourth = try await pair("d#app")
        let kept = Set(await bridge.users.map(\.username))
        #expect(kept == [users[0], users[2], fourth])
        #expect(try await answer("GET", "/api/\(users[1])/lights").json.arrayValue?.first?["error"]?["type"] == 1)
        #expect(try await answer("GET", "/api/\(users[0])/lights").status == 200)
        let forgotten = log.logged.filter { $0.message.contains("forgot") }
        #expect(forgotten.count == 1)
        #expect(forgotten.first?.message.contains("b#app") == true)
    }

    @Test func theSimulationScopePairsAGivenName() async throws {
        let name = "0123456789abcdef-test-user"
        let user = try await bridge.pair(deviceType: "tests#fixed", username: name).user
        #expect(user.username == name)
        #expect(try await answer("GET", "/api/\(name)/lights").status == 200)
        await #expect(throws: LumenError.self) {
            try await bridge.pair(deviceType: "tests#again", username: name)
        }
        await #expect(throws: LumenError.self) { try await bridge.pair(deviceType: "tests#x", username: "a/b") }
    }

    @Test func aFixtureNamesItsUsersPlainlyAndOnce() async throws {
        func fixture(_ users: String) throws -> Fixture {
            try Fixture(
                json: Array(
                    HueBridgeTests.home.replacing(#""seed": 4,"#, with: #""seed": 4, "hue": {"users": [\#(users)]},"#)
                        .utf8))
        }
        func read(_ users: String) throws -> [String] {
            try HueBridgeState(record: fixture(users).fronts["hue"]).users.map(\.username)
        }
        let user = #"{"username": "fixed-user-0001", "devicetype": "t#t", "createdMs": 0}"#
        #expect(try read(user) == ["fixed-user-0001"])
        #expect(throws: (any Error).self) { try read(user + "," + user) }
        let slash = #"{"username": "fixed/user/0001", "devicetype": "t#t", "createdMs": 0}"#
        #expect(throws: (any Error).self) { try read(slash) }
        // lumend refuses to start on such a record.
        let refused = Home(fixture: try fixture(slash), clock: .virtual)
        await #expect(throws: JSONShapeError.self) { try await HueBridge.numberAtStart(refused) }
        // A short name, as a state file from before names were checked may hold: it stands in a path as it is,
        // and such a state must still load.
        let short = #"{"username": "my_app", "devicetype": "t#t", "createdMs": 0}"#
        #expect(try read(short) == ["my_app"])
        for unsafe in ["a b", "a?b", "a#b", "a%2Fb", "", "..", "config", "a^b", "a{b}"] {
            let user = #"{"username": "\#(unsafe)", "devicetype": "t#t", "createdMs": 0}"#
            #expect(throws: (any Error).self, "\(unsafe)") { try read(user) }
        }
    }
}
