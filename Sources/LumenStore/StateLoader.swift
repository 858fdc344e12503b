import LumenModel
import LumenProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// Decides what state `lumend` starts from: the state file and its journal, the previous generation and the
/// journals that lead on from it, or the fixture.
///
/// Every file is verified before a value in it is believed (snapshots by their checksum, journal lines by
/// theirs, each line written twice). A damaged snapshot is moved aside as `state.json.corrupt-<time>`; a
/// damaged journal whose commits were used is kept in place and a second name, `state.journal.damaged-<time>`,
/// keeps it for inspection. Nothing is deleted or overwritten, and a file that exists but cannot be read stops
/// start-up (``Refusal``). Because the previous snapshot, its journal and the current journal together hold
/// every confirmed change, damage to any one file loses none of them.
public struct StateLoader: Sendable {
    /// Where the state came from.
    public enum Source: String, Sendable {
        /// The fixture: there was no usable state.
        case fixture
        /// The state file.
        case state
        /// The previous good generation, because the state file was missing or corrupt.
        case previous
    }

    /// What to start from.
    public struct Outcome: Sendable {
        /// The home to simulate.
        public var fixture: Fixture
        /// Where it came from.
        public var source: Source
        /// The generation loaded (0 for a fresh fixture).
        public var generation: Int
        /// Problems that were found and worked around, for the log and `STATUS=`.
        public var warnings: [String]
        /// How many journal commits were replayed onto the snapshot.
        public var replayedCommits = 0
        /// What start-up tidied that was no problem (temporary files of an interrupted snapshot), for the log.
        public var notices: [String] = []
        /// Where the next commit could be appended to the state file's journal, when it follows the state
        /// loaded with nothing damaged: a store may go on appending to it if no new snapshot can be written.
        public var resumableJournal: ResumableJournal?
        /// The origin of the fixture given: what the store writes into the journals and snapshots it makes.
        public var origin: FixtureOrigin

        init(
            fixture: Fixture, source: Source, generation: Int, warnings: [String], notices: [String] = [],
            origin: FixtureOrigin
        ) {
            self.fixture = fixture
            self.source = source
            self.generation = generation
            self.warnings = warnings
            self.notices = notices
            self.origin = origin
        }
    }

    /// A journal that can take further commits: its next commit goes at `end`, and the file is `size` long.
    public struct ResumableJournal: Sendable, Hashable {
        /// Where the next commit goes.
        public var end: Int
        /// The file's size.
        public var size: Int
        /// The commits it holds.
        public var commits: Int
    }

    /// Why start-up cannot go on.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        /// What is wrong and what to do.
        public var description: String

