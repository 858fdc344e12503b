import CLinux
import LumenCommandLine
import LumenModel
import LumenProtocol
import LumenScopes
import LumenServer
import LumenService
import LumenSimulation
import LumenStore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `lumend` itself: reads its options, loads state, binds the socket, tells systemd it is ready, serves, and
/// stops cleanly.
public enum Daemon {
    /// Runs the daemon on the calling thread, which becomes its main event loop, and returns its exit status.
    ///
    /// The main loop runs lumend's own tasks: the services, their timers, the stop signals, the home's
    /// real-clock wake-ups. With the connections' event loops and the store's writer, those are all of
    /// lumend's threads; nothing waits on Dispatch's or the shared executor's.
    public static func mainOnCurrentThread(arguments: [String], environment: [String: String]) -> Int32 {
        let loop = EventLoop(name: "lumend.main", startingThread: false)
        let status = Mutex<Int32>(1)
        Task(executorPreference: loop) {
            let result = await main(arguments: arguments, environment: environment, mainLoop: loop)
            status.withLock { $0 = result }
            loop.stop()
        }
        loop.runOnCurrentThread()
        return status.withLock { $0 }
    }

    /// Runs the daemon and returns its exit status: 0 after a clean stop, 1 on failure, 2 on bad usage.
    /// - Parameter mainLoop: the loop that runs lumend's own tasks and timers (see ``mainOnCurrentThread``);
    ///   `nil` leaves them to the shared executor and Dispatch.
    public static func main(
        arguments: [String], environment: [String: String], mainLoop: EventLoop? = nil
    ) async -> Int32 {
        let options: DaemonOptions
        do {
            options = try DaemonOptions.parse(arguments, environment: environment)
        } catch {
            writeStderr("lumend: \(error)\n")
            return 2
        }
        if options.showHelp {
            writeStdout(DaemonOptions.help + "\n")
            return 0
        }
        if let name = options.printFixture, let fixture = Fixture.embedded.first(where: { $0.name == name }) {
            writeStdout(String(decoding: fixture.json, as: UTF8.self))
            return 0
        }
        if !options.checkFixtures.isEmpty { return check(options.checkFixtures) }
        if let shell = options.printCompletion {
            writeStdout(DaemonOptions.completion.script(for: shell))
            return 0
        }
        if options.printSocket {
            writeStdout(options.socketPath + "\n")
            return 0
        }
        if options.showVersion {
            writeStdout("lumend \(LumenVersion.string)\n")
            return 0
        }
        let logger = Logger(level: options.logLevel, handler: Logger.defaultHandler(environment: environment))
        do {
            try await run(options: options, logger: logger, notifier: SystemdNotifier(), mainLoop: mainLoop)
            return 0
        } catch {
            logger.error("\(error)")
            return 1
        }
    }

