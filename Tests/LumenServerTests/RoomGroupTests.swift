import LumenModel
import LumenTestSupport
import Testing

/// A room's `setAll`, `anyOn` and `allOn` over the wire.
@Suite("Room group control over a real socket", .timeLimit(.minutes(2)))
struct RoomGroupTests {
    @Test func setAllAnswersPerLightAndTheDerivedValuesAreSubscribable() async throws {
        let server = try await TestServer()
        let client = try server.connect()
        let room = try await client.result("open", ["scope": 0, "connection": "room", "configuration": "lab"])
        let scope = room["scope"]!
        #expect(try await client.result("get", ["scope": scope, "connection": "anyOn"])["value"] == true)
        #expect(try await client.result("get", ["scope": scope, "connection": "allOn"])["value"] == false)
        let subscription = try await client.result("subscribe", ["scope": scope, "connection": "allOn"])
        #expect(subscription["value"] == false)
        // On the virtual clock the lights apply it once the clock moves, which this session asks after it: the
        // session takes its requests in order, so the command has reached the home by then.
        let simulation = try await client.openSimulation()
        client.send(
            #"{"jsonrpc":"2.0","id":"all","method":"call","params":{"scope":\#(scope.serialized()),"connection":"setAll","arguments":{"isOn":true,"colorTemperature":250}}}"#
        )
        // Read before the lights apply it, though answered after the command (replies keep their requests' order).
        client.send(
            #"{"jsonrpc":"2.0","id":"before","method":"get","params":{"scope":\#(scope.serialized()),"connection":"allOn"}}"#
        )
        try await client.advance(byMilliseconds: 10, in: simulation)
        #expect(try await client.response(to: "before")["result"]?["value"] == false)
        let reply = try await client.response(to: "all")["result"]?["value"]
        #expect(
            reply
                == [
                    "lights": [
                        ["light": "lab.color", "applied": ["isOn", "colorTemperature"]],
                        ["light": "lab.plug", "applied": ["isOn"], "ignored": ["colorTemperature"]],
                        ["light": "lab.dim", "applied": ["isOn"], "ignored": ["colorTemperature"]],
                    ]
                ])
        let notices = try await client.waitForNotifications(1)
        #expect(notices.first?["params"]?["value"] == true, "\(notices)")
        #expect(try await client.result("get", ["scope": scope, "connection": "allOn"])["value"] == true)
    }

    @Test func aSessionIsNotHeldUpWhileItsGroupCommandWaitsForTheLights() async throws {
        // One connection: setAll, then the advance its lights wait for. The advance must not wait behind it.
        let server = try await TestServer()
        let client = try server.connect()
        let room = try await client.result("open", ["scope": 0, "connection": "room", "configuration": "lab"])
        let simulation = try await client.result("open", ["scope": 0, "connection": "simulation"])
        client.send(
            #"{"jsonrpc":"2.0","id":"all","method":"call","params":{"scope":\#(room["scope"]!.serialized()),"connection":"setAll","arguments":{"isOn":false}}}"#
        )
        let advanced = try await client.request(
            "call", ["scope": simulation["scope"]!, "connection": "advance", "arguments": ["ms": 10]])
        #expect(advanced["result"] != nil)
        let all = try await client.response(to: "all")
        #expect(all["result"]?["value"]?["lights"]?.arrayValue?.count == 3, "\(all.serialized())")
    }

    @Test func setAllSaysWhatIsWrongWithItsArguments() async throws {
        let server = try await TestServer()
        let client = try server.connect()
        let room = try await client.result("open", ["scope": 0, "connection": "room", "configuration": "lab"])
        let scope = room["scope"]!
        let error = try await client.request(
            "call", ["scope": scope, "connection": "setAll", "arguments": ["brightness": 140]])["error"]
        #expect(error?["code"] == -32602)
        #expect(error?["message"]?.stringValue?.contains("140") == true, "\(String(describing: error))")
        #expect(error?["data"]?["room"] == "lab")
        let empty = try await client.request("call", ["scope": scope, "connection": "setAll", "arguments": [:]])
        #expect(empty["error"]?["code"] == -32602)
    }
}
