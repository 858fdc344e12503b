import Foundation
import LumenModel
import LumenStore
import LumenTestSupport
import Testing

@Suite("Journal replay at start-up", .timeLimit(.minutes(2)))
struct JournalReplayTests {
    let directory = TemporaryDirectory()
    let fixture = try! Fixture(json: Array(TestFixtures.instantHome.utf8))
    let origin = FixtureOrigin(id: "test-home", digest: "fnv1a64:1")

    var loader: StateLoader { StateLoader(directory: directory.path, now: { 1_700_000_000 }) }

    /// Writes a file; a journal with the zeros lumend always leaves after its last commit, unless `cut`.
    func write(_ bytes: [UInt8], to name: String, cut: Bool = false) {
        let tail = name.hasSuffix(".journal") && !cut ? [UInt8](repeating: 0, count: 64) : []
        _ = FileManager.default.createFile(atPath: directory.file(name), contents: Data(bytes + tail))
    }

    func writeSnapshot(generation: Int, name: String = "Saved", to file: String = "state.json") {
        var state = fixture
        state.name = name
        state.generation = generation
        state.origin = origin
        write(Array(state.prettyJSON().utf8), to: file)
    }

    /// A journal after `base` renaming the home once per commit: "Rename 1", "Rename 2", …, line by line in the
    /// format before the current one (version 2, still read: the copies it may hold are not needed), so that
    /// each test can damage exactly the line it means to. `LastCommitDamageTests` and the damage simulation
    /// cover the current format.
    func journal(base: Int, commits: Int, origin: FixtureOrigin? = nil) -> [[UInt8]] {
        [StateJournal.headerLine(base: base, origin: origin ?? self.origin, version: 2)]
            + (1...max(1, commits)).prefix(commits).map { index in
                StateJournal.batchLine(
                    generation: base + index, records: [.home(name: "Rename \(index)", roomIDs: ["lab", "attic"])])
            }
    }

    func load(acceptingLoss: Bool = false) throws -> StateLoader.Outcome {
        try loader.load(
            fixture: fixture, origin: origin, fixtureIsExplicit: true, reset: false, acceptingLoss: acceptingLoss)
    }

