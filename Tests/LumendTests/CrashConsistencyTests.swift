import Foundation
import LumenModel
import LumenTestSupport
import Testing

/// What `kill -9` of the real daemon loses: nothing acknowledged. A killed process leaves the page cache
/// behind, so this would pass without a single `fdatasync`; power loss is the crash-point simulation's
/// (`CrashSimulationTests`), whose disk keeps only what was synced, and which is shown to catch a store that
/// never synced.
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

    /// A crash in the middle of a commit leaves a cut-off line in the journal: that commit was never confirmed,
    /// so the restart drops it, says so, and keeps everything confirmed before it.
    @Test func aCommitCutOffByACrashIsDroppedAndReported() async throws {
        let directory = TemporaryDirectory()
        let fixture = directory.file("home.json")
        _ = FileManager.default.createFile(atPath: fixture, contents: Data(TestFixtures.instantHome.utf8))
        let arguments = ["--fixture", fixture, "--clock", "virtual"]
        // A first start and a clean stop leave the state on disk, so the write below goes to the journal: from
        // a fresh fixture, the first snapshot is written after READY=1 and, on a slow run, would take the
        // write in with it.
        let zeroth = try DaemonProcess(arguments: arguments, directory: directory)
        _ = try #require(await zeroth.waitUntilReady(), "\(zeroth.stderr)")
        zeroth.signal(SIGTERM)
        #expect(await zeroth.waitForExit() == 0)
        let first = try DaemonProcess(arguments: arguments, directory: directory)
        _ = try #require(await first.waitUntilReady(), "\(first.stderr)")
        #expect(first.stderr.contains("from state"), "\(first.stderr)")
        let client = try first.connect()
        let room = try await client.result("open", ["scope": 0, "connection": "room", "configuration": "lab"])
        _ = try await client.result("set", ["scope": room["scope"]!, "connection": "name", "value": "Workshop"])
        first.signal(SIGKILL)
        _ = await first.waitForExit()

        // Write half a commit where the next one would have gone: after the last line, where the filled tail
        // begins.
        let journalPath = first.stateDirectory + "/state.journal"
        let handle = try #require(FileHandle(forUpdatingAtPath: journalPath))
        let bytes = try handle.readToEnd() ?? Data()
        let end = try #require(bytes.lastIndex(of: UInt8(ascii: "\n"))) + 1
        try handle.seek(toOffset: UInt64(end))
        try handle.write(contentsOf: Data(#"0badc0de {"generation":99,"records":[{"home":{"na"#.utf8))
        try handle.close()

        let second = try DaemonProcess(arguments: arguments, directory: directory)
        _ = try #require(await second.waitUntilReady(), "\(second.stderr)")
        #expect(second.stderr.contains("unfinished commit"))
        #expect(second.stderr.contains("journal_commits_replayed=1"))
        let again = try second.connect()
        let reopened = try await again.result("open", ["scope": 0, "connection": "room", "configuration": "lab"])
        let name = try await again.result("get", ["scope": reopened["scope"]!, "connection": "name"])
        #expect(name["value"] == "Workshop")
        second.signal(SIGTERM)
        #expect(await second.waitForExit() == 0)
    }
}
