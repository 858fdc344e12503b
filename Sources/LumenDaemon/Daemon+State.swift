import CLinux
import LumenHue
import LumenLoop
import LumenModel
import LumenProtocol
import LumenScopes
import LumenServer
import LumenService
import LumenSimulation
import LumenStore

#if canImport(Glibc)
    import Glibc
#endif

extension Daemon {
    /// What start-up opened and loaded, kept for as long as lumend runs.
    final class OpenedState: Sendable {
        /// The state directory, open: every state file is reached through it.
        let directory: TrustedDirectory
        /// Held until the process ends: a second lumend on this directory would replace the journal under us.
        let lock: StateDirectoryLock
        let home: Home
        let store: StateStore
        let health: PersistenceHealth
        /// What was loaded (without the document).
        let outcome: StateLoader.Outcome
        let durability: Durability
        /// Whether the home came fresh from its fixture, with nothing on disk yet: its first snapshot is written
        /// after `READY=1`.
        let fresh: Bool
        /// The fixture as read at start when it came from a pipe or a device, which cannot be read again: a
        /// reset goes back to it. `nil` for a regular file, which a reset reads again.
        let pipedFixture: [UInt8]?

        init(
            directory: TrustedDirectory, lock: StateDirectoryLock, home: Home, store: StateStore,
            health: PersistenceHealth, outcome: StateLoader.Outcome, durability: Durability, fresh: Bool,
            pipedFixture: [UInt8]?
        ) {
            self.pipedFixture = pipedFixture
            self.directory = directory
            self.lock = lock
            self.home = home
            self.store = store
            self.health = health
            self.outcome = outcome
            self.durability = durability
            self.fresh = fresh
        }
    }

    /// Opens and checks the state directory, takes its lock, loads the fixture and the state, and starts the
    /// store, saving the state as loaded when a crash right after start could otherwise lose it.
    static func openState(options: DaemonOptions, clock: any Clock<Duration>, mainLoop: EventLoop?, logger: Logger)
        async throws -> OpenedState
    {
        // The state directory, opened once, each step of its path checked; everything in it is reached through
        // that descriptor, so nothing on the path can be swapped afterwards.
        let stateDirectory: TrustedDirectory
        do { stateDirectory = try TrustedDirectory(opening: options.stateDirectory) } catch {
            throw StartupError(description: "will not keep state in \(options.stateDirectory): \(error)")
        }
        let fileSystem = PosixFileSystem(anchor: (options.stateDirectory, stateDirectory.descriptor))
        let lock: StateDirectoryLock
        do {
            lock = try StateDirectoryLock.acquire(options.stateDirectory, descriptor: stateDirectory.descriptor)
        } catch {
            throw StartupError(description: "\(error)")
        }
        // The fixture and the state, loaded in a function of their own: the documents they were read from are
        // freed when it returns, and only the simulated home and what the log needs stay.
        let (home, outcome, origin, pipedFixture) = try loadHome(
            options: options, fileSystem: fileSystem, wakeClock: clock, mainLoop: mainLoop)
        let health = PersistenceHealth()
        for notice in outcome.notices { logger.info(notice, [("state_dir", options.stateDirectory)]) }
        for warning in outcome.warnings {
            logger.warning(warning, [("state_dir", options.stateDirectory)])
            health.warn(warning)
        }
        let durability = options.durability ?? outcome.fixture.durability ?? .full
        let store = StateStore(
            directory: options.stateDirectory, fileSystem: fileSystem, durability: durability, origin: origin,
            generation: outcome.generation, providerExecutor: mainLoop
        ) { await home.snapshot() }
        health.watchSnapshots { store.snapshotError?.description }
        store.onHealthChange { error in
            if let error {
                health.fail(error.description)
                logger.error("cannot save state; retrying: \(error)", [("state_dir", options.stateDirectory)])
            } else if health.recover() {
                logger.notice("state is saved again", [("state_dir", options.stateDirectory)])
            }
        }
        let numbered: Bool
        do { numbered = try await HueBridge.numberAtStart(home) } catch {
            throw StartupError(description: "the Hue bridge's record is invalid: \(error)")
        }
        await home.setPersistenceSink(store)
        // Save the state as loaded (the snapshot with its journal replayed) as one snapshot and start a fresh
        // journal, before saying READY: a crash right after start then loses nothing. State that
        // is on disk as loaded already (its snapshot, with an empty journal after it) needs no new snapshot: the
        // store goes on appending to that journal.
        let onDiskAsLoaded = outcome.source == .state && outcome.replayedCommits == 0 && outcome.warnings.isEmpty
        var alreadySaved = false
        if onDiskAsLoaded, let journal = outcome.resumableJournal { alreadySaved = store.resume(journal) }
        if alreadySaved, numbered { await HueBridge.saveRecord(of: home) }
        // A home fresh from its fixture has nothing on disk that a crash could lose (starting again from the
        // fixture gives the same home), so its first snapshot is written by the store after READY; the store's
        // thread writes it before any change noted meanwhile, which it carries into it.
        let fresh = outcome.source == .fixture && outcome.replayedCommits == 0 && outcome.resumableJournal == nil
        if !alreadySaved && !fresh {
            await saveStartupState(store: store, outcome: outcome, logger: logger)
        }
        // Loading parsed whole documents; give what it freed back to the system rather than keep it as long as
        // lumend runs.
        malloc_trim(0)
        let lightCount = await home.lightCount
        logger.info(
            "loaded \(lightCount) lights from \(outcome.source.rawValue)",
            [
                ("fixture", origin.id), ("generation", String(outcome.generation)),
                ("journal_commits_replayed", String(outcome.replayedCommits)), ("durability", durability.rawValue),
            ])
        return OpenedState(
            directory: stateDirectory, lock: lock, home: home, store: store, health: health, outcome: outcome,
            durability: durability, fresh: fresh, pipedFixture: pipedFixture)
    }