        /// A refusal saying `description`.
        public init(description: String) { self.description = description }
    }

    let directory: String
    let fileSystem: any FileSystem
    let now: @Sendable () -> Int

    /// A loader for a state directory.
    public init(
        directory: String, fileSystem: any FileSystem = PosixFileSystem(),
        now: @escaping @Sendable () -> Int = { Int(time(nil)) }
    ) {
        self.directory = directory
        self.fileSystem = fileSystem
        self.now = now
    }

    var statePath: String { "\(directory)/\(StateStore.stateFileName)" }
    var previousPath: String { "\(directory)/\(StateStore.previousFileName)" }
    var journalPath: String { "\(directory)/\(StateStore.journalFileName)" }
    var previousJournalPath: String { "\(directory)/\(StateStore.previousJournalFileName)" }

    /// Chooses the state to start from. Call it while holding the ``StateDirectoryLock``: it removes the
    /// temporary files an interrupted snapshot left.
    /// - Parameters:
    ///   - fixture: the fixture to use when there is no usable state.
    ///   - origin: the fixture's identity and digest.
    ///   - fixtureIsExplicit: whether the user named the fixture; then a state from a different fixture is
    ///     refused rather than silently resumed.
    ///   - reset: start from the fixture, moving any state aside.
    /// - Throws: ``Refusal`` when the state is from another fixture or from a newer lumend, or cannot be read.
    public func load(fixture: Fixture, origin: FixtureOrigin, fixtureIsExplicit: Bool, reset: Bool) throws(Refusal)
        -> Outcome
    {
        try load(fixtureDigest: origin.digest, fixtureIsExplicit: fixtureIsExplicit, reset: reset) { (fixture, origin) }
    }

    /// Loads the state, reading the fixture only when it is needed: a state directory whose snapshot came from
    /// the very same fixture bytes (the same digest) is loaded without parsing the fixture at all.
    /// - Parameters:
    ///   - fixtureDigest: the digest of the fixture's bytes (``fixtureDigest(_:)``).
    ///   - parse: the fixture and its origin, worked out when needed.
    public func load(
        fixtureDigest digest: String, fixtureIsExplicit: Bool, reset: Bool,
        fixture parse: () throws(Refusal) -> (Fixture, FixtureOrigin)
    ) throws(Refusal) -> Outcome {
        var parsed: (Fixture, FixtureOrigin)?
        func given() throws(Refusal) -> (Fixture, FixtureOrigin) {
            if let parsed { return parsed }
            let fixture = try parse()
            parsed = fixture
            return fixture
        }
        var notices: [String] = []
        removeTemporaryFiles(&notices)
        if reset {
            var warnings: [String] = []
            for path in [statePath, previousPath, journalPath, previousJournalPath] where fileSystem.fileExists(path) {
                let aside = "\(path).reset-\(now())"
                do { try fileSystem.rename(path, to: aside) } catch {
                    throw Refusal(description: "cannot move \(path) aside for --reset: \(error)")
                }
                warnings.append("--reset: moved \(path) to \(aside)")
            }
            let (fixture, origin) = try given()
            return Outcome(
                fixture: fixture, source: .fixture, generation: 0, warnings: warnings, notices: notices, origin: origin)
        }
        var outcome = try choose(digest: digest, given: given, fixtureIsExplicit: fixtureIsExplicit, notices: &notices)
        outcome.notices = notices
        return outcome
    }

    private func choose(
        digest: String, given: () throws(Refusal) -> (Fixture, FixtureOrigin), fixtureIsExplicit: Bool,
        notices: inout [String]
    ) throws(Refusal) -> Outcome {
        var warnings: [String] = []
        let state = try readSnapshot(statePath, &warnings, &notices)
        // With the state file sound, the previous generation is only checked (by its checksum), not parsed:
        // start-up need not read a whole home twice.
        let previous = state == nil ? try readSnapshot(previousPath, &warnings, &notices) : nil
        if state != nil, let bytes = try read(previousPath), let damage = StateSnapshot.damage(in: bytes) {
            setAsideSnapshot(previousPath, damage, &warnings)
        }
        var journals: [(path: String, contents: StateJournal.Contents)] = []
        var journalSize = 0
        for path in [previousJournalPath, journalPath] {
            if let (contents, size) = try readJournal(path, &warnings) {
                journals.append((path, contents))
                if path == journalPath { journalSize = size }
            }
        }
        let stateMissing = !fileSystem.fileExists(statePath)
        for (candidate, source) in [(state, Source.state), (previous, Source.previous)] {
            guard let candidate else { continue }
            // The same bytes have the same origin: only a snapshot from other bytes needs the fixture read.
            let sameBytes = candidate.origin?.digest == digest
            if let stateOrigin = candidate.origin, fixtureIsExplicit, !sameBytes, stateOrigin != (try given().1) {
                let origin = try given().1
                throw Refusal(
                    description:
                        "the state in \(directory) came from fixture '\(stateOrigin.id)' (\(stateOrigin.digest)), "
                        + "not the one given ('\(origin.id)', \(origin.digest)); start with --reset to "
                        + "discard it (it is moved aside, not deleted) or point --state-dir elsewhere")
            }
            let origin = sameBytes ? candidate.origin! : try given().1
            var outcome = Outcome(
                fixture: candidate, source: source, generation: candidate.generation ?? 0, warnings: warnings,
                origin: origin)
            let lost = replay(journals, onto: &outcome, origin: candidate.origin ?? origin)
            if source == .state, let journal = journals.first(where: { $0.path == journalPath })?.contents,
                journal.header?.base == candidate.generation, journal.header?.version == StateJournal.formatVersion,
                journal.header?.origin == (candidate.origin ?? origin), journal.damage == nil,
                journal.repaired.isEmpty, !lost,
                outcome.generation == (journal.batches.last?.generation ?? journal.header?.base)
            {
                outcome.resumableJournal = ResumableJournal(
                    end: journal.end, size: journalSize, commits: journal.batches.count)
            }
            if source == .previous {
                let why =
                    stateMissing
                    ? "\(statePath) is missing but \(previousPath) is there, as lumend leaves them when it stops "
                        + "while replacing the snapshot"
                    : "\(statePath) is damaged"
                outcome.warnings.append(
                    "\(why); resumed from the previous generation and the journals after it (\(outcome.replayedCommits) "
                        + "commits replayed\(lost ? ", some lost: see above" : ", nothing lost"))")
            }
            return outcome
        }
        let (fixture, origin) = try given()
        var outcome = Outcome(fixture: fixture, source: .fixture, generation: 0, warnings: warnings, origin: origin)
        // The first snapshot after a fixture holds the fixture and its journal's carry: with that snapshot gone,
        // the fixture and the journal still rebuild it.
        let firstJournals = journals.filter { $0.contents.header?.base == 1 && $0.contents.header?.version ?? 1 >= 2 }
        if !firstJournals.isEmpty {
            _ = replay(firstJournals, onto: &outcome, origin: origin)
            outcome.warnings.append(
                "no usable snapshot; rebuilt the state from the fixture and the journal after the first snapshot "
                    + "(\(outcome.replayedCommits) commits replayed)")
        }
        for (path, contents) in journals where !firstJournals.contains(where: { $0.path == path }) {
            if path == journalPath || contents.header?.base ?? 0 > 1 {
                setAside(
                    path, "there is no snapshot for it to follow, so its changes cannot be applied", &outcome.warnings)
            }
        }
        return outcome
    }

    // MARK: - Reading

    /// A snapshot, verified; `nil` when missing or damaged (then moved aside and reported).
    private func readSnapshot(_ path: String, _ warnings: inout [String], _ notices: inout [String]) throws(Refusal)
        -> Fixture?
    {
        guard let bytes = try read(path) else { return nil }
        switch StateSnapshot.decode(bytes) {
        case .state(let fixture, let checked):
            if !checked {
                notices.append("\(path) has no checksum (written by an older lumend); the next snapshot adds one")
            }
            return fixture
        case .newer(let message):
            throw Refusal(
                description: "\(path) was written by a newer lumend (\(message)); "
                    + "run that version, or start with --reset to set this state aside")
        case .damaged(let reason):
            setAsideSnapshot(path, reason, &warnings)
            return nil
        }
    }

    /// Moves a damaged snapshot aside, for inspection.
    private func setAsideSnapshot(_ path: String, _ reason: String, _ warnings: inout [String]) {
        moveAside(path, saying: "is corrupt (\(reason))", &warnings)
    }

    /// A journal's contents, or `nil` when there is none (or nothing was ever written to it).
    private func readJournal(_ path: String, _ warnings: inout [String]) throws(Refusal)
        -> (contents: StateJournal.Contents, size: Int)?
    {
        guard let bytes = try read(path), bytes.contains(where: { $0 != 0 }) else { return nil }
        let contents = StateJournal.read(bytes)
        if contents.header == nil {
            setAside(path, "its first line is not a journal header", &warnings)
            return nil
        }
        return (contents, bytes.count)
    }

    /// A file's bytes, `nil` when it does not exist; any other failure stops start-up.
    private func read(_ path: String) throws(Refusal) -> [UInt8]? {
        do { return try fileSystem.readFile(path) } catch {
            throw Refusal(
                description: "cannot read \(path) (\(error)). lumend does not start from state it cannot read, "
                    + "and will not overwrite it: give the files in \(directory) back to the user lumend runs as "
                    + "(uid \(getuid())), or point --state-dir elsewhere")
        }
    }

    // MARK: - Replaying

    /// Applies the journals that lead on from the snapshot loaded: the one that follows it (commits after its
    /// generation), then the one after the next snapshot (its carry and commits), when the first led there.
    ///
    /// A journal cut off in mid-commit (a crash while writing) is expected: that commit was never confirmed.
    /// Anything else that stops a replay short loses changes and is reported; journals that cannot be used
    /// at all are moved aside. Returns whether changes were lost.
    func replay(
        _ journals: [(path: String, contents: StateJournal.Contents)], onto outcome: inout Outcome,
        origin: FixtureOrigin
    ) -> Bool {
        let base = outcome.generation
        var lost = false
        var linked = base == 0
        var batches: [(generation: Int, records: [StateRecord], path: String)] = []
        var reached = base
        var used: [(path: String, contents: StateJournal.Contents)] = []
        for journal in journals.sorted(by: { ($0.contents.header?.base ?? 0) < ($1.contents.header?.base ?? 0) }) {
            guard let header = journal.contents.header else { continue }
            guard header.origin == origin else {
                setAside(
                    journal.path,
                    "it belongs to fixture '\(header.origin.id)' (\(header.origin.digest)), not '\(origin.id)'",
                    &outcome.warnings)
                continue
            }
            if header.base <= base {
                // The snapshot's own journal (or an older one): the commits after the snapshot's generation.
                let after = journal.contents.batches.filter { $0.generation > base }
                guard header.base == base || !after.isEmpty || journal.path == journalPath else { continue }
                batches += after.map { ($0.generation, $0.records, journal.path) }
                reached = max(reached, after.last?.generation ?? base)
                linked = header.base == base
                used.append(journal)
            } else if linked, journal.contents.carry != nil {
                // The journal after the next snapshot, which was built from what is applied so far plus the carry.
                if let carry = journal.contents.carry {
                    batches.append((carry.generation, carry.records, journal.path))
                }
                batches += journal.contents.batches.map { ($0.generation, $0.records, journal.path) }
                reached = journal.contents.batches.last?.generation ?? header.base
                linked = false
                used.append(journal)
            } else {
                setAside(
                    journal.path,
                    "it follows generation \(header.base) but the state loaded is generation \(reached), and the "
                        + "journal between them is missing or damaged: about \(journal.contents.batches.count) "
                        + "commits are lost",
                    &outcome.warnings)
                lost = true
            }
        }
        var replayed = 0
        do throws(JSONShapeError) {
            // All at once: one pass over the journals, whatever the size of the home.
            outcome.fixture = try outcome.fixture.applying(batches: batches.map(\.records))
            replayed = batches.count
            outcome.generation = reached
        } catch {
            // Something does not fit: find the first commit that does not, keeping those before it.
            for batch in batches {
                do throws(JSONShapeError) {
                    outcome.fixture = try outcome.fixture.applying(batch.records)
                } catch {
                    keepCopy(
                        batch.path, "corrupt",
                        "commit \(batch.generation) does not fit the state (\(error)); \(replayed) commits were "
                            + "applied, the rest are lost", &outcome.warnings)
                    lost = true
                    break
                }
                outcome.generation = batch.generation
                replayed += 1
            }
        }
        outcome.replayedCommits = replayed
        outcome.fixture.generation = outcome.generation
        for journal in journals where journal.contents.header?.origin == origin {
            let isUsed = used.contains { $0.path == journal.path }
            lost = report(journal.path, journal.contents, used: isUsed, &outcome.warnings) && isUsed || lost
        }
        return lost
    }

    /// Reports what reading a used journal found; returns whether commits were lost.
    private func report(_ path: String, _ contents: StateJournal.Contents, used: Bool, _ warnings: inout [String])
        -> Bool
    {
        var lost = false
        switch contents.damage {
        case nil: break
        case .tornTail where !used: break
        case .tornTail:
            warnings.append(
                "\(path) ends in an unfinished commit (lumend stopped while writing it, so it was never "
                    + "confirmed); replayed the whole commits before it")
        case .corrupt(_, let later):
            keepCopy(
                path, "corrupt",
                "it is \(contents.damage!); replayed the commits before the damage, \(later) are lost", &warnings)
            lost = true
        }
        if !contents.repaired.isEmpty {
            let offsets = contents.repaired.prefix(5).map(String.init).joined(separator: ", ")
            keepCopy(
                path, "damaged",
                "it is damaged at byte\(contents.repaired.count == 1 ? "" : "s") \(offsets); every commit was "
                    + "read from its second copy, so nothing is lost", &warnings)
        }
        return lost
    }

    /// Moves a file that cannot be used aside, for inspection.
    private func setAside(_ path: String, _ why: String, _ warnings: inout [String]) {
        moveAside(path, saying: "cannot be used: \(why)", &warnings)
    }

    /// Renames `path` to a `.corrupt-` name and warns "`path` `problem`; moved it to …".
    private func moveAside(_ path: String, saying problem: String, _ warnings: inout [String]) {
        let aside = "\(path).corrupt-\(now())"
        do {
            try fileSystem.rename(path, to: aside)
            warnings.append("\(path) \(problem); moved it to \(aside)")
        } catch {
            warnings.append("\(path) \(problem); it could not be moved aside (\(error))")
        }
    }

    /// Keeps a second name for a damaged file that is still used, so it stays for inspection after the next
    /// snapshot replaces it.
    private func keepCopy(_ path: String, _ kind: String, _ why: String, _ warnings: inout [String]) {
        let copy = "\(path).\(kind)-\(now())"
        do {
            if !fileSystem.fileExists(copy) { try fileSystem.link(path, to: copy) }
            warnings.append("\(path): \(why); kept a copy as \(copy)")
        } catch {
            warnings.append("\(path): \(why); no copy could be kept (\(error))")
        }
    }

    // MARK: - Tidying

    /// Removes what snapshots interrupted by a crash left: `state.json.tmp-<pid>`, `state.journal.tmp-<pid>`.
    /// Safe only under the directory lock, when no other lumend can be writing one.
    private func removeTemporaryFiles(_ notices: inout [String]) {
        guard let names = try? fileSystem.listDirectory(directory) else { return }
        let prefixes = [StateStore.stateFileName, StateStore.journalFileName].map { $0 + StateStore.temporarySuffix }
        var removed: [String] = []
        for name in names where prefixes.contains(where: { name.hasPrefix($0) }) {
            if (try? fileSystem.remove("\(directory)/\(name)")) != nil { removed.append(name) }
        }
        if !removed.isEmpty {
            notices.append(
                "removed \(removed.count) temporary file\(removed.count == 1 ? "" : "s") left by an interrupted "
                    + "snapshot: \(removed.sorted().joined(separator: ", "))")
        }
    }
}
