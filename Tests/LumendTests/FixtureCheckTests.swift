import Foundation
import LumenModel
import LumenProtocol
import LumenTestSupport
import Testing

/// `lumend --check` and `--print-fixture`: fixtures looked at without starting a daemon.
@Suite("Checking fixtures without starting", .timeLimit(.minutes(1)))
struct FixtureCheckTests {
    /// Writes `text` to a fixture file of its own and runs `lumend --check` on it.
    func check(_ text: String) async throws -> (path: String, result: (status: Int32, stdout: String, stderr: String)) {
        let directory = TemporaryDirectory()
        let path = directory.file("fixture.json")
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return (path, try await runTool("lumend", ["--check", path]))
    }

    @Test(arguments: ["demo-home.json", "discovery-heavy.json", "flaky-network.json", "office-floor.json"])
    func everyShippedFixtureChecksOut(name: String) async throws {
        let result = try await runTool("lumend", ["--check", TestFixtures.repositoryRoot + "/fixtures/" + name])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(": ok ("), "\(result.stdout)")
    }

    @Test func aFixtureThatChecksOutIsCountedInWords() async throws {
        let (path, result) = try await check(
            """
            {"schema": 1, "id": "one", "name": "One", "rooms": [
              {"id": "lab", "name": "Lab", "lights": [{"id": "lab.a", "name": "A", "kind": "onoff"}]}
            ]}
            """)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(path): ok (1 room, 1 light)\n")
        let demo = try await runTool("lumend", ["--check", TestFixtures.repositoryRoot + "/fixtures/demo-home.json"])
        #expect(demo.stdout.contains(" rooms, ") && demo.stdout.contains(" lights)"), "\(demo.stdout)")
    }

    @Test func aHueUserTheBridgeWouldRefuseIsShownWhereItIs() async throws {
        let (path, result) = try await check(
            """
            {"schema": 1, "id": "one", "name": "One", "hue": {"users": [
              {"username": "a/b", "devicetype": "t#t", "createdMs": 0}]}, "rooms": [
              {"id": "lab", "name": "Lab", "lights": [{"id": "lab.a", "name": "A", "kind": "onoff"}]}
            ]}
            """)
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix("\(path):2:16: hue.users[0].username: a Hue user's name is"), "\(result.stderr)")
    }

    /// A key given twice is shown where it is given again.
    @Test func aKeyGivenTwiceIsShownWhereItIsGivenAgain() async throws {
        let (path, result) = try await check(
            """
            {"schema": 1, "id": "twice", "name": "Twice", "rooms": [
              {"id": "lab", "name": "Lab", "lights": [
                {"id": "lab.a", "name": "A", "kind": "dimmable", "state": {"brightness": 40},
                 "state": {"brightness": 140}}
              ]}
            ]}
            """)
        #expect(result.status == 1)
        #expect(
            result.stderr.split(separator: "\n").map(String.init) == [
                "\(path):4:15: rooms[0].lights[0].state: key given more than once; give each key once"
            ], "\(result.stderr)")
    }

    @Test func everyProblemIsReportedWithItsLineColumnAndPathInFileOrder() async throws {
        let (path, result) = try await check(
            """
            {
              "schema": 1, "id": "bad", "name": "Bad",
              "rooms": [
                {"id": "lab", "name": 7, "lights": [
                  {"id": "lab.a", "name": "A", "kind": "lava"},
                  {"id": "lab.b", "name": "B", "kind": "dimmable", "state": {"brightness": 140}, "glow": 1}
                ]}
              ]
            }
            """)
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "\(path):4:27: rooms[0].name: expected a string, got a number",
                "\(path):5:44: rooms[0].lights[0].kind: 'lava' is not one of: onoff, dimmable, ambiance, color",
                "\(path):6:80: rooms[0].lights[1].state.brightness: 140 is out of range 1–100",
                "\(path):6:94: rooms[0].lights[1].glow: unknown key; expected one of: dropProbability, family, id, kind, "
                    + "latency, lifx, manufacturer, name, network, overload, powerOn, product, rateLimitPerSecond, "
                    + "reachable, "
                    + "state, timeoutMs, whileOff",
            ], "\(result.stderr)")
    }

    /// A problem in a member the decoder cannot do without (a light's kind, name or ID, a colour's x) does not
    /// hide the problems after it: the check goes on with a stand-in that passes there, and reports nothing
    /// the stand-in itself would cause.
    @Test func aProblemInARequiredMemberDoesNotHideTheNext() async throws {
        let (path, result) = try await check(
            """
            {
              "schema": 1, "id": "bad", "name": "Bad",
              "rooms": [
                {"id": "lab", "name": "Lab", "lights": [
                  {"id": "lab.a", "name": "A", "kind": "lava", "state": {"brightness": 140}},
                  {"id": "lab.b", "kind": "colour", "state": {"colorTemperature": 300, "color": {"x": 2, "y": "y"}}},
                  {"id": 3, "name": "C", "kind": "onoff", "state": {"isOn": "yes"}}
                ]}
              ]
            }
            """)
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "\(path):5:44: rooms[0].lights[0].kind: 'lava' is not one of: onoff, dimmable, ambiance, color",
                "\(path):5:76: rooms[0].lights[0].state.brightness: 140 is out of range 1–100",
                "\(path):6:7: rooms[0].lights[1].name: is required",
                "\(path):6:31: rooms[0].lights[1].kind: 'colour' is not one of: onoff, dimmable, ambiance, color",
                "\(path):6:91: rooms[0].lights[1].state.color.x: 2 is out of range 0–1",
                "\(path):6:99: rooms[0].lights[1].state.color.y: expected a number, got a string",
                "\(path):7:14: rooms[0].lights[2].id: expected a string, got a number",
                "\(path):7:65: rooms[0].lights[2].state.isOn: expected true or false, got a string",
            ], "\(result.stderr)")
    }

    /// Problems that stopped the check at the first of their kind: a wrong schema, a missing name at the top,
    /// duplicate IDs, and a latency given as neither a preset nor an object.
    @Test func noProblemHidesAnother() async throws {
        let (path, result) = try await check(
            """
            {
              "schema": "one", "id": "bad", "name": 42, "seed": -3,
              "rooms": [
                {"id": "lab", "lights": [
                  {"id": "lab.a", "name": "A", "kind": "onoff", "latency": 5},
                  {"id": "lab.a", "name": "A again", "kind": "onoff"}
                ]},
                {"id": "lab", "name": "Lab again", "lights": [
                  {"id": "lab.a", "name": "A thrice", "kind": "onoff"}
                ]}
              ]
            }
            """)
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "\(path):2:13: schema: expected the number 1, got a string",
                "\(path):2:41: name: expected a string, got a number",
                "\(path):2:53: seed: expected a non-negative integer",
                "\(path):4:5: rooms[0].name: is required",
                "\(path):5:64: rooms[0].lights[0].latency: expected a preset name (lifx-thread, hue-zigbee, instant) "
                    + "or a model object, got a number",
                "\(path):6:14: rooms[0].lights[1].id: duplicate light ID 'lab.a' in room 'lab'",
                "\(path):8:12: rooms[1].id: duplicate room ID 'lab' (first at rooms[0])",
                "\(path):9:14: rooms[1].lights[0].id: duplicate light ID 'lab.a' in room 'lab'",
            ], "\(result.stderr)")
    }

    /// Rooms and lights without an ID are read on with a stand-in each, which is no one's duplicate.
    @Test func roomsAndLightsWithoutIDsAreNotDuplicatesOfOneAnother() async throws {
        let (path, result) = try await check(
            """
            {"schema": 1, "id": "ids", "name": "IDs", "rooms": [
              {"name": "A", "lights": [{"name": "One", "kind": "onoff"}, {"id": 7, "name": "Two", "kind": "onoff"}]},
              {"id": true, "name": "B", "lights": [{"name": "Three", "kind": "onoff"}]},
              {"id": "c", "name": "C", "lights": [{"id": "c.one", "name": "One", "kind": "onoff"},
                {"id": "c.one", "name": "One again", "kind": "onoff"}]}
            ]}
            """)
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "\(path):2:3: rooms[0].id: is required",
                "\(path):2:28: rooms[0].lights[0].id: is required",
                "\(path):2:69: rooms[0].lights[1].id: expected a string, got a number",
                "\(path):3:10: rooms[1].id: expected a string, got a Boolean",
                "\(path):3:40: rooms[1].lights[0].id: is required",
                "\(path):5:12: rooms[2].lights[1].id: duplicate light ID 'c.one' in room 'c'",
            ], "\(result.stderr)")
    }

    @Test func everyBadNameIsReported() async throws {
        let (path, result) = try await check(
            #"{"schema": 1, "id": "bad", "name": "", "rooms": [{"id": "lab", "name": "", "lights": []}]}"#)
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(result.stderr)")
        #expect(lines.first?.hasPrefix("\(path):1:36: name: ") == true, "\(result.stderr)")
        #expect(lines.last?.hasPrefix("\(path):1:72: rooms[0].name: ") == true, "\(result.stderr)")
    }

    @Test func aMissingNameAtTheTopDoesNotHideOneInARoom() async throws {
        let (path, result) = try await check(
            """
            {"schema": 1, "id": "bad", "rooms": [{"id": "lab", "lights": []}]}
            """)
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "\(path):1:1: name: is required",
                "\(path):1:38: rooms[0].name: is required",
            ], "\(result.stderr)")
    }

    /// What the file says (an ID, a key, a value) is shown with its control characters written out, so a
    /// fixture cannot clear, retitle or recolour the terminal of whoever checks it.
    @Test func controlCharactersFromTheFileAreShownEscapedNotSentToTheTerminal() async throws {
        let (path, result) = try await check(
            #"""
            {"schema": 1, "id": "bad\u001b[2J", "name": "Bad", "rooms": [
              {"id": "lab", "name": "Lab", "lights": [
                {"id": "lab.a", "name": "A", "kind": "lava\u009b31m", "gl\u007fow\u0007": 1}
              ]}
            ]}
            """#)
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "\(path):1:21: id: 'bad\\u{1B}[2J' may only contain letters, digits, '.', '_' and '-'",
                "\(path):3:42: rooms[0].lights[0].kind: 'lava\\u{9B}31m' is not one of: onoff, dimmable, ambiance, "
                    + "color",
                "\(path):3:79: rooms[0].lights[0].gl\\u{7F}ow\\u{07}: unknown key; expected one of: dropProbability, "
                    + "family, id, kind, latency, lifx, manufacturer, name, network, overload, powerOn, product, "
                    + "rateLimitPerSecond, reachable, state, timeoutMs, whileOff",
            ], "\(result.stderr)")
        let controls = result.stderr.unicodeScalars.filter {
            $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value)
        }
        #expect(controls.isEmpty, "\(result.stderr.debugDescription)")
    }

    @Test func aTextThatIsNotJSONIsReportedAtItsLineAndColumn() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("broken.json")
        _ = FileManager.default.createFile(atPath: path, contents: Data("{\n  \"schema\": 1\n  \"id\": 2\n}\n".utf8))
        let result = try await runTool("lumend", ["--check", path, "--check", directory.file("missing.json")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(path):3:3: not valid JSON: expected ',' or '}'"), "\(result.stderr)")
        #expect(result.stderr.contains("missing.json: no such file"))
    }

    @Test func severalFilesNamedAfterCheckAreEachChecked() async throws {
        let directory = TemporaryDirectory()
        let good = directory.file("good.json")
        let bad = directory.file("bad.json")
        _ = FileManager.default.createFile(
            atPath: good,
            contents: Data(
                #"{"schema": 1, "id": "g", "name": "G", "rooms": [{"id": "r", "name": "R", "lights": []}]}"#.utf8))
        _ = FileManager.default.createFile(atPath: bad, contents: Data(#"{"schema": 1, "id": "b"}"#.utf8))
        let result = try await runTool("lumend", ["--check", good, bad, directory.file("gone.json")])
        #expect(result.status == 1)
        #expect(result.stdout == "\(good): ok (1 room, 0 lights)\n", "\(result.stdout)")
        #expect(result.stderr.contains("\(bad):1:1: name: is required"), "\(result.stderr)")
        #expect(result.stderr.contains("gone.json: no such file"), "\(result.stderr)")
        // Without --check, a file named is still a mistake said as one.
        let mistaken = try await runTool("lumend", [good])
        #expect(mistaken.status == 2 && mistaken.stderr.contains("use --fixture \(good)"), "\(mistaken.stderr)")
    }

    @Test func aFaultWindowEndingBeforeItStartsLeavesTheScheduleOtherProblemsReported() async throws {
        let (path, result) = try await check(
            """
            {"schema": 1, "id": "f", "name": "F", "rooms": [
              {"id": "r", "name": "R", "lights": [{"id": "r.l", "name": "L", "kind": "dimmable"}]}],
             "faultSchedule": [
              {"light": "r.l", "fault": "unreachable", "fromMs": 100, "untilMs": 50},
              {"light": "r.l", "fault": "bogus", "fromMs": 1000, "untilMs": 5000},
              {"light": "r.nope", "fault": "unreachable", "fromMs": 1, "untilMs": 5}
             ]}
            """)
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(result.stderr)")
        #expect(lines.first == "\(path):4:70: faultSchedule[0].untilMs: must be later than fromMs (100)")
        #expect(lines.contains { $0.contains("faultSchedule[1].fault:") }, "\(result.stderr)")
        #expect(lines.contains { $0.contains("faultSchedule[2].light:") }, "\(result.stderr)")
    }

    @Test func anEmbeddedFixtureIsPrintedAsBuiltIn() async throws {
        let result = try await runTool("lumend", ["--print-fixture", "demo-home"])
        #expect(result.status == 0)
        #expect(Array(result.stdout.utf8) == Fixture.embeddedDemoHomeJSON)
        let unknown = try await runTool("lumend", ["--print-fixture", "castle"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("--print-fixture takes one of: demo-home"))
    }
}
