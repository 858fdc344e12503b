import Foundation
import LumenModel
import LumenStore
import LumenTestSupport
import Testing

@Suite("Start-up state", .timeLimit(.minutes(2)))
struct StateLoaderTests {
    let directory = TemporaryDirectory()
    let fixture = try! Fixture(json: Array(TestFixtures.instantHome.utf8))
    let origin = FixtureOrigin(id: "test-home", digest: "fnv1a64:1")

    var loader: StateLoader { StateLoader(directory: directory.path, now: { 1_700_000_000 }) }

    func write(_ text: String, to name: String = "state.json") {
        _ = FileManager.default.createFile(atPath: directory.file(name), contents: Data(text.utf8))
    }

    func snapshot(name: String, generation: Int, origin: FixtureOrigin? = nil) -> String {
        var state = fixture
        state.name = name
        state.generation = generation
        state.origin = origin ?? self.origin
        return state.prettyJSON()
    }

    /// The journal lumend writes with each snapshot: its header and carry, and the filler after them.
    func journal(base: Int, origin: FixtureOrigin? = nil, to name: String = "state.journal") {
        let bytes =
            StateJournal.start(base: base, origin: origin ?? self.origin, carry: [])
            + [UInt8](repeating: StateJournal.filler, count: 4)
        _ = FileManager.default.createFile(atPath: directory.file(name), contents: Data(bytes))
    }

    @Test func withoutStateItStartsFromTheFixture() throws {
        let outcome = try loader.load(fixture: fixture, origin: origin, fixtureIsExplicit: true, reset: false)
        #expect(outcome.source == .fixture)
        #expect(outcome.warnings.isEmpty)
    }

    @Test func itResumesFromTheStateFile() throws {
        write(snapshot(name: "Saved", generation: 7))
        journal(base: 7)
        let outcome = try loader.load(fixture: fixture, origin: origin, fixtureIsExplicit: true, reset: false)
        #expect(outcome.source == .state)
        #expect(outcome.fixture.name == "Saved")
        #expect(outcome.generation == 7)
    }

