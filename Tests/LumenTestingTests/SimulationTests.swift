import Foundation
import LumenClient
import LumenProtocol
import LumenTestSupport
import LumenTesting
import Testing

/// LumenTesting's simulation helpers against a real lumend on the virtual clock: the assertions Swift tests
/// share with the Python client's, failing with the same words.
@Suite("Testing helpers", .timeLimit(.minutes(2)))
struct SimulationTests {
    static let lab = """
        {"schema": 1, "id": "lab", "name": "Lab", "seed": 3, "defaults": {"latency": {"kind": "fixed", "ms": 100}},
         "rooms": [{"id": "lab", "name": "Lab", "lights": [
           {"id": "lab.lamp", "name": "Lamp", "kind": "dimmable", "state": {"isOn": false, "brightness": 40}},
           {"id": "lab.plug", "name": "Plug", "kind": "onoff"}]}]}
        """

    /// A lumend on the lab home and the virtual clock, and a client connected to it.
    func start() async throws -> (DaemonProcess, LumenClient) {
        let directory = TemporaryDirectory()
        let fixture = directory.file("lab.json")
        _ = FileManager.default.createFile(atPath: fixture, contents: Data(Self.lab.utf8))
        let daemon = try DaemonProcess(
            arguments: ["--clock", "virtual", "--seed", "1", "--fixture", fixture], directory: directory)
        _ = try #require(await daemon.waitUntilReady(), "no READY=1: \(daemon.stderr)")
        return (daemon, try await LumenClient.connect(to: daemon.socketPath))
    }

    // The example docs/testing.md shows, word for word (checked below).
    /// Dims the lab's lamp as a test would, and checks what it received and shows.
    func dimTheLampAndCheck(_ client: LumenClient) async throws {
        let simulation = try await Simulation.open(on: client)
        let room = try await client.open("room", in: ScopeID(0), configuration: "lab")
        let lamp = try await client.open("light", in: room, configuration: "lab.lamp")
        async let applied = client.setState(["isOn": true, "brightness": 30], of: lamp)
        try await simulation.waitForCommands(1, light: "lab.lamp")  // sent, and pending on the virtual clock
        try await simulation.settle()
        _ = try await applied
        try await simulation.assertCommand(light: "lab.lamp", ["isOn": true, "brightness": 30], source: "session")
        try await simulation.assertState(light: "lab.lamp", ["isOn": true, "brightness": 30])
        try await simulation.clearCommands()  // what comes next is asserted on its own
        try await simulation.assertCommand(light: "lab.lamp", count: 0)
    }

    @Test func theDocumentedExampleRuns() async throws {
        let (daemon, client) = try await start()
        defer { client.disconnect() }
        try await dimTheLampAndCheck(client)
        _ = daemon
    }

    @Test func docsTestingMdShowsTheExampleAsItIs() throws {
        let docs = try String(contentsOfFile: TestFixtures.repositoryRoot + "/docs/testing.md", encoding: .utf8)
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let shown = try #require(
            docs.components(separatedBy: "```swift\n").dropFirst().first?
                .components(separatedBy: "\n```").first)
        #expect(source.contains(shown), "docs/testing.md's Swift example is not in \(#filePath)")
    }

    @Test func aFailingAssertionSaysWhatWasExpectedWhatTheLightShowsAndWhatItReceived() async throws {
        let (daemon, client) = try await start()
        defer { client.disconnect() }
        let simulation = try await Simulation.open(on: client)
        let room = try await client.open("room", in: ScopeID(0), configuration: "lab")
        let lamp = try await client.open("light", in: room, configuration: "lab.lamp")
        async let applied = client.setState(["isOn": true, "brightness": 30], of: lamp)
        try await simulation.waitForCommands(1, light: "lab.lamp")
        try await simulation.settle()
        _ = try await applied
        // The words of the Python client's, which docs/testing.md shows.
        let state = await #expect(throws: LumenAssertionFailure.self) {
            try await simulation.assertState(light: "lab.lamp", ["isOn": true, "brightness": 50])
        }
        #expect(
            state?.description == """
                expected lab.lamp to show isOn=true, brightness=50; brightness is 30, not 50
                lab.lamp shows isOn=true, brightness=30
                the 1 command lab.lamp received:
                  #1 at 0 ms from session 1: isOn=true, brightness=30, applied
                """)
        let command = await #expect(throws: LumenAssertionFailure.self) {
            try await simulation.assertCommand(light: "lab.lamp", ["brightness": 30], source: "hue", outcome: "applied")
        }
        #expect(
            command?.description.hasPrefix(
                "expected a command to lab.lamp asking exactly brightness=30 from hue, applied; none came\n") == true,
            "\(command?.description ?? "")")
        let twice = await #expect(throws: LumenAssertionFailure.self) {
            try await simulation.assertCommand(light: "lab.lamp", count: 2)
        }
        #expect(twice?.description.hasPrefix("expected 2 × a command to lab.lamp; 1 came\n") == true)
        let waited = await #expect(throws: LumenAssertionFailure.self) {
            try await simulation.waitForCommands(2, light: "lab.plug", source: "lifx", within: .milliseconds(50))
        }
        #expect(
            waited?.description
                == "waited 0.05 seconds for 2 commands to lab.plug from lifx; the record holds 0\n"
                + "lab.plug from lifx received no command")
        _ = daemon
    }
}