    /// The fixture read and checked, and the state directory loaded against it: the simulated home, what was
    /// loaded (without the document, which is freed here), the fixture's origin, and the fixture's bytes when
    /// they came from a pipe or a device, which a reset cannot read again.
    static func loadHome(
        options: DaemonOptions, fileSystem: PosixFileSystem, wakeClock: any Clock<Duration>, mainLoop: EventLoop?
    ) throws -> (Home, StateLoader.Outcome, FixtureOrigin, pipedFixture: [UInt8]?) {
        // The fixture.
        let fixtureBytes: [UInt8]
        // A pipe cannot be read twice: what it gave is kept for a reset.
        var pipedFixture: [UInt8]?
        if let path = options.fixturePath {
            do {
                guard let read = try readNamedFile(path, fileSystem: fileSystem) else {
                    throw StartupError(description: "fixture \(path) does not exist")
                }
                fixtureBytes = read.bytes
                if !read.isRegularFile { pipedFixture = read.bytes }
            } catch let error as FileSystemError {
                throw StartupError(description: "cannot read fixture: \(error)")
            }
        } else {
            fixtureBytes = Fixture.embeddedDemoHomeJSON
        }
        let digest = fixtureDigest(fixtureBytes)
        let name = options.fixturePath ?? "(embedded)"
        let loader = StateLoader(directory: options.stateDirectory, fileSystem: fileSystem)
        let outcome: StateLoader.Outcome
        do {
            // Parsed only when needed: state saved from these very bytes is loaded without reading them again.
            outcome = try loader.load(
                fixtureDigest: digest, fixtureIsExplicit: options.fixturePath != nil, reset: options.reset,
                acceptingLoss: options.acceptLoss
            ) { () throws(StateLoader.Refusal) in
                do {
                    let fixture = try Fixture(json: fixtureBytes)
                    return (fixture, FixtureOrigin(id: fixture.id, digest: digest))
                } catch {
                    throw StateLoader.Refusal(description: "fixture \(name) is invalid: \(error)")
                }
            }
        } catch {
            throw StartupError(description: "\(error)")
        }
        let home = Home(
            fixture: outcome.fixture, clock: options.clock, seed: options.seed, wakeClock: wakeClock,
            wakeExecutor: mainLoop, executor: mainLoop, commandRecordLimit: options.commandRecordLimit,
            start: options.start, runsItself: options.clockRunsItself)
        // What is kept of the document: its name and settings, without its rooms and lights.
        var summary = outcome
        summary.fixture.rooms = []
        return (home, summary, outcome.origin, pipedFixture)
    }

    /// Writes the state as loaded as one snapshot with a fresh journal after it; when that cannot be done,
    /// appends to the journal that is there, if it follows the state loaded.
    static func saveStartupState(store: StateStore, outcome: StateLoader.Outcome, logger: Logger) async {
        defer { malloc_trim(0) }  // A snapshot of a large home is a large document, freed by now.
        do { try await store.compact() } catch {
            if let journal = outcome.resumableJournal, store.resume(journal) {
                logger.warning(
                    "cannot write the start-up snapshot (\(error)); appending to the existing journal instead, "
                        + "which needs only the space of each change", [("journal", store.journalPath)])
            } else {
                logger.error("cannot write the initial state: \(error)")
            }
        }
    }
}
