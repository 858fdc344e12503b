import LumenModel

#if canImport(Glibc)
    import Glibc
#endif

/// Decides what state `lumend` starts from: the state file, the previous good generation, or the fixture.
///
/// A corrupt or unreadable state file is never deleted or overwritten: it is moved aside as
/// `state.json.corrupt-<time>` and the loader falls back, saying so in ``Outcome/warnings``.
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
        /// Problems that were worked around, for the log and `STATUS=`.
        public var warnings: [String]
        /// How many journal commits were replayed onto the snapshot.
        public var replayedCommits = 0
    }

    /// Why start-up cannot go on.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        /// What is wrong and what to do.
        public var description: String
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

    /// The journal's path.
    var journalPath: String { "\(directory)/\(StateStore.journalFileName)" }

    /// Chooses the state to start from.
    /// - Parameters:
    ///   - fixture: the fixture to use when there is no usable state.
    ///   - origin: the fixture's identity and digest.
    ///   - fixtureIsExplicit: whether the user named the fixture; then a state from a different fixture is
    ///     refused rather than silently resumed.
    ///   - reset: start from the fixture, moving any state aside.
    /// - Throws: ``Refusal`` when the state is from another fixture or from a newer lumend.
    public func load(fixture: Fixture, origin: FixtureOrigin, fixtureIsExplicit: Bool, reset: Bool) throws(Refusal)
        -> Outcome
    {
        let statePath = "\(directory)/\(StateStore.stateFileName)"
        let previousPath = "\(directory)/\(StateStore.previousFileName)"
        var warnings: [String] = []
        if reset {
            for path in [statePath, previousPath, journalPath] where fileSystem.fileExists(path) {
                let aside = "\(path).reset-\(now())"
                do { try fileSystem.rename(path, to: aside) } catch {
                    throw Refusal(description: "cannot move \(path) aside for --reset: \(error)")
                }
                warnings.append("--reset: moved \(path) to \(aside)")
            }
            return Outcome(fixture: fixture, source: .fixture, generation: 0, warnings: warnings)
        }
        for (path, source) in [(statePath, Source.state), (previousPath, Source.previous)] {
            let bytes: [UInt8]?
            do { bytes = try fileSystem.readFile(path) } catch {
                warnings.append("cannot read \(path) (\(error)); leaving it in place and falling back")
                continue
            }
            guard let bytes else { continue }
            let parsed: Fixture
            do throws(FixtureError) {
                parsed = try Fixture(json: bytes)
            } catch {
                if case .shape(let shape) = error, shape.message.contains("newer than this lumend") {
                    throw Refusal(
                        description: "\(path) was written by a newer lumend (\(shape.message)); "
                            + "run that version, or start with --reset to set this state aside")
                }
                let aside = "\(path).corrupt-\(now())"
                do {
                    try fileSystem.rename(path, to: aside)
                    warnings.append("\(path) is corrupt (\(error)); moved it to \(aside)")
                } catch {
                    warnings.append("\(path) is corrupt and could not be moved aside (\(error))")
                }
                continue
            }
            let state = parsed
            if let stateOrigin = state.origin, fixtureIsExplicit, stateOrigin != origin {
                throw Refusal(
                    description:
                        "the state in \(directory) came from fixture '\(stateOrigin.id)' (\(stateOrigin.digest)), "
                        + "not the one given ('\(origin.id)', \(origin.digest)); start with --reset to "
                        + "discard it (it is moved aside, not deleted) or point --state-dir elsewhere")
            }
            if source == .previous {
                warnings.append("the state file was missing or unusable; resumed from the previous generation")
            }
            var outcome = Outcome(
                fixture: state, source: source, generation: state.generation ?? 0, warnings: warnings)
            replayJournal(onto: &outcome, origin: state.origin ?? origin)
            return outcome
        }
        var outcome = Outcome(fixture: fixture, source: .fixture, generation: 0, warnings: warnings)
        if fileSystem.fileExists(journalPath) {
            setJournalAside(
                "there is a journal but no snapshot for it to follow, so its changes cannot be applied",
                outcome: &outcome)
        }
        return outcome
    }

    /// Applies the journal's commits that follow the snapshot's generation.
    ///
    /// A journal cut off in mid-commit (a crash while writing) is expected: that commit was never confirmed.
    /// Anything else that stops a replay short (damage with whole commits after it, a journal that follows a
    /// newer snapshot than the one loaded, one from another fixture) loses changes: the journal is moved
    /// aside for inspection and a warning says what was lost.
    func replayJournal(onto outcome: inout Outcome, origin: FixtureOrigin) {
        let bytes: [UInt8]?
        do { bytes = try fileSystem.readFile(journalPath) } catch {
            // Kept aside, not overwritten by the journal the next snapshot starts: someone may recover it.
            setJournalAside(
                "it cannot be read (\(error)); changes after the snapshot are not applied", outcome: &outcome)
            return
        }
        guard let bytes, bytes.contains(where: { $0 != 0 }) else { return }
        let contents = StateJournal.read(bytes)
        guard let header = contents.header else {
            setJournalAside("its first line is not a journal header", outcome: &outcome)
            return
        }
        guard header.origin == origin else {
            setJournalAside(
                "it belongs to fixture '\(header.origin.id)' (\(header.origin.digest)), not '\(origin.id)'",
                outcome: &outcome)
            return
        }
        let base = outcome.generation
        guard header.base <= base else {
            let lost = contents.batches.count + (header.base - base)
            setJournalAside(
                "it follows generation \(header.base) but the snapshot loaded is generation \(base): "
                    + "about \(lost) commits are lost", outcome: &outcome)
            return
        }
        let batches = contents.batches.filter { $0.generation > base }
        var replayed = 0
        var misfit: String?
        do throws(JSONShapeError) {
            // All at once: one pass over the journal, whatever the size of the home.
            outcome.fixture = try outcome.fixture.applying(batches: batches.map(\.records))
            outcome.generation = batches.last?.generation ?? base
            replayed = batches.count
        } catch {
            // Something does not fit: find the first commit that does not, keeping those before it.
            for batch in batches {
                do throws(JSONShapeError) {
                    outcome.fixture = try outcome.fixture.applying(batch.records)
                } catch {
                    misfit =
                        "commit \(batch.generation) does not fit the state (\(error)); \(replayed) commits were applied"
                    break
                }
                outcome.generation = batch.generation
                replayed += 1
            }
        }
        outcome.replayedCommits = replayed
        outcome.fixture.generation = outcome.generation
        if let misfit {
            setJournalAside(misfit, outcome: &outcome)
            return
        }
        switch contents.damage {
        case nil: break
        case .tornTail:
            outcome.warnings.append(
                "the journal ends in an unfinished commit (lumend stopped while writing it, so it was never "
                    + "confirmed); replayed \(replayed) whole commits")
        case .corrupt(_, let later):
            setJournalAside(
                "it is \(contents.damage!); replayed the \(replayed) commits before the damage, \(later) are lost",
                outcome: &outcome)
        }
    }

    private func setJournalAside(_ why: String, outcome: inout Outcome) {
        let aside = "\(journalPath).corrupt-\(now())"
        do {
            try fileSystem.rename(journalPath, to: aside)
            outcome.warnings.append("\(journalPath) cannot be used: \(why); moved it to \(aside)")
        } catch {
            outcome.warnings.append("\(journalPath) cannot be used: \(why); it could not be moved aside (\(error))")
        }
    }
}
