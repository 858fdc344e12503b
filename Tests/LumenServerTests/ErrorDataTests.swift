import Foundation
import LumenModel
import LumenProtocol
import LumenTestSupport
import Testing

@testable import LumenServer

/// Every error code of the protocol, triggered over it, carries the `data` docs/protocol.md promises: the scope
/// and connection of a request on a connection, the light or room behind its scope, a `set`'s value, and the
/// few keys the table names for single codes.
@Suite("Error data is the same for every code", .timeLimit(.minutes(2)))
struct ErrorDataTests {
    static let fixture = """
        {"schema": 1, "id": "e", "name": "E", "defaults": {"latency": "instant"}, "rooms": [
          {"id": "lab", "name": "Lab", "lights": [
            {"id": "lab.color", "name": "Color", "kind": "color", "rateLimitPerSecond": 1, "overload": "busy"},
            {"id": "lab.plug", "name": "Plug", "kind": "onoff"},
            {"id": "lab.hue", "name": "Hue", "kind": "color", "whileOff": "refuse", "state": {"isOn": false}},
            {"id": "lab.lossy", "name": "Lossy", "kind": "onoff", "dropProbability": 1, "timeoutMs": 100},
            {"id": "lab.far", "name": "Far", "kind": "onoff", "timeoutMs": 100}
          ]}]}
        """