    /// A start-up failure, said plainly.
    public struct StartupError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs until a signal or a failure.
    public static func run(
        options: DaemonOptions, logger: Logger, notifier: any ServiceNotifier, mainLoop: EventLoop? = nil
    ) async throws {
        // Every notification goes through it: no STATUS= reaches systemd after STOPPING=1.
        let notifier = StopAwareNotifier(sending: notifier)
        let clock: any Clock<Duration> = mainLoop.map { EventLoopClock(loop: $0) } ?? ContinuousClock()
        signal(SIGPIPE, SIG_IGN)
        // SIGTERM, SIGINT and SIGHUP wait until the service group reads them; lumend's main caught them before
        // anything else, and this covers a caller that did not.
        StopSignals.install()
        if options.exitWithParent {
            // Its SIGTERM waits in the stop signals' pipe until the service group reads it, however early.
            do { try ParentWatch.start(watcher: mainLoop ?? DispatchReadableWatcher(), logger: logger) } catch {
                throw StartupError(description: error.description)
            }
        }
        raiseDescriptorLimit(for: options.limits.maxSessions, logger: logger)
        // The state directory, opened once, each step of its path checked; everything in it is reached through
        // that descriptor, so nothing on the path can be swapped afterwards.
        let stateDirectory: TrustedDirectory
        do { stateDirectory = try TrustedDirectory(opening: options.stateDirectory) } catch {
            throw StartupError(description: "will not keep state in \(options.stateDirectory): \(error)")
        }
        defer { withExtendedLifetime(stateDirectory) {} }
        let fileSystem = PosixFileSystem(anchor: (options.stateDirectory, stateDirectory.descriptor))
        // Held until the process ends: a second lumend on this directory would replace the journal under us.
        let lock: StateDirectoryLock
        do {
            lock = try StateDirectoryLock.acquire(options.stateDirectory, descriptor: stateDirectory.descriptor)
        } catch {
            throw StartupError(description: "\(error)")
        }
        defer { withExtendedLifetime(lock) {} }
        // The fixture and the state, loaded in a function of their own: the documents they were read from are
        // freed when it returns, and only the simulated home and what the log needs stay.
        let (home, outcome, origin) = try loadHome(
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
        await home.setPersistenceSink(store)
        // Save the state as loaded (the snapshot with its journal replayed) as one snapshot and start a fresh
        // journal, before saying READY: a crash right after start then loses nothing. State that
        // is on disk as loaded already (its snapshot, with an empty journal after it) needs no new snapshot: the
        // store goes on appending to that journal.
        let onDiskAsLoaded = outcome.source == .state && outcome.replayedCommits == 0 && outcome.warnings.isEmpty
        var alreadySaved = false
        if onDiskAsLoaded, let journal = outcome.resumableJournal { alreadySaved = store.resume(journal) }
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

        // The socket.
        let listenFD: Int32
        let ownedPath: String?
        let inherited = SystemdNotifier.listenFileDescriptors()
        if let fd = inherited.first {
            guard UnixSocket.isListeningStreamSocket(fd) else {
                throw StartupError(description: "systemd passed fd \(fd), which is not a listening stream socket")
            }
            listenFD = fd
            ownedPath = nil
            logger.info("serving on the socket systemd passed", [("fd", String(fd))])
        } else {
            // Created and checked as the state directory is; the socket is bound by its path, which only this
            // user and root can change once the check has passed.
            do { _ = try TrustedDirectory(opening: PosixFileSystem.directory(of: options.socketPath)) } catch {
                throw StartupError(description: "will not listen on \(options.socketPath): \(error)")
            }
            do {
                listenFD = try UnixSocket.listen(at: options.socketPath)
            } catch {
                throw StartupError(description: error.description)
            }
            ownedPath = options.socketPath
        }

        // Serving.
        // Under full durability a write is confirmed once it is on disk. The store's own thread writes and
        // syncs; an event loop serving other connections never waits on the disk.
        let waitForDisk: @Sendable () async throws(LumenError) -> Void = { () async throws(LumenError) in
            do { try await store.waitUntilDurable(store.changeMark) } catch let error as LumenError {
                throw error
            } catch {
                throw LumenError(.notPersisted, "the change could not be saved: \(error)")
            }
        }
        let container = ScopeContainer(home: home, durable: durability == .full ? waitForDisk : nil)
        let server = SocketServer(
            listenFD: listenFD, ownedPath: ownedPath, container: container, limits: options.limits,
            simulationAccess: options.simulationAccess, clock: clock, logger: logger)
        // A watcher: the server hears only of changes to properties some session subscribed to.
        await home.addWatcher { event in
            server.publish(event)
        }
        let socketDescription = ownedPath ?? UnixSocket.boundPath(of: listenFD) ?? "fd \(listenFD)"
        logger.notice(
            "lumend \(LumenVersion.string) ready on \(socketDescription)",
            [("socket", socketDescription), ("clock", options.clock.rawValue)])
        var services: [any Service] = [
            // Started first, so stopped last: after the server has answered its last request.
            ClosureService(name: "state store") {
                if fresh { await saveStartupState(store: store, outcome: outcome, logger: logger) }
                await gracefulShutdown()
                await store.close()
            },
            server,
            StatusReporter(home: home, server: server, health: health, notifier: notifier, clock: clock),
            HeapReclaimingService(clock: clock, logger: logger),
        ]
        if let interval = SystemdNotifier.watchdogInterval() {
            services.append(
                Watchdog(interval: interval, server: server, notifier: notifier, logger: logger, clock: clock))
            logger.info("watchdog enabled", [("interval", "\(interval)")])
        }
        let group = ServiceGroup(
            services: services, logger: logger,
            ignoredSignals: [
                (SIGHUP, "SIGHUP ignored: lumend reads its options at start; restart it to change them")
            ], signalWatcher: mainLoop ?? DispatchReadableWatcher()
        ) {
            // Last: the socket serves and every signal that could stop lumend is being read.
            notifier.notify("READY=1")
        } onShutdown: {
            // One message, the status first: after STOPPING=1 the notifier lets no status through, so the
            // status reporter, until it is stopped, cannot say "Simulating" over it.
            notifier.notify("STATUS=Stopping: finishing requests and saving state\nSTOPPING=1")
        }
        try await group.run()
        if let error = store.lastError {
            logger.error("stopped, but the last changes could not be saved: \(error)")
        } else if let error = store.finalSnapshotError {
            logger.notice(
                "stopped; every change is saved in the journal (the last snapshot could not be written: \(error); "
                    + "the next start replays the journal)", [("journal", store.journalPath)])
        } else {
            logger.notice("stopped; state saved", [("state", store.statePath)])
        }
    }

    static func writeStdout(_ text: String) { _ = text.withCString { write(1, $0, strlen($0)) } }
    static func writeStderr(_ text: String) { _ = text.withCString { write(2, $0, strlen($0)) } }
}

extension Daemon {
    /// `lumend --check`: every problem of each fixture, as `FILE:LINE:COLUMN: PATH: what is wrong`; 1 when
    /// any has one.
    ///
    /// Each line is written with its control characters escaped (``escapingControlCharacters(_:)``): IDs, keys
    /// and values quoted in a problem come from the file, which is not trusted.
    static func check(_ paths: [String]) -> Int32 {
        func problem(_ line: String) { writeStderr(escapingControlCharacters(line) + "\n") }
        func passed(_ line: String) { writeStdout(escapingControlCharacters(line) + "\n") }
        var status: Int32 = 0
        for path in paths {
            let bytes: [UInt8]
            do {
                guard let read = try PosixFileSystem().readFile(path) else {
                    problem("\(path): no such file")
                    status = 1
                    continue
                }
                bytes = read
            } catch {
                problem("\(path): cannot read it: \(error)")
                status = 1
                continue
            }
            let problems = Fixture.problems(json: bytes)
            // In the order they come in the file.
            let located = problems.map { problem -> (offset: Int?, text: String) in
                switch problem {
                case .syntax(let error):
                    return (error.offset, "not valid JSON: \(error.message)")
                case .shape(let error):
                    // A member that is missing is shown where the value that lacks it begins.
                    var offset: Int?
                    var path: JSONPath? = error.path
                    while offset == nil, let here = path {
                        offset = JSONParser.offset(of: here, in: bytes)
                        path = here.parent
                    }
                    return (offset, "\(error.path): \(error.message)")
                }
            }
            for (offset, text) in located.sorted(by: { ($0.offset ?? .max) < ($1.offset ?? .max) }) {
                let position = offset.map { "\(TextPosition(offset: $0, in: bytes)):" } ?? ""
                problem("\(path):\(position) \(text)")
            }
            if problems.isEmpty, let fixture = try? Fixture(json: bytes) {
                let lights = fixture.rooms.reduce(0) { $0 + $1.lights.count }
                let rooms = fixture.rooms.count
                passed(
                    "\(path): ok (\(rooms) room\(rooms == 1 ? "" : "s"), \(lights) light\(lights == 1 ? "" : "s"))")
            } else {
                status = 1
            }
        }
        return status
    }