    /// Loads a state that has lost acknowledged changes: refused, with every file left as it was, naming
    /// `mentioning`; then accepted with `--accept-loss`.
    func loadAcceptingLoss(mentioning: String) throws -> StateLoader.Outcome {
        let before = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        let refusal = #expect(throws: StateLoader.Refusal.self) { try load() }
        #expect(refusal?.description.contains(mentioning) == true, "\(refusal?.description ?? "")")
        #expect(refusal?.description.contains("--accept-loss") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == before)
        let outcome = try load(acceptingLoss: true)
        #expect(
            outcome.warnings.contains { $0.hasPrefix("--accept-loss: went on although") && $0.contains(mentioning) })
        return outcome
    }

    var journalMovedAside: Bool {
        FileManager.default.fileExists(atPath: directory.file("state.journal.corrupt-1700000000"))
    }

    @Test func commitsAfterTheSnapshotAreReplayedInOrder() throws {
        writeSnapshot(generation: 4)
        // Zeros after the last commit are the file's preallocated tail, not damage.
        write(journal(base: 4, commits: 3).flatMap { $0 } + [UInt8](repeating: 0, count: 4_096), to: "state.journal")
        let outcome = try load()
        #expect(outcome.fixture.name == "Rename 3")
        #expect(outcome.generation == 7)
        #expect(outcome.fixture.generation == 7)
        #expect(outcome.replayedCommits == 3)
        #expect(outcome.warnings.isEmpty)
    }

    @Test func commitsTheSnapshotAlreadyHoldsAreSkipped() throws {
        // A crash after a new snapshot was saved but before its fresh journal replaced the old one.
        writeSnapshot(generation: 6, name: "Newer")
        write(journal(base: 4, commits: 2).flatMap { $0 }, to: "state.journal")
        let outcome = try load()
        #expect(outcome.fixture.name == "Newer")
        #expect(outcome.replayedCommits == 0)
        #expect(outcome.warnings.isEmpty)
    }

    @Test(arguments: [5, 30, 61])
    func aCommitCutOffByACrashIsDroppedAndSaidSo(keptBytes: Int) throws {
        writeSnapshot(generation: 1)
        let lines = journal(base: 1, commits: 3)
        write(lines[0...2].flatMap { $0 } + lines[3].prefix(keptBytes), to: "state.journal")
        let outcome = try load()
        #expect(outcome.fixture.name == "Rename 2")
        #expect(outcome.replayedCommits == 2)
        #expect(outcome.warnings.count == 1)
        #expect(outcome.warnings.first?.contains("unfinished commit") == true)
        #expect(outcome.warnings.first?.contains("before confirming it") == true)
        #expect(!journalMovedAside)
    }

    @Test func damageWithCommitsAfterItIsReportedAsLossAndTheJournalKept() throws {
        writeSnapshot(generation: 1)
        var lines = journal(base: 1, commits: 3)
        // One flipped bit in the second commit: its checksum no longer matches.
        lines[2][20] ^= 0x01
        write(lines.flatMap { $0 }, to: "state.journal")
        let outcome = try loadAcceptingLoss(mentioning: "1 are lost")
        #expect(outcome.fixture.name == "Rename 1")
        #expect(outcome.warnings.contains { $0.contains("1 are lost") })
        #expect(journalMovedAside)
    }

    @Test func aJournalNewerThanTheSnapshotLoadedIsSetAsideNotMisapplied() throws {
        // state.json (generation 5) is unreadable, so start-up falls back to generation 3; the journal
        // follows 5, and applying it to 3 would mix two points in time.
        write(Array("{ not json".utf8), to: "state.json")
        writeSnapshot(generation: 3, name: "Older", to: "state.previous.json")
        write(journal(base: 5, commits: 2).flatMap { $0 }, to: "state.journal")
        let outcome = try loadAcceptingLoss(mentioning: "commits are lost")
        #expect(outcome.source == .previous)
        #expect(outcome.fixture.name == "Older")
        #expect(outcome.warnings.contains { $0.contains("commits are lost") })
        #expect(journalMovedAside)
    }

    @Test func aJournalFromAnotherFixtureIsSetAside() throws {
        writeSnapshot(generation: 2)
        write(
            journal(base: 2, commits: 1, origin: FixtureOrigin(id: "other", digest: "x")).flatMap { $0 },
            to: "state.journal")
        let outcome = try loadAcceptingLoss(mentioning: "belongs to fixture 'other'")
        #expect(outcome.fixture.name == "Saved")
        #expect(journalMovedAside)
    }

    @Test func aJournalWithoutASnapshotIsSetAside() throws {
        write(journal(base: 2, commits: 1).flatMap { $0 }, to: "state.journal")
        let outcome = try loadAcceptingLoss(mentioning: "no snapshot for it to follow")
        #expect(outcome.source == .fixture)
        #expect(journalMovedAside)
        #expect(outcome.warnings.contains { $0.contains("no snapshot") })
    }

    @Test func aCommitThatDoesNotFitTheSnapshotStopsTheReplay() throws {
        writeSnapshot(generation: 1)
        let lines = [
            StateJournal.headerLine(base: 1, origin: origin, version: 2),
            StateJournal.batchLine(generation: 2, records: [.home(name: "Fits", roomIDs: ["lab", "attic"])]),
            StateJournal.batchLine(
                generation: 3, records: [.room(RoomFixture(id: "lab", name: "Lab", lights: []), lightIDs: ["ghost"])]),
        ]
        write(lines.flatMap { $0 }, to: "state.journal")
        let outcome = try loadAcceptingLoss(mentioning: "does not fit the state")
        #expect(outcome.fixture.name == "Fits")
        #expect(outcome.generation == 2)
        #expect(outcome.fixture.generation == 2)
        #expect(outcome.replayedCommits == 1)
        #expect(journalMovedAside)
    }

    @Test func anUnreadableJournalStopsStartUpAndIsLeftInPlace() throws {
        writeSnapshot(generation: 1)
        // A directory where the journal should be: it is no state file, as an unreadable file would not be one.
        try FileManager.default.createDirectory(
            atPath: directory.file("state.journal"), withIntermediateDirectories: false)
        let refusal = #expect(throws: StateLoader.Refusal.self) { try load() }
        #expect(refusal?.description.contains("state.journal is not a regular file (a directory)") == true)
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: directory.file("state.journal"), isDirectory: &isDirectory))
        #expect(isDirectory.boolValue)
        #expect(!journalMovedAside)
    }

    @Test func resetMovesTheJournalAsideToo() throws {
        writeSnapshot(generation: 1)
        write(journal(base: 1, commits: 1).flatMap { $0 }, to: "state.journal")
        let outcome = try loader.load(fixture: fixture, origin: origin, fixtureIsExplicit: true, reset: true)
        #expect(outcome.source == .fixture)
        #expect(FileManager.default.fileExists(atPath: directory.file("state.journal.reset-1700000000")))
        #expect(!FileManager.default.fileExists(atPath: directory.file("state.journal")))
    }

    @Test(arguments: [0, 5, 30, 61])
    func aJournalCutShortIsNeverCalledUnfinishedAndStopsStartUp(keptBytes: Int) throws {
        writeSnapshot(generation: 1)
        let lines = journal(base: 1, commits: 3)
        // Cut inside (or just before) the third commit, with no zeros after: truncated, not torn by a crash.
        write(lines[0...2].flatMap { $0 } + lines[3].prefix(keptBytes), to: "state.journal", cut: true)
        let outcome = try loadAcceptingLoss(mentioning: "state.journal: it is cut short at byte")
        #expect(outcome.fixture.name == "Rename 2")
        #expect(!outcome.warnings.contains { $0.contains("unfinished") })
        #expect(FileManager.default.fileExists(atPath: directory.file("state.journal.cut-1700000000")))
    }

    @Test(arguments: ["missing", "empty", "zeros"])
    func aSnapshotWhoseJournalIsGoneStopsStartUp(how: String) throws {
        writeSnapshot(generation: 4)
        switch how {
        case "empty": write([], to: "state.journal", cut: true)
        case "zeros": write([UInt8](repeating: 0, count: 4_096), to: "state.journal", cut: true)
        default: break
        }
        let outcome = try loadAcceptingLoss(
            mentioning: how == "missing" ? "state.journal is missing" : "state.journal holds no journal")
        #expect(outcome.fixture.name == "Saved")
    }

    @Test func aSnapshotReplacedWhileLumendStoppedNeedsNoJournalYet() throws {
        // Stopped between the renames of a snapshot: the new journal still has its temporary name.
        writeSnapshot(generation: 2, name: "Older", to: "state.previous.json")
        write(journal(base: 2, commits: 2).flatMap { $0 }, to: "state.previous.journal")
        writeSnapshot(generation: 4)
        write(journal(base: 4, commits: 0).flatMap { $0 }, to: "state.journal.tmp-123")
        let outcome = try load()
        #expect(outcome.fixture.name == "Saved")
        #expect(outcome.notices.contains { $0.contains("state.journal.tmp-123") })
    }

    @Test(arguments: ["cut", "empty", "missing"])
    func aPreviousJournalDamagedBesideASoundStateIsReportedAndKept(how: String) throws {
        writeSnapshot(generation: 3, name: "Older", to: "state.previous.json")
        writeSnapshot(generation: 5)
        write(journal(base: 5, commits: 1).flatMap { $0 }, to: "state.journal")
        let previous = journal(base: 3, commits: 2).flatMap { $0 }
        switch how {
        case "cut": write(Array(previous.dropLast(7)), to: "state.previous.journal", cut: true)
        case "empty": write([], to: "state.previous.journal", cut: true)
        default: break
        }
        let outcome = try load()
        #expect(outcome.fixture.name == "Rename 1")
        if how == "missing" {
            #expect(outcome.warnings.isEmpty)
        } else {
            #expect(outcome.warnings.contains { $0.contains("state.previous.journal") }, "\(outcome.warnings)")
            let kept = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(kept.contains { $0.hasPrefix("state.previous.journal.") }, "\(kept)")
        }
    }

    @Test func bothSnapshotsDamagedBesideAnIntactJournalStopsStartUp() throws {
        write(Array("{ damaged".utf8), to: "state.json")
        write(Array("{ damaged too".utf8), to: "state.previous.json")
        write(journal(base: 5, commits: 2).flatMap { $0 }, to: "state.journal")
        let outcome = try loadAcceptingLoss(mentioning: "no snapshot for it to follow")
        #expect(outcome.source == .fixture)
    }
}