    @Test(arguments: [
        ("garbage", "not valid JSON"),
        ("truncated", "not valid JSON"),
        ("empty", "not valid JSON"),
        ("wrong schema", "schema 0 is not supported"),
    ])
    func aBrokenStateFileIsMovedAsideNeverDeleted(kind: String, message: String) throws {
        let good = snapshot(name: "Saved", generation: 3)
        let broken: String
        switch kind {
        case "garbage": broken = "\u{01}\u{02} not json"
        case "truncated": broken = String(good.prefix(good.count / 2))
        case "empty": broken = ""
        default: broken = good.replacingOccurrences(of: "\"schema\": 1", with: "\"schema\": 0")
        }
        write(broken)
        journal(base: 3)
        // Nothing else holds what the state file held: start-up stops unless the loss is accepted.
        let refusal = #expect(throws: StateLoader.Refusal.self) {
            try loader.load(fixture: fixture, origin: origin, fixtureIsExplicit: true, reset: false)
        }
        #expect(refusal?.description.contains("no snapshot for it to follow") == true)
        #expect(try String(contentsOfFile: directory.file("state.json"), encoding: .utf8) == broken)
        let outcome = try loader.load(
            fixture: fixture, origin: origin, fixtureIsExplicit: true, reset: false, acceptingLoss: true)
        #expect(outcome.source == .fixture)
        let aside = directory.file("state.json.corrupt-1700000000")
        #expect(try String(contentsOfFile: aside, encoding: .utf8) == broken)
        #expect(!FileManager.default.fileExists(atPath: directory.file("state.json")))
        #expect(outcome.warnings.contains { $0.contains("is corrupt") && $0.contains(message) && $0.contains(aside) })
    }

    @Test func aCorruptStateFallsBackToThePreviousGeneration() throws {
        write("{", to: "state.json")
        write(snapshot(name: "Previous", generation: 4), to: "state.previous.json")
        journal(base: 4)
        let outcome = try loader.load(fixture: fixture, origin: origin, fixtureIsExplicit: false, reset: false)
        #expect(outcome.source == .previous)
        #expect(outcome.fixture.name == "Previous")
        #expect(
            outcome.warnings.contains { $0.contains("state.json is damaged; resumed from the previous generation") })
        // Moved aside for being damaged, it is not also said to be missing.
        #expect(!outcome.warnings.contains { $0.contains("missing") }, "\(outcome.warnings)")
    }

    @Test func aStateFromANewerLumendIsRefusedNotTouched() throws {
        let future = snapshot(name: "Future", generation: 1).replacingOccurrences(
            of: "\"schema\": 1", with: "\"schema\": 9")
        write(future)
        #expect(throws: StateLoader.Refusal.self) {
            try loader.load(fixture: fixture, origin: origin, fixtureIsExplicit: false, reset: false)
        }
        do {
            _ = try loader.load(fixture: fixture, origin: origin, fixtureIsExplicit: false, reset: false)
        } catch {
            #expect(error.description.contains("written by a newer lumend"))
            #expect(error.description.contains("--reset"))
        }
        #expect(try String(contentsOfFile: directory.file("state.json"), encoding: .utf8) == future)
    }

    @Test func aStateFromAnotherFixtureIsRefusedNamingReset() throws {
        let other = FixtureOrigin(id: "other-home", digest: "fnv1a64:2")
        write(snapshot(name: "Other", generation: 2, origin: other))
        journal(base: 2, origin: other)
        do {
            _ = try loader.load(fixture: fixture, origin: origin, fixtureIsExplicit: true, reset: false)
            Issue.record("resumed a state from another fixture")
        } catch {
            #expect(error.description.contains("came from fixture 'other-home'"))
            #expect(error.description.contains("--reset"))
        }
        // Without an explicit fixture, the state is what the user wants.
        let outcome = try loader.load(fixture: fixture, origin: origin, fixtureIsExplicit: false, reset: false)
        #expect(outcome.fixture.name == "Other")
    }

    @Test func aStateFromAnEarlierVersionOfTheFixtureIsReconciledWithIt() throws {
        let earlier = FixtureOrigin(id: "test-home", digest: "fnv1a64:0")
        var state = fixture
        state.rooms[0].lights.removeAll { $0.id == "lab.plug" }
        state.rooms[0].lights[0].state.brightness = 12
        state.rooms[0].lights.append(LightFixture(id: "lab.gone", name: "Gone", model: state.rooms[0].lights[0].model))
        state.generation = 4
        state.origin = earlier
        write(state.prettyJSON())
        journal(base: 4, origin: earlier)
        let outcome = try loader.load(fixture: fixture, origin: origin, fixtureIsExplicit: true, reset: false)
        #expect(outcome.source == .state && outcome.generation == 4 && outcome.origin == origin)
        #expect(outcome.fixture.rooms[0].lights.map(\.id) == ["lab.color", "lab.plug", "lab.dim"])
        #expect(outcome.fixture.rooms[0].lights[0].state.brightness == 12)
        // Written afresh at start, under the fixture's new origin, rather than appended to the old journal.
        #expect(outcome.resumableJournal == nil)
        #expect(outcome.warnings.isEmpty, "\(outcome.warnings)")
        #expect(
            outcome.notices.last
                == "the fixture changed since the state was saved (fnv1a64:0, now fnv1a64:1); reconciled: 3 lights kept "
                + "their saved state; added from the fixture: lab.plug; removed, as the fixture no longer has "
                + "them: lab.gone")
    }

    @Test func resetKeepsOnlyTheStateTheLastResetMovedAside() throws {
        write(snapshot(name: "First", generation: 2))
        journal(base: 2)
        write("an older reset's journal", to: "state.journal.reset-1600000000")
        write("not lumend's", to: "notes.reset-1600000000")
        write("a damaged snapshot kept", to: "state.json.corrupt-1600000000")
        let outcome = try loader.load(fixture: fixture, origin: origin, fixtureIsExplicit: true, reset: true)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(
            names == [
                "notes.reset-1600000000", "state.journal.reset-1700000000", "state.json.corrupt-1600000000",
                "state.json.reset-1700000000",
            ])
        #expect(outcome.notices.contains { $0.contains("only the last is kept") }, "\(outcome.notices)")
        // A reset with nothing to move aside keeps what the last one moved.
        _ = try loader.load(fixture: fixture, origin: origin, fixtureIsExplicit: true, reset: true)
        #expect(FileManager.default.fileExists(atPath: directory.file("state.json.reset-1700000000")))
    }

    @Test func resetMovesTheStateAside() throws {
        write(snapshot(name: "Saved", generation: 2))
        let outcome = try loader.load(fixture: fixture, origin: origin, fixtureIsExplicit: true, reset: true)
        #expect(outcome.source == .fixture)
        #expect(FileManager.default.fileExists(atPath: directory.file("state.json.reset-1700000000")))
    }
}