    /// `text` with each control character written out as `\u{…}`, its code in hexadecimal with at least two
    /// digits (an escape becomes `\u{1B}`): C0 (U+0000–U+001F, a newline and a tab too), DEL (U+007F) and C1
    /// (U+0080–U+009F). A terminal obeys these rather than showing them: an escape sequence can clear it,
    /// retitle it or recolour what follows, a carriage return can hide the text before it. Every other
    /// character, a backslash included, is left as it is.
    static func escapingControlCharacters(_ text: String) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool {
            scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
        }
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                escaped.append(contentsOf: "\\u{\(hex.count < 2 ? "0" : "")\(hex)}".unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    /// The fixture read and checked, and the state directory loaded against it: the simulated home, what was
    /// loaded (without the document, which is freed here), and the fixture's origin.
    static func loadHome(
        options: DaemonOptions, fileSystem: PosixFileSystem, wakeClock: any Clock<Duration>, mainLoop: EventLoop?
    ) throws -> (Home, StateLoader.Outcome, FixtureOrigin) {
        // The fixture.
        let fixtureBytes: [UInt8]
        if let path = options.fixturePath {
            do {
                guard let bytes = try fileSystem.readFile(path) else {
                    throw StartupError(description: "fixture \(path) does not exist")
                }
                fixtureBytes = bytes
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
            wakeExecutor: mainLoop, workplaces: EventLoop.homeWorkplaces(fallback: mainLoop))
        // What is kept of the document: its name and settings, without its rooms and lights.
        var summary = outcome
        summary.fixture.rooms = []
        return (home, summary, outcome.origin)
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

    /// Raises the soft limit on open descriptors to the hard limit, as systemd advises daemons that need
    /// many (its default soft limit, 1024, is for programs that use `select`); a session is a descriptor.
    /// Warns when even the hard limit holds fewer sessions than asked for.
    static func raiseDescriptorLimit(for sessions: Int, logger: Logger) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        // State files, the journal, the listening socket, the loops' epoll and wake descriptors, logging.
        let reserved = 64
        if limit.rlim_cur < rlim_t(Int.max), Int(limit.rlim_cur) < sessions + reserved {
            logger.warning(
                "the open-file limit (\(limit.rlim_cur)) allows about \(max(0, Int(limit.rlim_cur) - reserved)) of "
                    + "the \(sessions) sessions asked for; raise LimitNOFILE= or lower --max-sessions")
        }
    }
}
