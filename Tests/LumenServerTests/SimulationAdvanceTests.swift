import LumenModel
import LumenProtocol
import LumenTestSupport
import Testing

/// The simulation's `advance` over the wire: by a span, until idle, or to the next event.
@Suite("Advancing the virtual clock over the wire", .timeLimit(.minutes(2)))
struct SimulationAdvanceTests {
    /// Opens the simulation scope and the lab's dimmer; returns their scope IDs.
    static func openSimulationAndDimmer(_ client: LineClient) async throws -> (simulation: JSONValue, dimmer: JSONValue)
    {
        let simulation = try await client.result("open", ["scope": 0, "connection": "simulation"])["scope"]!
        let room = try await client.result("open", ["scope": 0, "connection": "room", "configuration": "lab"])
        let dimmer = try await client.result(
            "open", ["scope": room["scope"]!, "connection": "light", "configuration": "lab.dim"])["scope"]!
        return (simulation, dimmer)
    }

    @Test func untilIdleSettlesAWaitingSetAndSaysHowFarItWent() async throws {
        let server = try await TestServer()
        let client = try server.connect()
        let (simulation, dimmer) = try await Self.openSimulationAndDimmer(client)
        client.send(
            #"{"jsonrpc":"2.0","id":"on","method":"set","params":{"scope":\#(dimmer.serialized()),"connection":"isOn","value":true,"transitionMs":0}}"#
        )
        let settled = try await client.result(
            "call", ["scope": simulation, "connection": "advance", "arguments": ["untilIdle": true]])["value"]
        #expect(settled?["idle"] == true && settled?["advancedMs"] == 0, "\(String(describing: settled))")
        #expect(try await client.response(to: "on")["result"]?["value"] == true)
        let idle = try await client.result(
            "call", ["scope": simulation, "connection": "advance", "arguments": ["toNextEvent": true]])["value"]
        #expect(idle?["advancedMs"] == 0 && idle?["idle"] == nil, "\(String(describing: idle))")
        let by = try await client.result(
            "call", ["scope": simulation, "connection": "advance", "arguments": ["ms": 500]])["value"]
        #expect(
            by == [
                "mode": "virtual", "runsItself": false, "nowMs": 500, "wallTime": "2026-01-01T00:00:00.500Z",
                "advancedMs": 500,
            ])
    }

    /// Settling goes as far as the longest fade unless told otherwise: a two-hour sunrise settles in one call.
    @Test func untilIdleSettlesTheLongestFadeUnlessToldOtherwise() async throws {
        let server = try await TestServer()
        let client = try server.connect()
        let (simulation, dimmer) = try await Self.openSimulationAndDimmer(client)
        client.send(
            #"{"jsonrpc":"2.0","id":"on","method":"set","params":{"scope":\#(dimmer.serialized()),"connection":"isOn","value":true,"transitionMs":7200000}}"#
        )
        let settled = try await client.result(
            "call", ["scope": simulation, "connection": "advance", "arguments": ["untilIdle": true]])["value"]
        #expect(settled?["idle"] == true, "\(String(describing: settled))")
        #expect((settled?["advancedMs"]?.doubleValue ?? 0) >= 7_200_000, "\(String(describing: settled))")
    }

    @Test(
        arguments: [
            (JSONValue.object([:]), "give one of ms, untilIdle: true and toNextEvent: true"),
            (JSONValue.object(["ms": 5, "untilIdle": true]), "give one of ms, untilIdle: true and toNextEvent: true"),
            (JSONValue.object(["untilIdle": false]), "only true is taken"),
            (JSONValue.object(["ms": 5, "maxMs": 3]), "maxMs bounds untilIdle only"),
            // One limit, said one way, whichever way the clock is moved.
            (JSONValue.object(["ms": 86_400_001]), "ms must be from 0 to 86400000 ms (a day), got 86400001"),
            (JSONValue.object(["ms": -1]), "ms must be from 0 to 86400000 ms (a day), got -1"),
            (
                JSONValue.object(["untilIdle": true, "maxMs": 1e12]),
                "maxMs must be from 0 to 86400000 ms (a day), got 1000000000000"
            ),
        ] as [(JSONValue, String)])
    func aConfusedAdvanceIsRefused(arguments: JSONValue, message: String) async throws {
        let server = try await TestServer()
        let client = try server.connect()
        let simulation = try await client.result("open", ["scope": 0, "connection": "simulation"])["scope"]!
        let error = try await client.request(
            "call", ["scope": simulation, "connection": "advance", "arguments": arguments])["error"]
        #expect(error?["code"] == .int(LumenError.Code.invalidParams.rawValue))
        #expect(error?["message"]?.stringValue?.contains(message) == true, "\(String(describing: error))")
    }

    @Test func theCommandRecordSaysWhoSentWhatAndWhatBecameOfIt() async throws {
        let server = try await TestServer()
        let client = try server.connect()
        let simulation = try await client.result("open", ["scope": 0, "connection": "simulation"])["scope"]!
        let last = try await client.result("subscribe", ["scope": simulation, "connection": "lastCommand"])
        #expect(last["value"] == .null)
        let room = try await client.result("open", ["scope": 0, "connection": "room", "configuration": "lab"])
        let dimmer = try await client.result(
            "open", ["scope": room["scope"]!, "connection": "light", "configuration": "lab.dim"])["scope"]!
        client.send(
            #"{"jsonrpc":"2.0","id":"on","method":"set","params":{"scope":\#(dimmer.serialized()),"connection":"brightness","value":30}}"#
        )
        // A session takes its requests in order: the advance comes after the set has reached the home.
        _ = try await client.result(
            "call", ["scope": simulation, "connection": "advance", "arguments": ["untilIdle": true]])
        _ = try await client.response(to: "on")
        let commands = try await client.result(
            "call", ["scope": simulation, "connection": "commands", "arguments": ["light": "lab.dim"]])["value"]
        #expect(
            commands?["commands"]
                == [
                    [
                        "number": 1, "atMs": 0, "at": "2026-01-01T00:00:00.000Z", "source": "session 1",
                        "light": "lab.dim", "change": ["brightness": 30], "transitionMs": 0, "outcome": "applied",
                    ]
                ])
        let heard = try await client.waitForNotifications(1).filter { $0["method"] == "changed" }
        #expect(heard.last?["params"]?["value"]?["outcome"] == "applied", "\(heard)")
        let none = try await client.result(
            "call", ["scope": simulation, "connection": "commands", "arguments": ["light": "lab.plug"]])["value"]
        #expect(none?["commands"] == [])
    }
}
