import Foundation
import LumenModel
import LumenTestSupport
import Testing

@Suite("Crash consistency", .timeLimit(.minutes(2)))
struct CrashConsistencyTests {
    /// Acknowledged writes survive `kill -9` sent the moment the acknowledgement arrives.
    @Test func everyAcknowledgedWriteSurvivesKillNine() async throws {
        let directory = TemporaryDirectory()
        let fixture = directory.file("home.json")
        _ = FileManager.default.createFile(atPath: fixture, contents: Data(TestFixtures.instantHome.utf8))
        var losses: [String] = []
        var expected: (brightness: Double, isOn: Bool, name: String)? = nil
        for round in 1...20 {
            let daemon = try DaemonProcess(
                arguments: ["--fixture", fixture, "--clock", "virtual"], directory: directory)
            _ = try #require(await daemon.waitUntilReady(), "round \(round): \(daemon.stderr)")
            let client = try daemon.connect()
            let room = try await client.result("open", ["scope": 0, "connection": "room", "configuration": "lab"])
            let light = try await client.result(
                "open", ["scope": room["scope"]!, "connection": "light", "configuration": "lab.dim"])
            let scope = light["scope"]!
            if let expected {
                let brightness = try await client.result("get", ["scope": scope, "connection": "brightness"])
                let isOn = try await client.result("get", ["scope": scope, "connection": "isOn"])
                let name = try await client.result("get", ["scope": scope, "connection": "name"])
                if brightness["value"]?.doubleValue != expected.brightness || isOn["value"]?.boolValue != expected.isOn
                    || name["value"]?.stringValue != expected.name
                {
                    losses.append("round \(round): expected \(expected), found \(brightness) \(isOn) \(name)")
                }
            }
            let simulation = try await client.result("open", ["scope": 0, "connection": "simulation"])
            let next = (brightness: Double(round * 4 + 1), isOn: round % 2 == 0, name: "Dimmer \(round)")
            // Three writes pipelined; the clock is advanced so the device applies them.
            client.send(
                #"{"jsonrpc":"2.0","id":"b","method":"set","params":{"scope":\#(scope.serialized()),"connection":"brightness","value":\#(next.brightness)}}"#
            )
            client.send(
                #"{"jsonrpc":"2.0","id":"o","method":"set","params":{"scope":\#(scope.serialized()),"connection":"isOn","value":\#(next.isOn)}}"#
            )
            client.send(
                #"{"jsonrpc":"2.0","id":"n","method":"set","params":{"scope":\#(scope.serialized()),"connection":"name","value":"\#(next.name)"}}"#
            )
            client.send(
                #"{"jsonrpc":"2.0","id":"a","method":"call","params":{"scope":\#(simulation["scope"]!.serialized()),"connection":"advance","arguments":{"ms":0}}}"#
            )
            var acknowledged = Set<String>()
            while acknowledged.count < 4 {
                let message = try await client.readJSON()
                if let id = message["id"]?.stringValue {
                    #expect(message["result"] != nil, "round \(round): \(message.serialized())")
                    acknowledged.insert(id)
                }
            }
            daemon.signal(SIGKILL)
            #expect(await daemon.waitForExit() == 128 + SIGKILL)
            expected = next
        }
        #expect(losses.isEmpty, "\(losses.count) of 20 acknowledged writes lost: \(losses)")
    }
}
