import LumenModel
import LumenProtocol
import LumenTestSupport
import Testing

/// Every error names the scope, connection and light or room it is about, and echoes values as written.
@Suite("Errors carry their context", .timeLimit(.minutes(2)))
struct ErrorContextTests {
    static let fixture = """
        {"schema": 1, "id": "e", "name": "E", "defaults": {"latency": "instant"}, "rooms": [
          {"id": "lab", "name": "Lab", "lights": [
            {"id": "lab.color", "name": "Color", "kind": "color", "rateLimitPerSecond": 1, "overload": "busy"},
            {"id": "lab.plug", "name": "Plug", "kind": "onoff"},
            {"id": "lab.hue", "name": "Hue", "kind": "color", "whileOff": "refuse", "state": {"isOn": false}}
          ]}]}
        """

    func error(_ client: LineClient, _ params: JSONValue) async throws -> JSONValue {
        try #require(try await client.request("set", params)["error"])
    }

    @Test func outOfRangeNamesEverythingAndEchoesTheNumberAsWritten() async throws {
        let server = try await TestServer(fixture: Self.fixture)
        let client = try server.connect()
        let light = try await client.openLight("lab", "lab.color")
        client.send(
            #"{"jsonrpc":"2.0","id":"r","method":"set","params":{"scope":\#(light.serialized()),"connection":"brightness","value":140.50}}"#
        )
        let reply = try await client.response(to: "r")
        let error = try #require(reply["error"])
        #expect(error["code"] == -32602)
        #expect(
            error["message"]
                == "brightness 140.5 is out of range 1–100 (or 0, which dims to off where the light's family allows it)"
        )
        #expect(error["data"]?["scope"] == light)
        #expect(error["data"]?["connection"] == "brightness")
        #expect(error["data"]?["light"] == "lab.color")
        // The number exactly as the client wrote it.
        #expect(error["data"]?["value"]?.serialized() == "140.50")
        let whole = try await self.error(client, ["scope": light, "connection": "brightness", "value": 140])
        #expect(
            whole["message"]
                == "brightness 140 is out of range 1–100 (or 0, which dims to off where the light's family allows it)")
    }

    /// A value whose member is missing or wrong names that member, as `setState` names its arguments' members.
    @Test func aValuesWrongMemberIsNamed() async throws {
        let server = try await TestServer(fixture: Self.fixture)
        let client = try server.connect()
        let light = try await client.openLight("lab", "lab.color")
        let missing = try await error(client, ["scope": light, "connection": "color", "value": ["y": 0.3]])
        #expect(missing["message"] == "value.x: is required")
        let wrong = try await error(client, ["scope": light, "connection": "color", "value": ["x": 2, "y": 0.3]])
        #expect(wrong["message"]?.stringValue?.hasPrefix("value.x: 2 is out of range") == true, "\(wrong)")
        let whole = try await error(client, ["scope": light, "connection": "isOn", "value": "yes"])
        #expect(whole["message"]?.stringValue?.hasPrefix("value: ") == true, "\(whole)")
    }

    @Test func notSupportedBusyAndOffEachNameTheirLight() async throws {
        let server = try await TestServer(fixture: Self.fixture)
        let client = try server.connect()
        let plug = try await client.openLight("lab", "lab.plug")
        let unsupported = try await error(client, ["scope": plug, "connection": "brightness", "value": 20])
        #expect(unsupported["code"] == -32005)
        #expect(unsupported["data"]?["light"] == "lab.plug" && unsupported["data"]?["scope"] == plug)
        #expect(unsupported["data"]?["connection"] == "brightness" && unsupported["data"]?["value"] == 20)

        let color = try await client.openLight("lab", "lab.color")
        let simulation = try await client.openSimulation()
        // The first takes the light's one token; it is answered once the virtual clock moves. Requests are
        // taken in order, so the second finds the token taken, and its reply comes after the first's.
        client.send(
            #"{"jsonrpc":"2.0","id":"first","method":"set","params":{"scope":\#(color.serialized()),"connection":"brightness","value":10}}"#
        )
        client.send(
            #"{"jsonrpc":"2.0","id":"busy","method":"set","params":{"scope":\#(color.serialized()),"connection":"brightness","value":20}}"#
        )
        try await client.advance(byMilliseconds: 0, in: simulation)
        #expect(try await client.response(to: "first")["result"] != nil)
        let busy = try #require(try await client.response(to: "busy")["error"])
        #expect(busy["code"] == -32012)
        #expect(busy["data"]?["light"] == "lab.color" && busy["data"]?["scope"] == color)
        #expect(busy["data"]?["connection"] == "brightness" && busy["data"]?["value"] == 20)

        // Refused by the device after its latency: the later reply carries the context too.
        let hue = try await client.openLight("lab", "lab.hue")
        client.send(
            #"{"jsonrpc":"2.0","id":"off","method":"set","params":{"scope":\#(hue.serialized()),"connection":"color","value":{"x":0.2,"y":0.2}}}"#
        )
        try await client.advance(byMilliseconds: 0, in: simulation)
        let off = try #require(try await client.response(to: "off")["error"])
        #expect(off["code"] == -32013)
        #expect(off["data"]?["light"] == "lab.hue" && off["data"]?["scope"] == hue)
        #expect(off["data"]?["connection"] == "color" && off["data"]?["value"] == ["x": 0.2, "y": 0.2])
    }

    @Test func aRoomsErrorsNameTheRoom() async throws {
        let server = try await TestServer(fixture: Self.fixture)
        let client = try server.connect()
        let room = try await client.result("open", ["scope": 0, "connection": "room", "configuration": "lab"])
        let scope = room["scope"]!
        let error = try #require(
            try await client.request("call", ["scope": scope, "connection": "setAll", "arguments": ["sparkle": 1]])[
                "error"])
        #expect(error["code"] == -32602)
        #expect(error["data"]?["room"] == "lab" && error["data"]?["scope"] == scope)
        #expect(error["data"]?["connection"] == "setAll")
        let readOnly = try await self.error(client, ["scope": scope, "connection": "anyOn", "value": true])
        #expect(readOnly["code"] == -32003 && readOnly["data"]?["room"] == "lab")
    }

    @Test func subscribeAndOpenErrorsNameWhereTheyHappened() async throws {
        let server = try await TestServer(fixture: Self.fixture)
        let client = try server.connect()
        let plug = try await client.openLight("lab", "lab.plug")
        let subscribe = try #require(
            try await client.request("subscribe", ["scope": plug, "connection": "brightness"])["error"])
        #expect(subscribe["code"] == -32005)
        #expect(subscribe["data"]?["light"] == "lab.plug" && subscribe["data"]?["scope"] == plug)
        let room = try await client.result("open", ["scope": 0, "connection": "room", "configuration": "lab"])
        let open = try #require(
            try await client.request(
                "open", ["scope": room["scope"]!, "connection": "light", "configuration": "attic.lamp"])["error"])
        #expect(open["code"] == -32004)
        #expect(open["data"]?["room"] == "lab" && open["data"]?["light"] == "attic.lamp")
        #expect(open["data"]?["scope"] == room["scope"]! && open["data"]?["connection"] == "light")
    }

    @Test func aLargeValueIsNotEchoedBack() async throws {
        let server = try await TestServer(fixture: Self.fixture)
        let client = try server.connect()
        let light = try await client.openLight("lab", "lab.color")
        let big = JSONValue.array((0..<5_000).map { .int($0) })
        let error = try await self.error(client, ["scope": light, "connection": "brightness", "value": big])
        #expect(error["code"] == -32602)
        #expect(error["data"]?.objectValue?["value"] == nil, "\(error.serialized())")
    }
}