    /// The codes of the table in docs/protocol.md's "Errors", read from the document itself, so that a code
    /// added there and not here fails this suite.
    static func documentedCodes() throws -> Set<Int> {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../docs/protocol.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let errors = try #require(text.range(of: "## Errors\n"))
        let section = text[errors.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        return Set(
            section[..<end].split(separator: "\n").compactMap { line -> Int? in
                guard line.hasPrefix("| -") else { return nil }
                return Int(line.dropFirst(2).prefix { $0 != " " && $0 != "|" })
            })
    }

    /// What each code was seen with: its `data` keys, checked as they are collected.
    final class Seen: Sendable {
        let codes = Locked<Set<Int>>([])

        /// Expects `reply` to be an error of `code` whose `data` has exactly `keys` (none: no `data` at all).
        func expect(
            _ reply: JSONValue?, _ code: Int, keys: Set<String>, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            let error = reply?["error"]
            #expect(
                error?["code"]?.intValue == code, "\(reply?.serialized() ?? "no reply")", sourceLocation: sourceLocation
            )
            let data = error?["data"]?.objectValue
            #expect(
                Set(data?.members.map(\.key) ?? []) == keys, "\(reply?.serialized() ?? "")",
                sourceLocation: sourceLocation)
            let message = error?["message"]?.stringValue ?? ""
            // Every message says what to do, after what went wrong.
            #expect(message.contains(";") || message.contains(":"), "\(message)", sourceLocation: sourceLocation)
            codes.withLock { _ = $0.insert(code) }
        }
    }

    /// Keys of a request on a light's connection, and of a `set` on one.
    static let onLight: Set<String> = ["scope", "connection", "light"]
    static let setOnLight: Set<String> = onLight.union(["value"])
    static let onRoom: Set<String> = ["scope", "connection", "room"]
    static let onScope: Set<String> = ["scope", "connection"]

    @Test func everyCodeCarriesTheDataTheProtocolPromises() async throws {
        let seen = Seen()
        let server = try await TestServer(fixture: Self.fixture)
        let client = try server.connect()
        func line(_ text: String, id: JSONValue = .null) async throws -> JSONValue {
            client.send(text)
            return try await client.response(to: id)
        }

        // The line or the request as a whole: nothing to name.
        seen.expect(try await line("{not json"), -32700, keys: [])
        seen.expect(try await line(#"{"jsonrpc":"1.0","id":"v","method":"get"}"#, id: "v"), -32600, keys: [])
        seen.expect(try await client.request("sparkle"), -32601, keys: [])

        let room = try await client.result("open", ["scope": 0, "connection": "room", "configuration": "lab"])["scope"]!
        let plug = try await client.result(
            "open", ["scope": room, "connection": "light", "configuration": "lab.plug"])[
                "scope"]!
        func lightScope(_ id: String) async throws -> JSONValue {
            try await client.result("open", ["scope": room, "connection": "light", "configuration": .string(id)])[
                "scope"]!
        }

        // A parameter the method does not take, on a light's connection.
        seen.expect(
            try await client.request("get", ["scope": plug, "connection": "isOn", "colour": 1]), -32602,
            keys: Self.onLight)
        // A set's carries its value too; a request whose scope cannot be read names what it can.
        seen.expect(
            try await client.request("set", ["scope": plug, "connection": "isOn", "value": true, "colour": 1]), -32602,
            keys: Self.setOnLight)
        seen.expect(
            try await client.request("get", ["scope": "two", "connection": "isOn"]), -32602, keys: ["connection"])
        // Methods on no connection name what they were given.
        seen.expect(try await client.request("close", ["scope": 0]), -32602, keys: ["scope"])
        seen.expect(try await client.request("unsubscribe", ["subscription": 7]), -32602, keys: ["subscription"])
        seen.expect(try await client.request("close", ["scope": 99]), -32001, keys: ["scope"])
        seen.expect(try await client.request("get", ["scope": 99, "connection": "isOn"]), -32001, keys: Self.onScope)
        seen.expect(
            try await client.request("get", ["scope": plug, "connection": "sparkle"]), -32002, keys: Self.onLight)
        seen.expect(
            try await client.request("get", ["scope": room, "connection": "sparkle"]), -32002, keys: Self.onRoom)
        // The wrong kind names the connection's kind, so a client knows which methods it takes.
        let readOnly = try await client.request("set", ["scope": plug, "connection": "model", "value": 1])
        seen.expect(readOnly, -32003, keys: Self.setOnLight.union(["kind"]))
        #expect(readOnly["error"]?["data"]?["kind"] == "value")
        seen.expect(
            try await client.request("open", ["scope": room, "connection": "light", "configuration": "attic.lamp"]),
            -32004, keys: Self.onRoom.union(["light"]))
        seen.expect(
            try await client.request("set", ["scope": plug, "connection": "brightness", "value": 20]), -32005,
            keys: Self.setOnLight)

        // Devices that fail after their timeout: the later reply names the request too.
        let simulation = try await client.result("open", ["scope": 0, "connection": "simulation"])["scope"]!
        try await server.home.setReachable(false, light: "lab.far")
        let far = try await lightScope("lab.far")
        let lossy = try await lightScope("lab.lossy")
        client.send(
            #"{"jsonrpc":"2.0","id":"far","method":"set","params":{"scope":\#(far.serialized()),"connection":"isOn","value":true}}"#
        )
        client.send(
            #"{"jsonrpc":"2.0","id":"lossy","method":"set","params":{"scope":\#(lossy.serialized()),"connection":"isOn","value":true}}"#
        )
        try await client.advance(byMilliseconds: 1_000, in: simulation)  // taken after both
        seen.expect(try await client.response(to: "far"), -32010, keys: Self.setOnLight)
        seen.expect(try await client.response(to: "lossy"), -32011, keys: Self.setOnLight)

        let color = try await lightScope("lab.color")
        client.send(
            #"{"jsonrpc":"2.0","id":"token","method":"set","params":{"scope":\#(color.serialized()),"connection":"isOn","value":true}}"#
        )
        client.send(
            #"{"jsonrpc":"2.0","id":"busy","method":"set","params":{"scope":\#(color.serialized()),"connection":"brightness","value":20}}"#
        )
        try await client.advance(byMilliseconds: 0, in: simulation)
        #expect(try await client.response(to: "token")["result"] != nil)
        seen.expect(try await client.response(to: "busy"), -32012, keys: Self.setOnLight)
        let hue = try await lightScope("lab.hue")
        client.send(
            #"{"jsonrpc":"2.0","id":"off","method":"set","params":{"scope":\#(hue.serialized()),"connection":"brightness","value":50}}"#
        )
        try await client.advance(byMilliseconds: 0, in: simulation)
        seen.expect(try await client.response(to: "off"), -32013, keys: Self.setOnLight)

        seen.expect(
            try await client.request(
                "call", ["scope": simulation, "connection": "addRoom", "arguments": ["id": "lab"]]), -32021,
            keys: Self.onScope.union(["room"]))
        seen.expect(
            try await client.request(
                "call", ["scope": simulation, "connection": "restore", "arguments": ["name": "before"]]), -32004,
            keys: Self.onScope.union(["checkpoint"]))

        try await limitsNameTheirRequest(seen)
        try await theClockTheDiskAndTheFixtureNameTheirRequest(seen)
        try await shuttingDownAndPermissionNameTheirRequest(seen)

        // Each code not triggered here is named below, with why.
        let untriggered: [Int: String] = [
            -32070: "over HTTP only, where no socket session can be: RPCOverHTTPTests triggers it, with no data"
        ]
        let codes = seen.codes.withLock { $0 }
        #expect(codes.union(untriggered.keys) == (try Self.documentedCodes()))
        #expect(codes.count == 20)
    }

    /// -32020: a limit of the session names the request it refused; one of the server (sessions of a user)
    /// names the user.
    func limitsNameTheirRequest(_ seen: Seen) async throws {
        var limits = TestServer.testLimits
        limits.maxScopesPerSession = 2
        limits.maxSessionsPerUser = 1
        let server = try await TestServer(fixture: Self.fixture, limits: limits)
        let client = try server.connect()
        let room = try await client.result("open", ["scope": 0, "connection": "room", "configuration": "lab"])["scope"]!
        seen.expect(
            try await client.request("open", ["scope": room, "connection": "light", "configuration": "lab.plug"]),
            -32020, keys: Self.onRoom)
        let second = try server.connect()
        seen.expect(try await second.readJSON(), -32020, keys: ["uid"])
    }

    /// -32030, -32040, -32603: the simulation's clock, the state store and the fixture file, failing; the
    /// store and the fixture file are stood in for as lumend's ``ScopeContext`` hooks, failing as they do.
    func theClockTheDiskAndTheFixtureNameTheirRequest(_ seen: Seen) async throws {
        let real = try await TestServer(fixture: Self.fixture, clock: .real)
        let client = try real.connect()
        let simulation = try await client.result("open", ["scope": 0, "connection": "simulation"])["scope"]!
        seen.expect(
            try await client.request("call", ["scope": simulation, "connection": "advance", "arguments": ["ms": 1]]),
            -32030, keys: Self.onScope)

        let broken = try await TestServer(
            fixture: Self.fixture,
            durable: { () async throws(LumenError) in
                throw LumenError(
                    .notPersisted, "the change was applied but could not be saved (disk full); free some space",
                    data: ["stateFile": "/var/lib/lumend/state.json", "errno": 28])
            },
            resetFixture: { () throws(LumenError) in
                throw LumenError(.internalError, "cannot read the fixture f.json again (denied); make it readable")
            })
        let brokenClient = try broken.connect()
        let plug = try await brokenClient.openLight("lab", "lab.plug")
        let brokenSimulation = try await brokenClient.result("open", ["scope": 0, "connection": "simulation"])["scope"]!
        brokenClient.send(
            #"{"jsonrpc":"2.0","id":"saved","method":"set","params":{"scope":\#(plug.serialized()),"connection":"isOn","value":true}}"#
        )
        // The advance is taken after the set, and answered after it; its own reply, failing to save too, is
        // checked below.
        _ = try await brokenClient.request(
            "call", ["scope": brokenSimulation, "connection": "advance", "arguments": ["ms": 0]])
        seen.expect(
            try await brokenClient.response(to: "saved"), -32040, keys: Self.setOnLight.union(["stateFile", "errno"]))
        seen.expect(
            try await brokenClient.request("call", ["scope": brokenSimulation, "connection": "reset"]), -32603,
            keys: Self.onScope)
    }

    /// -32050 and -32060: refused before anything is looked at, yet naming the request's connection.
    func shuttingDownAndPermissionNameTheirRequest(_ seen: Seen) async throws {
        let server = try await TestServer(fixture: Self.fixture)
        let client = try server.connect()
        let plug = try await client.openLight("lab", "lab.plug")
        let stranger = PeerCredentials(pid: 1, uid: 4_242, gid: 4_242)
        seen.expect(
            await server.reply(
                to: #"{"jsonrpc":"2.0","id":1,"method":"open","params":{"scope":0,"connection":"simulation"}}"#,
                from: stranger), -32060, keys: Self.onScope)
        server.server.context.beginShutdown()
        seen.expect(try await client.request("get", ["scope": plug, "connection": "isOn"]), -32050, keys: Self.onLight)
    }

    /// A batch's request that is not carried out, its replies past their limit, still names its connection.
    @Test func aRefusedBatchRequestNamesItsConnection() async throws {
        var limits = TestServer.testLimits
        limits.maxPendingReplyBytes = 200
        let server = try await TestServer(fixture: Self.fixture, limits: limits)
        let client = try server.connect()
        let plug = try await client.openLight("lab", "lab.plug")
        let request =
            #"{"jsonrpc":"2.0","id":"ID","method":"get","params":{"scope":\#(plug.serialized()),"connection":"name"}}"#
        let batch = (1...8).map { request.replacingOccurrences(of: "\"ID\"", with: "\($0)") }
        client.send("[" + batch.joined(separator: ",") + "]")
        let replies = try #require(try await client.readJSON().arrayValue)
        let refused = try #require(replies.last?["error"])
        #expect(refused["code"] == -32020)
        #expect(refused["data"] == ["scope": plug, "connection": "name", "light": "lab.plug"])
    }

    /// -32602 messages never start "Invalid params:": the code says that much; the message says what is
    /// wrong and what to do.
    @Test func invalidParamsMessagesSayWhatIsWrongWithoutAPrefix() async throws {
        let server = try await TestServer(fixture: Self.fixture)
        let client = try server.connect()
        let plug = try await client.openLight("lab", "lab.plug")
        let requests: [(String, JSONValue)] = [
            ("get", ["scope": plug, "connection": "isOn", "colour": 1]),
            ("get", ["scope": plug]),
            ("get", [1, 2]),
            ("set", ["scope": plug, "connection": "isOn", "value": true, "transitionMs": -1]),
            ("set", ["scope": plug, "connection": "isOn", "value": "yes"]),
            ("set", ["scope": plug, "connection": "isOn"]),
            ("close", ["scope": 0]),
            ("unsubscribe", ["subscription": 7]),
        ]
        for (method, params) in requests {
            let error = try #require(try await client.request(method, params)["error"])
            #expect(error["code"] == -32602)
            let message = error["message"]?.stringValue ?? ""
            #expect(!message.hasPrefix("Invalid params"), "\(message)")
        }
    }

    /// A fade may last two hours through every write of the scope protocol (`set`, `setState`, a room's
    /// `setAll`), and longer is refused with what the limit is.
    @Test func everyWriteTakesAFadeOfTwoHoursAndRefusesALongerOne() async throws {
        let server = try await TestServer(
            fixture: """
                {"schema": 1, "id": "e", "name": "E", "defaults": {"latency": "instant"}, "rooms": [
                  {"id": "lab", "name": "Lab", "lights": [{"id": "lab.plug", "name": "Plug", "kind": "onoff"}]}]}
                """)
        let client = try server.connect()
        let light = try await client.openLight("lab", "lab.plug")
        let room = try await client.result("open", ["scope": 0, "connection": "room", "configuration": "lab"])["scope"]!
        let simulation = try await client.openSimulation()
        var id = 1_000
        for (transitionMs, taken) in [(7_200_000, true), (7_200_001, false)] {
            let ms: JSONValue = .int(transitionMs)
            let writes: [(String, JSONValue)] = [
                ("set", ["scope": light, "connection": "isOn", "value": true, "transitionMs": ms]),
                (
                    "call",
                    ["scope": light, "connection": "setState", "arguments": ["isOn": false, "transitionMs": ms]]
                ),
                ("call", ["scope": room, "connection": "setAll", "arguments": ["isOn": true, "transitionMs": ms]]),
            ]
            for (method, params) in writes {
                id += 1
                let request: JSONValue = [
                    "jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params,
                ]
                client.send(request.serialized())
                // The write is answered once the light has it, which the clock moving brings about.
                try await client.advance(byMilliseconds: 10, in: simulation)
                let answer = try await client.response(to: .int(id))
                #expect((answer["error"] == nil) == taken, "\(params): \(answer)")
            }
        }
    }

    /// The simulation's controls take any light of the home: an unknown one is answered with where to find
    /// the lights there are in that scope, not with a lumenctl command.
    @Test func anUnknownLightInTheSimulationPointsToTheSnapshot() async throws {
        let server = try await TestServer(fixture: Self.fixture)
        let client = try server.connect()
        let simulation = try await client.result("open", ["scope": 0, "connection": "simulation"])["scope"]!
        let error = try #require(
            try await client.request(
                "call",
                [
                    "scope": simulation, "connection": "setReachable",
                    "arguments": ["light": "lab.nothing", "reachable": false],
                ]
            )["error"])
        #expect(error["code"] == -32004)
        #expect(error["message"] == "no light 'lab.nothing'; call the simulation's snapshot for the lights there are")
        #expect(error["data"] == ["scope": simulation, "connection": "setReachable", "light": "lab.nothing"])
    }
}
