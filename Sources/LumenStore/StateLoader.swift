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
package struct StateLoader: Sendable {
    /// Where the state came from.
    package enum Source: String, Sendable {
        /// The fixture: there was no usable state.
        case fixture
        /// The state file.
        case state
        /// The previous good generation, because the state file was missing or corrupt.
        case previous
    }

    /// What to start from.
    package struct Outcome: Sendable {
        /// The home to simulate.
        package var fixture: Fixture
        /// Where it came from.
        package var source: Source
        /// The generation loaded (0 for a fresh fixture).
        package var generation: Int
        /// Problems that were found and worked around, for the log and `STATUS=`.
        package var warnings: [String]
        /// How many journal commits were replayed onto the snapshot.
        package var replayedCommits = 0
        /// What start-up tidied that was no problem (temporary files of an interrupted snapshot), for the log.
        package var notices: [String] = []
        /// Where the next commit could be appended to the state file's journal, when it follows the state
        /// loaded with nothing damaged: a store may go on appending to it if no new snapshot can be written.
        package var resumableJournal: ResumableJournal?
        /// The origin of the fixture given: what the store writes into the journals and snapshots it makes.
        package var origin: FixtureOrigin
    }

    /// A journal that can take further commits: its next commit goes at `end`, and the file is `size` long.
    package struct ResumableJournal: Sendable, Hashable {
        /// Where the next commit goes.
        var end: Int
        /// The file's size.
        var size: Int
        /// The commits it holds.
        var commits: Int
    }

    /// Why start-up cannot go on.
    package struct Refusal: Error, Sendable, CustomStringConvertible {
        /// What is wrong and what to do.
        package var description: String

        /// A refusal saying `description`.
        package init(description: String) { self.description = description }
    }

    let directory: String
    let fileSystem: any FileSystem
    let now: @Sendable () -> Int

    /// A loader for a state directory.
    package init(
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

    /// Chooses the state to start from, reading the fixture only when it is needed: a state directory whose
    /// snapshot came from the very same fixture bytes (the same digest) is loaded without parsing the fixture
    /// at all. Call it while holding the ``StateDirectoryLock``: it removes the temporary files an interrupted
    /// snapshot left.
    ///
    /// Nothing in the directory is touched until the state is chosen: a refusal leaves every file as it was.
    /// - Parameters:
    ///   - fixtureDigest: the digest of the fixture's bytes (``fixtureDigest(_:)``).
    ///   - fixtureIsExplicit: whether the user named the fixture; then a state from a different fixture is
    ///     refused rather than silently resumed.
    ///   - reset: start from the fixture, moving any state aside.
    ///   - acceptingLoss: go on from what is left when the files show that acknowledged changes are gone.
    ///   - parse: the fixture and its origin (the fixture to use when there is no usable state), worked out
    ///     when needed.
    /// - Throws: ``Refusal`` when the state is from another fixture or from a newer lumend, cannot be read, or
    ///   is missing acknowledged changes (unless `acceptingLoss`).
    package func load(
        fixtureDigest digest: String, fixtureIsExplicit: Bool, reset: Bool, acceptingLoss: Bool = false,
        fixture parse: () throws(Refusal) -> (Fixture, FixtureOrigin)
    ) throws(Refusal) -> Outcome {
        var parsed: (Fixture, FixtureOrigin)?
        func given() throws(Refusal) -> (Fixture, FixtureOrigin) {
            if let parsed { return parsed }
            let fixture = try parse()
            parsed = fixture
            return fixture
        }
        var findings = Findings()
        let temporaries = temporaryFiles()
        if !temporaries.isEmpty { findings.actions.append(.removeTemporaries(temporaries)) }
        if reset {
            for path in StateStore.fileNames.map({ "\(directory)/\($0)" }) where fileSystem.fileExists(path) {
                findings.actions.append(.moveAsideForReset(path))
            }
            let (fixture, origin) = try given()
            var outcome = Outcome(fixture: fixture, source: .fixture, generation: 0, warnings: [], origin: origin)
            try carryOut(findings, into: &outcome)
            return outcome
        }
        // A snapshot whose files were being renamed into place when lumend stopped leaves its new journal under
        // a temporary name: the generation that journal follows.
        let rotation = temporaries.first { $0.hasPrefix(StateStore.journalFileName) }
            .flatMap { try? fileSystem.readFile("\(directory)/\($0)") }
            .flatMap { StateJournal.read($0).header?.base }
        var outcome = try choose(
            digest: digest, given: given, fixtureIsExplicit: fixtureIsExplicit, interruptedRotation: rotation,
            &findings)
        if !findings.losses.isEmpty && !acceptingLoss {
            throw Refusal(
                description: "the state in \(directory) is missing changes that were acknowledged, so lumend will not "
                    + "serve it:\n" + findings.losses.map { "  - \($0)\n" }.joined()
                    + "Nothing was changed. Start with --accept-loss to go on from what is left (the damaged files "
                    + "are kept beside it, and the log says what was lost), or with --reset to start again from the "
                    + "fixture (the state is moved aside, not deleted)")
        }
        try carryOut(findings, into: &outcome)
        outcome.warnings += findings.losses.map { "--accept-loss: went on although \($0)" }
        return outcome
    }

    private func choose(
        digest: String, given: () throws(Refusal) -> (Fixture, FixtureOrigin), fixtureIsExplicit: Bool,
        interruptedRotation: Int?, _ findings: inout Findings
    ) throws(Refusal) -> Outcome {
        let state = try readSnapshot(statePath, &findings)
        // With the state file sound, the previous generation is only checked (by its checksum), not parsed:
        // start-up need not read a whole home twice.
        let previous = state == nil ? try readSnapshot(previousPath, &findings) : nil
        if state != nil, let bytes = try read(previousPath), let damage = StateSnapshot.damage(in: bytes) {
            findings.moveAside(previousPath, "is corrupt (\(damage))")
        }
        var journals: [(path: String, contents: StateJournal.Contents)] = []
        var journalSize = 0
        for path in [previousJournalPath, journalPath] {
            if let (contents, size) = try readJournal(path, &findings) {
                journals.append((path, contents))
                if path == journalPath { journalSize = size }
            }
        }
        // Every snapshot is written with a journal after it, in one step: with a snapshot there and its journal
        // gone, the changes acknowledged after it are gone too. Only a snapshot interrupted after the old journal
        // became the previous one has none yet: its new journal (under a temporary name) follows on from the
        // previous journal's last commit (or from the fixture), and the state file is missing or the new one.
        let snapshotOnDisk = fileSystem.fileExists(statePath) || fileSystem.fileExists(previousPath)
        let previousJournal = journals.first { $0.path == previousJournalPath }?.contents
        let rotating =
            interruptedRotation.map { base in
                let previousEnd = previousJournal.flatMap { $0.batches.last?.generation ?? $0.header?.base }
                return (previousEnd.map { (base - 1)...base ~= $0 } ?? (base == 1))
                    && (!fileSystem.fileExists(statePath) || state?.generation == base)
            } ?? false
        if snapshotOnDisk, !rotating, !journals.contains(where: { $0.path == journalPath }) {
            let how = fileSystem.fileExists(journalPath) ? "holds no journal" : "is missing"
            findings.losses.append(
                "\(journalPath) \(how), though every snapshot is written with a journal after it: the changes "
                    + "acknowledged since the last snapshot are gone")
        }
        let stateMissing = !fileSystem.fileExists(statePath)
        for (candidate, source) in [(state, Source.state), (previous, Source.previous)] {
            guard let candidate else { continue }
            // The same bytes have the same origin: only a snapshot from other bytes needs the fixture read.
            let sameBytes = candidate.origin?.digest == digest
            // The fixture named was edited since the state was saved from it: the two are reconciled once the
            // journals are replayed. A fixture of another home is not this state's at all.
            var edited: Fixture?
            if let stateOrigin = candidate.origin, fixtureIsExplicit, !sameBytes, stateOrigin != (try given().1) {
                let (fixture, origin) = try given()
                guard stateOrigin.id == origin.id else {
                    throw Refusal(
                        description:
                            "the state in \(directory) came from fixture '\(stateOrigin.id)' (\(stateOrigin.digest)), "
                            + "a home other than the one given ('\(origin.id)', \(origin.digest)); start with --reset "
                            + "to discard it (it is moved aside, not deleted) or point --state-dir elsewhere")
                }
                edited = fixture
            }
            let origin = sameBytes ? candidate.origin! : try given().1
            var outcome = Outcome(
                fixture: candidate, source: source, generation: candidate.generation ?? 0, warnings: [],
                origin: origin)
            let lost = replay(journals, onto: &outcome, origin: candidate.origin ?? origin, &findings)
            if source == .state, let journal = journals.first(where: { $0.path == journalPath })?.contents,
                journal.header?.base == candidate.generation, journal.header?.version == StateJournal.formatVersion,
                journal.header?.origin == (candidate.origin ?? origin), journal.damage == nil,
                journal.repaired.isEmpty, !lost,
                outcome.generation == (journal.batches.last?.generation ?? journal.header?.base)
            {
                outcome.resumableJournal = ResumableJournal(
                    end: journal.end, size: journalSize, commits: journal.batches.count)
            }
            if let edited, let stateOrigin = candidate.origin {
                let (reconciled, report) = edited.reconciled(keeping: outcome.fixture)
                outcome.fixture = reconciled
                // Saved afresh at start under the new origin: the journal there belongs to the old one.
                outcome.resumableJournal = nil
                let kept =
                    reconciled.rooms.reduce(0) { $0 + $1.lights.count } - report.added.count
                    - report.restarted.count
                findings.notices.append(
                    "the fixture changed since the state was saved (\(stateOrigin.digest), now \(outcome.origin.digest)); "
                        + "reconciled: \(report.summary(kept: kept))")
            }
            if source == .previous {
                let why =
                    stateMissing
                    ? "\(statePath) is missing (deleted, or lumend stopped while replacing it)"
                    : "\(statePath) is damaged"
                findings.warnings.append(
                    "\(why); resumed from the previous generation and the journals after it (\(outcome.replayedCommits) "
                        + "commits replayed\(lost ? ", some lost: see above" : ", nothing lost"))")
            }
            return outcome
        }
        let (fixture, origin) = try given()
        var outcome = Outcome(fixture: fixture, source: .fixture, generation: 0, warnings: [], origin: origin)
        // The first snapshot after a fixture holds the fixture and its journal's carry: with that snapshot gone,
        // the fixture and the journal still rebuild it.
        let firstJournals = journals.filter { $0.contents.header?.base == 1 && $0.contents.header?.version ?? 1 >= 2 }
        if !firstJournals.isEmpty {
            _ = replay(firstJournals, onto: &outcome, origin: origin, &findings)
            findings.warnings.append(
                "no usable snapshot; rebuilt the state from the fixture and the journal after the first snapshot "
                    + "(\(outcome.replayedCommits) commits replayed)")
        }
        for (path, contents) in journals where !firstJournals.contains(where: { $0.path == path }) {
            if path == journalPath || contents.header?.base ?? 0 > 1 {
                findings.setAside(
                    path, "there is no snapshot for it to follow, so the changes it holds cannot be applied",
                    lost: true)
            }
        }
        return outcome
    }

    // MARK: - Reading

    /// A snapshot, verified; `nil` when missing or damaged (then to be moved aside, and reported).
    private func readSnapshot(_ path: String, _ findings: inout Findings) throws(Refusal) -> Fixture? {
        guard let bytes = try read(path) else { return nil }
        switch StateSnapshot.decode(bytes) {
        case .state(let fixture, let checked):
            if !checked {
                findings.notices.append(
                    "\(path) has no checksum (written by an older lumend); the next snapshot adds one")
            }
            return fixture
        case .newer(let message):
            throw Refusal(
                description: "\(path) was written by a newer lumend (\(message)); "
                    + "run that version, or start with --reset to set this state aside")
        case .damaged(let reason):
            findings.moveAside(path, "is corrupt (\(reason))")
            return nil
        }
    }

    /// A journal's contents, or `nil` when there is none, or nothing that can be read as one (then to be moved
    /// aside, and reported).
    private func readJournal(_ path: String, _ findings: inout Findings) throws(Refusal)
        -> (contents: StateJournal.Contents, size: Int)?
    {
        guard let bytes = try read(path) else { return nil }
        guard bytes.contains(where: { $0 != 0 }) else {
            // A journal is created whole, with its header: an empty one is damage.
            findings.setAside(path, bytes.isEmpty ? "it is empty" : "it holds nothing but zeros")
            return nil
        }
        let contents = StateJournal.read(bytes)
        if contents.header == nil {
            findings.setAside(path, "its first line is not a journal header")
            return nil
        }
        return (contents, bytes.count)
    }

    /// A file's bytes, `nil` when it does not exist; any other failure stops start-up, with advice for its
    /// cause: ownership for a refused permission, the bound on what lumend reads for a file too large, and
    /// for anything else what the error says.
    private func read(_ path: String) throws(Refusal) -> [UInt8]? {
        do { return try fileSystem.readFile(path) } catch {
            if let problem = error.problem {
                throw Refusal(
                    description: "\(path) is \(problem): lumend keeps its state in regular files only, and will "
                        + "not read or replace anything else there; move it away, or point --state-dir elsewhere")
            }
            let refusal = "lumend does not start from state it cannot read, and will not overwrite it"
            switch error.errno {
            case EFBIG:
                // The bound of the file system that refused it, which a test or a caller may have set.
                let limit = Self.describe(byteCount: fileSystem.maxReadBytes)
                throw Refusal(
                    description: "cannot read \(path): it is larger than the \(limit) lumend reads of a state "
                        + "file (a hundred thousand lights' state is about 15 MB), so it is not lumend's state as "
                        + "lumend wrote it. \(refusal): move it away, or point --state-dir elsewhere")
            case EACCES, EPERM:
                throw Refusal(
                    description: "cannot read \(path) (\(error)). \(refusal): give the files in \(directory) back "
                        + "to the user lumend runs as (uid \(getuid())), or point --state-dir elsewhere")
            default:
                throw Refusal(
                    description: "cannot read \(path) (\(error)). \(refusal): mend what the error names (the disk, "
                        + "the file system), or point --state-dir elsewhere")
            }
        }
    }

    // MARK: - Replaying

    /// Applies the journals that lead on from the snapshot loaded: the one that follows it (commits after its
    /// generation), then the one after the next snapshot (its carry and commits), when the first led there.
    ///
    /// A journal whose last write was interrupted (a crash in mid-commit) is expected: that commit was never
    /// confirmed. Anything else that stops a replay short loses changes and is a loss in `findings`; journals
    /// that cannot be used at all are to be moved aside. Returns whether changes were lost.
    func replay(
        _ journals: [(path: String, contents: StateJournal.Contents)], onto outcome: inout Outcome,
        origin: FixtureOrigin, _ findings: inout Findings
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
                // The state file's own journal replaced by another's: the changes after the snapshot are gone.
                findings.setAside(
                    journal.path,
                    "it belongs to fixture '\(header.origin.id)' (\(header.origin.digest)), not '\(origin.id)'",
                    lost: journal.path == journalPath)
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
            } else if linked, let carry = journal.contents.carry {
                // The journal after the next snapshot, which was built from what is applied so far plus the carry.
                batches.append((carry.generation, carry.records, journal.path))
                batches += journal.contents.batches.map { ($0.generation, $0.records, journal.path) }
                reached = journal.contents.batches.last?.generation ?? header.base
                linked = false
                used.append(journal)
            } else {
                findings.setAside(
                    journal.path,
                    "it follows generation \(header.base) but the state loaded is generation \(reached), and the "
                        + "journal between them is missing or damaged: about \(journal.contents.batches.count) "
                        + "commits are lost", lost: true)
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
                    findings.keepCopy(
                        batch.path, "corrupt",
                        "commit \(batch.generation) does not fit the state (\(error)); \(replayed) commits were "
                            + "applied, the rest are lost", lost: true)
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
            lost = report(journal.path, journal.contents, used: isUsed, &findings) || lost
        }
        return lost
    }

    /// Reports what reading a journal found; returns whether commits it was used for were lost.
    private func report(
        _ path: String, _ contents: StateJournal.Contents, used: Bool, _ findings: inout Findings
    ) -> Bool {
        var lost = false
        switch contents.damage {
        case nil: break
        case .tornTail where !used: break
        case .tornTail:
            findings.warnings.append(
                "\(path) ends in an unfinished commit (lumend stopped while writing it, before confirming it); "
                    + "replayed the whole commits before it")
        case .corrupt(_, let later):
            findings.keepCopy(
                path, "corrupt",
                "it is \(contents.damage!); replayed the commits before the damage, \(later) are lost", lost: used)
            lost = used
        case .cut:
            findings.keepCopy(
                path, "cut",
                "it is \(contents.damage!), so commits after that, acknowledged ones among them, may be lost"
                    + (used ? "; replayed the whole commits before it" : ""), lost: used)
            lost = used
        }
        if !contents.repaired.isEmpty {
            let offsets = contents.repaired.prefix(5).map(String.init).joined(separator: ", ")
            findings.keepCopy(
                path, "damaged",
                "it is damaged at byte\(contents.repaired.count == 1 ? "" : "s") \(offsets); what was there was "
                    + "read from its other copy, so nothing is lost")
        }
        return lost
    }

    // MARK: - Findings

    /// What reading the state directory found, gathered before anything in it is touched.
    struct Findings {
        /// Problems worked around, for the log.
        var warnings: [String] = []
        /// What was no problem, for the log.
        var notices: [String] = []
        /// Acknowledged changes the files show are gone, or may be: each stops start-up unless accepted.
        var losses: [String] = []
        /// What to do to the files once start-up goes on.
        var actions: [Action] = []

        /// A change to the state directory, and what it is for.
        enum Action {
            /// Rename a file that cannot be used to a `.corrupt-` name, for inspection.
            case moveAside(String, problem: String)
            /// Keep a second name for a damaged file that is still used, so it stays after the next snapshot.
            case keepCopy(String, kind: String, why: String)
            /// Rename a file to a `.reset-` name.
            case moveAsideForReset(String)
            /// Remove temporary files an interrupted snapshot left.
            case removeTemporaries([String])
        }

        mutating func moveAside(_ path: String, _ problem: String, lost: Bool = false) {
            if actions.contains(where: { if case .moveAside(path, _) = $0 { true } else { false } }) { return }
            actions.append(.moveAside(path, problem: problem))
            if lost { losses.append("\(path) \(problem)") }
        }

        mutating func setAside(_ path: String, _ why: String, lost: Bool = false) {
            moveAside(path, "cannot be used: \(why)", lost: lost)
        }

        mutating func keepCopy(_ path: String, _ kind: String, _ why: String, lost: Bool = false) {
            actions.append(.keepCopy(path, kind: kind, why: why))
            if lost { losses.append("\(path): \(why)") }
        }
    }

    /// Does what `findings` asks of the directory, saying in the outcome's warnings and notices what was done.
    private func carryOut(_ findings: Findings, into outcome: inout Outcome) throws(Refusal) {
        var warnings: [String] = []
        var notices = findings.notices
        // One time for every file a reset moves aside, so that they are told apart from older resets' as a set.
        let resetTime = now()
        var movedForReset = false
        for action in findings.actions {
            switch action {
            case .moveAside(let path, let problem):
                let aside = "\(path).corrupt-\(now())"
                do {
                    try fileSystem.rename(path, to: aside)
                    warnings.append("\(path) \(problem); moved it to \(aside)")
                } catch {
                    warnings.append("\(path) \(problem); it could not be moved aside (\(error))")
                }
            case .keepCopy(let path, let kind, let why):
                let copy = "\(path).\(kind)-\(now())"
                do {
                    if !fileSystem.fileExists(copy) { try fileSystem.link(path, to: copy) }
                    warnings.append("\(path): \(why); kept a copy as \(copy)")
                } catch {
                    warnings.append("\(path): \(why); no copy could be kept (\(error))")
                }
            case .moveAsideForReset(let path):
                let aside = "\(path).reset-\(resetTime)"
                do { try fileSystem.rename(path, to: aside) } catch {
                    throw Refusal(description: "cannot move \(path) aside for --reset: \(error)")
                }
                warnings.append("--reset: moved \(path) to \(aside)")
                movedForReset = true
            case .removeTemporaries(let names):
                // Safe only under the directory lock, when no other lumend can be writing one.
                let removed = names.filter { (try? fileSystem.remove("\(directory)/\($0)")) != nil }
                if !removed.isEmpty {
                    notices.append(
                        "removed \(removed.count) temporary file\(removed.count == 1 ? "" : "s") left by an "
                            + "interrupted snapshot: \(removed.sorted().joined(separator: ", "))")
                }
            }
        }
        // Only the state the last reset moved aside is kept: a fixture edited and reset over and over would
        // otherwise leave a whole state behind each time. Removed only once this reset's files are in place.
        if movedForReset {
            let earlier = earlierResetFiles(than: resetTime)
            let removed = earlier.filter { (try? fileSystem.remove("\(directory)/\($0)")) != nil }
            if !removed.isEmpty {
                notices.append(
                    "--reset: removed the state an earlier reset moved aside (\(removed.sorted().joined(separator: ", "))); "
                        + "only the last is kept")
            }
        }
        outcome.warnings = warnings + outcome.warnings + findings.warnings
        outcome.notices = notices
    }

    /// The files an earlier `--reset` moved aside: a state file's name, `.reset-` and a time other than `time`.
    private func earlierResetFiles(than time: Int) -> [String] {
        guard let names = try? fileSystem.listDirectory(directory) else { return [] }
        return names.filter { name in
            StateStore.fileNames.contains { file in
                guard name.hasPrefix(file + ".reset-") else { return false }
                let stamp = name.dropFirst(file.count + ".reset-".count)
                return !stamp.isEmpty && stamp.allSatisfy(\.isASCII) && stamp.allSatisfy(\.isNumber)
                    && stamp != "\(time)"
            }
        }
    }

    /// The temporary files snapshots interrupted by a crash left: `state.json.tmp-<pid>`,
    /// `state.journal.tmp-<pid>`.
    private func temporaryFiles() -> [String] {
        guard let names = try? fileSystem.listDirectory(directory) else { return [] }
        let prefixes = [StateStore.stateFileName, StateStore.journalFileName].map { $0 + StateStore.temporarySuffix }
        return names.filter { name in prefixes.contains { name.hasPrefix($0) } }
    }
}

extension StateLoader {
    /// `count` bytes in the largest binary unit that holds it whole: "1 GiB", "512 KiB", "1000 bytes".
    static func describe(byteCount count: Int) -> String {
        for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] where count >= 1 << shift {
            if count % (1 << shift) == 0 { return "\(count >> shift) \(unit)" }
        }
        return "\(count) bytes"
    }
}
