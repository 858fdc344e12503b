import LumenModel
import LumenProtocol
import LumenTestSupport
import Testing

/// A light's `setState`: several properties as one device command, over the wire.
@Suite("A light's several properties as one command", .timeLimit(.minutes(2)))
struct LightSetStateTests {
    /// The test home with every light refusing changes while off, as Hue bulbs do.
    static let refusingHome = TestFixtures.instantHome.replacingOccurrences(
        of: #""defaults": {"latency": "instant", "timeoutMs": 1000}"#,
        with: #""defaults": {"latency": "instant", "timeoutMs": 1000, "whileOff": "refuse"}"#)

    func openDimmer(_ client: LineClient) async throws -> JSONValue {
        let room = try await client.result("open", ["scope": 0, "connection": "room", "configuration": "lab"])
        let light = try await client.result(
            "open", ["scope": room["scope"]!, "connection": "light", "configuration": "lab.dim"])
        return light["scope"]!
    }

    @Test func anOffLightTakesABrightnessThatComesWithOnAndEachValueChangesOnce() async throws {
        let server = try await TestServer(fixture: Self.refusingHome)
        let client = try server.connect()
        let dimmer = try await openDimmer(client)
        _ = try await client.result("subscribe", ["scope": dimmer, "connection": "isOn"])
        _ = try await client.result("subscribe", ["scope": dimmer, "connection": "brightness"])
        client.send(
            #"{"jsonrpc":"2.0","id":"both","method":"call","params":{"scope":\#(dimmer.serialized()),"connection":"setState","arguments":{"brightness":30,"isOn":true,"transitionMs":0}}}"#
        )
        let harness = try server.connect()
        let simulation = try await harness.result("open", ["scope": 0, "connection": "simulation"])
        _ = try await harness.result(
            "call", ["scope": simulation["scope"]!, "connection": "advance", "arguments": ["ms": 10]])
        let reply = try await client.response(to: "both")
        #expect(reply["result"]?["value"] == ["isOn": true, "brightness": 30], "\(reply.serialized())")
        let changes = try await client.waitForNotifications(2).map { $0["params"]?["value"] }
        #expect(changes.sorted { $0?.serialized() ?? "" < $1?.serialized() ?? "" } == [30, true])
        #expect(try await client.result("get", ["scope": dimmer, "connection": "brightness"])["value"] == 30)
    }

    /// What the arguments or the light's kind rule out is refused before the command is sent; being off is
    /// the device's to refuse, when the command reaches it (the lumenctl tests show that refusal).
    @Test func whatIsWrongWithACommandIsSaidAtOnce() async throws {
        let server = try await TestServer(fixture: Self.refusingHome)
        let client = try server.connect()
        let dimmer = try await openDimmer(client)
        func error(_ arguments: JSONValue) async throws -> JSONValue? {
            try await client.request(
                "call", ["scope": dimmer, "connection": "setState", "arguments": arguments])["error"]
        }
        let empty = try await error([:])
        #expect(empty?["code"] == .int(LumenError.Code.invalidParams.rawValue))
        #expect(empty?["message"]?.stringValue?.contains("give at least one of isOn, brightness") == true)
        #expect(empty?["data"]?["light"] == "lab.dim" && empty?["data"]?["connection"] == "setState")
        let range = try await error(["isOn": true, "brightness": 140])
        #expect(
            range?["message"]?.stringValue?.contains("140 is out of range 1–100") == true,
            "\(String(describing: range))")
        let lacking = try await error(["isOn": true, "colorTemperature": 300])
        #expect(lacking?["code"] == .int(LumenError.Code.notSupported.rawValue), "\(String(describing: lacking))")
    }
}
