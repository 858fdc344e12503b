import Foundation
import LumenModel
import LumenTestSupport
import Testing

@Suite("Fixtures")
struct FixtureTests {
    static let fixtureFiles: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: TestFixtures.repositoryFixtures)) ?? []
        return names.filter { $0.hasSuffix(".json") && !$0.hasSuffix(".schema.json") }.sorted()
    }()

    @Test func thereAreScenarioFixturesBesideTheDemoHome() {
        #expect(Self.fixtureFiles.contains("demo-home.json"))
        #expect(Self.fixtureFiles.count >= 4, "fixtures: \(Self.fixtureFiles)")
    }

    @Test(arguments: fixtureFiles)
    func everyFixtureLoads(_ name: String) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: "\(TestFixtures.repositoryFixtures)/\(name)"))
        let fixture = try Fixture(json: Array(bytes))
        #expect(!fixture.rooms.isEmpty)
        // What is written back reads back the same.
        #expect(try Fixture(json: Array(fixture.prettyJSON().utf8)) == fixture)
    }

    @Test func theEmbeddedDemoHomeIsTheFileInFixtures() throws {
        let file = try Data(contentsOf: URL(fileURLWithPath: "\(TestFixtures.repositoryFixtures)/demo-home.json"))
        #expect(Array(file) == Fixture.embeddedDemoHomeJSON)
    }

    @Test func theDemoHomeIsBelievable() {
        let home = Fixture.demoHome()
        let lights = home.rooms.flatMap(\.lights)
        #expect(home.rooms.count >= 4)
        #expect(lights.count >= 12)
        #expect(Set(lights.map(\.model.kind)) == Set(LightKind.allCases))
        #expect(!home.rooms.flatMap(\.undiscovered).isEmpty)
    }

    static let base = TestFixtures.instantHome

    /// A broken fixture and the message it must fail with.
    struct Broken: CustomTestStringConvertible, Sendable {
        let name: String
        let edit: @Sendable (String) -> String
        let message: String
        var testDescription: String { name }
    }

    static let broken: [Broken] = [
        Broken(name: "not JSON", edit: { _ in "{" }, message: "not valid JSON"),
        Broken(
            name: "no schema", edit: { $0.replacingOccurrences(of: "\"schema\": 1,", with: "") },
            message: "schema: is required"),
        Broken(
            name: "future schema", edit: { $0.replacingOccurrences(of: "\"schema\": 1", with: "\"schema\": 2") },
            message: "schema: schema 2 is newer than this lumend understands (1)"),
        Broken(
            name: "unknown key", edit: { $0.replacingOccurrences(of: "\"seed\": 7", with: "\"sede\": 7") },
            message: "sede: unknown key"),
        Broken(
            name: "a name with an escape",
            edit: { $0.replacingOccurrences(of: "\"name\": \"Dimmer\"", with: "\"name\": \"Dim\\u001b[2Jmer\"") },
            message:
                "rooms[0].lights[2].name: a name must be 1–64 characters, not only spaces, and without control characters"
        ),
        Broken(
            name: "a name with a direction override",
            edit: { $0.replacingOccurrences(of: "\"name\": \"Dimmer\"", with: "\"name\": \"Dim\\u202emer\"") },
            message: "rooms[0].lights[2].name: a name must be 1–64 characters, not only spaces, and without control "
                + "characters (tabs, newlines, escapes) or characters that reorder or hide text"
        ),
        Broken(
            name: "key given twice",
            edit: { $0.replacingOccurrences(of: "\"brightness\": 50", with: "\"brightness\": 50, \"brightness\": 60") },
            message: "rooms[0].lights[2].state.brightness: key given more than once; give each key once"),
        Broken(
            name: "brightness out of range",
            edit: { $0.replacingOccurrences(of: "\"brightness\": 50", with: "\"brightness\": 140") },
            message: "rooms[0].lights[2].state.brightness: 140 is out of range 1–100"),
        Broken(
            name: "duplicate light",
            edit: { $0.replacingOccurrences(of: "\"id\": \"lab.plug\"", with: "\"id\": \"lab.color\"") },
            message: "rooms[0].lights[1].id: duplicate light ID 'lab.color' in room 'lab'"),
        Broken(
            name: "light in two rooms",
            edit: { $0.replacingOccurrences(of: "\"id\": \"attic.tunable\"", with: "\"id\": \"lab.dim\"") },
            message: "rooms[1].lights[0].id: light 'lab.dim' is already in room 'lab'"),
        Broken(
            name: "duplicate room",
            edit: { $0.replacingOccurrences(of: "\"id\": \"attic\"", with: "\"id\": \"lab\"") },
            message: "rooms[1].id: duplicate room ID 'lab'"),
        Broken(
            name: "bad latency preset",
            edit: { $0.replacingOccurrences(of: "\"instant\"", with: "\"warp\"") },
            message: "defaults.latency: unknown latency preset 'warp'"),
        Broken(
            name: "bad latency model",
            edit: {
                $0.replacingOccurrences(of: "\"instant\"", with: "{\"kind\": \"uniform\", \"minMs\": 9, \"maxMs\": 3}")
            },
            message: "defaults.latency.maxMs: must be at least minMs"),
        Broken(
            name: "unknown kind",
            edit: { $0.replacingOccurrences(of: "\"kind\": \"onoff\"", with: "\"kind\": \"lava\"") },
            message: "rooms[0].lights[1].kind: 'lava' is not one of: onoff, dimmable, ambiance, color"),
        Broken(
            name: "brightness on a plug",
            edit: {
                $0.replacingOccurrences(
                    of: "\"state\": {\"isOn\": false}}", with: "\"state\": {\"isOn\": false, \"brightness\": 5}}")
            },
            message: "rooms[0].lights[1].state.brightness: a 'onoff' light has no brightness"),
        Broken(
            name: "bad ID", edit: { $0.replacingOccurrences(of: "\"id\": \"lab\"", with: "\"id\": \"lab room\"") },
            message: "rooms[0].id: 'lab room' may only contain letters, digits"),
        Broken(
            name: "drop probability above 1",
            edit: {
                $0.replacingOccurrences(
                    of: "\"timeoutMs\": 1000", with: "\"timeoutMs\": 1000, \"dropProbability\": 1.5")
            },
            message: "defaults.dropProbability: 1.5 is out of range 0–1"),
        Broken(
            name: "wrong type", edit: { $0.replacingOccurrences(of: "\"name\": \"Test Home\"", with: "\"name\": 3") },
            message: "name: expected a string, got a number"),
        // Fixtures that parse but can never work.
        Broken(
            name: "a light no scan can find",
            edit: { $0.replacingOccurrences(of: "\"delayMs\": 1000", with: "\"delayMs\": 60000") },
            message:
                "rooms[1].undiscovered[0].delayMs: light 'attic.new' would be found 60000 ms into a scan, but a scan "
                + "lasts 60000 ms; no scan could find it. Lower delayMs or raise discovery.scanDurationMs"),
        Broken(
            name: "overlapping fault windows",
            edit: {
                $0.replacingOccurrences(
                    of: "\"rooms\": [",
                    with:
                        #""faultSchedule": [{"light": "lab.dim", "fault": "unreachable", "fromMs": 1000, "untilMs": 5000}, {"light": "lab.plug", "fault": "unreachable", "fromMs": 2000, "untilMs": 3000}, {"light": "lab.dim", "fault": "powerCycle", "fromMs": 4000, "untilMs": 4500}], "rooms": ["#
                )
            },
            message:
                "faultSchedule[2]: this fault window for light 'lab.dim' overlaps faultSchedule[0] (1000–5000 ms); a "
                + "light has one fault at a time: merge them or move one"),
        Broken(
            name: "a rate limit below one command per timeout",
            edit: {
                $0.replacingOccurrences(
                    of: "\"id\": \"lab.dim\",", with: "\"id\": \"lab.dim\", \"rateLimitPerSecond\": 0.5,")
            },
            message:
                "rooms[0].lights[2].rateLimitPerSecond: light 'lab.dim': a rate limit of 0.5 commands a second allows "
                + "less than one command per timeout (1000 ms); raise rateLimitPerSecond to at least 1 or timeoutMs "
                + "to at least 2000"),
        Broken(
            name: "a home-wide rate limit below one command per timeout",
            edit: {
                $0.replacingOccurrences(
                    of: "\"timeoutMs\": 1000", with: "\"timeoutMs\": 1000, \"rateLimitPerSecond\": 0.2")
            },
            message: "defaults.rateLimitPerSecond: light 'lab.color': a rate limit of 0.2 commands a second"),
        Broken(
            name: "a colour temperature the light does not take",
            edit: {
                $0.replacingOccurrences(
                    of: "\"kind\": \"ambiance\"}",
                    with: "\"kind\": \"ambiance\", \"state\": {\"colorTemperature\": 600}}")
            },
            message:
                "rooms[1].lights[0].state.colorTemperature: light 'attic.tunable' takes colour temperatures of "
                + "153–500 mireds (2,000–6,500 K), not 600; give one within them"),
        Broken(
            name: "a colour temperature a LIFX Tile does not take",
            edit: {
                $0.replacingOccurrences(
                    of: "{\"id\": \"lab.color\", \"name\": \"Color\", \"kind\": \"color\"}",
                    with:
                        #"{"id": "lab.color", "name": "Color", "kind": "color", "manufacturer": "LIFX", "product": "LIFX Tile", "state": {"colorTemperature": 500}}"#
                )
            },
            message:
                "rooms[0].lights[0].state.colorTemperature: light 'lab.color' takes colour temperatures of "
                + "111–400 mireds (2,500–9,000 K), not 500; give one within them"),
    ]

    @Test func fixturesThatCanWorkAreAccepted() throws {
        // The same shapes, just inside the limits.
        let text = Self.base.replacingOccurrences(of: "\"delayMs\": 1000", with: "\"delayMs\": 59999")
            .replacingOccurrences(of: "\"id\": \"lab.dim\",", with: "\"id\": \"lab.dim\", \"rateLimitPerSecond\": 1,")
            .replacingOccurrences(
                of: "\"rooms\": [",
                with:
                    #""faultSchedule": [{"light": "lab.dim", "fault": "unreachable", "fromMs": 1000, "untilMs": 4000}, {"light": "lab.dim", "fault": "powerCycle", "fromMs": 4000, "untilMs": 4500}], "rooms": ["#
            )
        _ = try Fixture(json: Array(text.utf8))
        // A LIFX bulb takes 1,500 K (667 mireds), warmer than other lights.
        let lifx = Self.base.replacingOccurrences(
            of: #"{"id": "lab.color", "name": "Color", "kind": "color"}"#,
            with:
                #"{"id": "lab.color", "name": "Color", "kind": "color", "manufacturer": "LIFX", "state": {"colorTemperature": 667}}"#
        )
        #expect(lifx != Self.base)
        _ = try Fixture(json: Array(lifx.utf8))
    }

    @Test func aSnapshotIsNotRefusedForWhatOnlyAFixtureIsHeldTo() throws {
        // A state file is the daemon's own; refusing it would stop lumend from starting on its saved state.
        let text = Self.base.replacingOccurrences(of: "\"delayMs\": 1000", with: "\"delayMs\": 60000")
            .replacingOccurrences(of: "\"seed\": 7,", with: "\"seed\": 7, \"generation\": 3,")
            // A colour temperature a LIFX Tile does not take, as an older lumend may have saved it.
            .replacingOccurrences(
                of: #"{"id": "lab.color", "name": "Color", "kind": "color"}"#,
                with:
                    #"{"id": "lab.color", "name": "Color", "kind": "color", "manufacturer": "LIFX", "product": "LIFX Tile", "state": {"colorTemperature": 667}}"#
            )
        #expect(text.contains("LIFX Tile"))
        _ = try Fixture(json: Array(text.utf8))
    }

    @Test(arguments: broken)
    func brokenFixturesFailWithThePathAndWhatIsWrong(_ broken: Broken) {
        let text = broken.edit(Self.base)
        #expect(text != Self.base || broken.name == "not JSON", "the edit did not apply")
        do {
            _ = try Fixture(json: Array(text.utf8))
            Issue.record("\(broken.name) loaded")
        } catch {
            #expect(
                error.description.hasPrefix(broken.message) || error.description.contains(broken.message),
                "got: \(error.description)")
        }
    }
}
