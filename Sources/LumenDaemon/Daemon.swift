import CLinux
import LumenCommandLine
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

/// `lumend` itself: reads its options, loads state, binds the socket, tells systemd it is ready, serves, and
/// stops cleanly.
public enum Daemon {
    /// Runs the daemon on the calling thread, which becomes its main event loop, and returns its exit status.
    ///
    /// The main loop runs lumend's own tasks: the services, their timers, the stop signals, the home's
    /// real-clock wake-ups, and with `--lifx` the LIFX socket, read on the home's thread. With the connections'
    /// event loops and the store's writer, those are all of lumend's threads; nothing waits on Dispatch's or the
    /// shared executor's.
    public static func mainOnCurrentThread(arguments: [String], environment: [String: String]) -> Int32 {
        let loop = EventLoop(name: "lumend.main", startingThread: false)
        let status = Locked<Int32>(1)
        Task(executorPreference: loop) {
            let result = await main(arguments: arguments, environment: environment, mainLoop: loop)
            status.withLock { $0 = result }
            loop.stop()
        }
        loop.runOnCurrentThread()
        return status.withLock { $0 }
    }

    /// Runs the daemon and returns its exit status: 0 after a clean stop, 1 on failure, 2 on bad usage.
    /// - Parameter mainLoop: the loop that runs lumend's own tasks and timers and watches its stop signals (see
    ///   ``mainOnCurrentThread``).
    public static func main(
        arguments: [String], environment: [String: String], mainLoop: EventLoop
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
            writeStdout(withInstalledSchema(String(decoding: fixture.json, as: UTF8.self)))
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
        } catch let stopped as StoppedWhileWaiting {
            // A stop during start-up is a clean stop: nothing was served, and nothing was changed.
            logger.notice("\(stopped); nothing was served")
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
        options: DaemonOptions, logger: Logger, notifier: any ServiceNotifier, mainLoop: EventLoop
    ) async throws {
        // Every notification goes through it: no STATUS= reaches systemd after STOPPING=1.
        let notifier = StopAwareNotifier(sending: notifier)
        let clock: any Clock<Duration> = EventLoopClock(loop: mainLoop)
        signal(SIGPIPE, SIG_IGN)
        // SIGTERM, SIGINT and SIGHUP wait until the service group reads them; lumend's main caught them before
        // anything else, and this covers a caller that did not.
        StopSignals.install()
        if options.exitWithParent {
            // Its SIGTERM waits in the stop signals' pipe until the service group reads it, however early; a
            // wait on a file the user named watches the parent itself (``readNamedFile``).
            do { try ParentWatch.start(watcher: mainLoop, logger: logger) } catch {
                throw StartupError(description: error.description)
            }
        }
        raiseDescriptorLimit(for: options.limits.maxSessions, logger: logger)
        let state = try await openState(options: options, clock: clock, mainLoop: mainLoop, logger: logger)
        defer { withExtendedLifetime(state) {} }
        let (listenFD, ownedPath, httpFDs, httpsFDs) = try openSocket(options: options, logger: logger)
        try await serve(
            state, listenFD: listenFD, ownedPath: ownedPath, httpFDs: httpFDs, httpsFDs: httpsFDs,
            options: options, clock: clock, mainLoop: mainLoop, notifier: notifier, logger: logger)
    }

    /// A fixture's text with its `$schema` pointing at the schema installed beside this lumend
    /// (`PREFIX/share/lumen/fixtures`), when there is one; as it is (the schema beside it, in the source tree)
    /// otherwise.
    static func withInstalledSchema(_ fixture: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return fixture }
        let executable = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let bin = PosixFileSystem.directory(of: executable)
        let schema = PosixFileSystem.directory(of: bin) + "/share/lumen/fixtures/lumen-fixture.schema.json"
        guard access(schema, R_OK) == 0 else { return fixture }
        return fixture.replacing(#""$schema": "./lumen-fixture.schema.json""#, with: #""$schema": "\#(schema)""#)
    }

    static func writeStdout(_ text: String) { _ = text.withCString { write(1, $0, strlen($0)) } }
    static func writeStderr(_ text: String) { _ = text.withCString { write(2, $0, strlen($0)) } }
}

extension Daemon {
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
