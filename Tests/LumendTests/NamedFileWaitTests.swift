import Foundation
import LumenTestSupport
import Testing

/// A file named on the command line may be a FIFO or a pipe: lumend may wait for what it holds, but a stop
/// signal always ends the wait, and a reset never waits on it at all.
@Suite("Files the user names, waited on", .timeLimit(.minutes(5)))
struct NamedFileWaitTests {
    /// Each option that names a file lumend reads at start, and what else it needs to reach that file.
    enum Option: String, CaseIterable, CustomTestStringConvertible {
        case fixture, httpTokenFile, tlsCertificate, check

        func arguments(_ fifo: String) -> [String] {
            switch self {
            case .fixture: ["--fixture", fifo]
            case .httpTokenFile: ["--http", "127.0.0.1:0", "--http-token-file", fifo]
            case .tlsCertificate:
                ["--https", "127.0.0.1:0", "--tls-certificate", fifo, "--tls-key", fifo + ".key"]
            case .check: ["--check", fifo]
            }
        }

        /// What a stop while it waits ends with: a stop during start-up is a clean stop; a check that was
        /// stopped before it could check says so as a command ended by a signal does.
        func statusAfterStop(_ signal: Int32) -> Int32 { self == .check ? 128 + signal : 0 }

        var testDescription: String { rawValue }
    }

    /// Waits until the daemon has `fifo` open for reading, and returns a write end that writes nothing: a
    /// writer that never writes holds a reader as long as no writer at all does. Opening a FIFO for writing
    /// waits, in the kernel, for a reader to open it; a daemon that never does fails the test by its time limit.
    func silentWriter(_ fifo: String, _ daemon: DaemonProcess) async throws -> Int32 {
        let (fd, error) = await offload { () -> (Int32, Int32) in
            let fd = open(fifo, O_WRONLY | O_CLOEXEC)
            return (fd, errno)
        }
        try #require(fd >= 0, "\(String(cString: strerror(error))): \(daemon.stderr)")
        return fd
    }

    func makeFIFO(in directory: TemporaryDirectory) throws -> String {
        let fifo = directory.file("named.fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        return fifo
    }

    /// Starts lumend with `arguments`, or lumend `--check` on its own.
    func start(_ option: Option, _ fifo: String, directory: TemporaryDirectory) throws -> DaemonProcess {
        option == .check
            ? try DaemonProcess(
                arguments: option.arguments(fifo), directory: directory,
                executable: DaemonProcess.builtBinary("lumend"), setPaths: false)
            : try DaemonProcess(arguments: option.arguments(fifo), directory: directory)
    }

    /// A FIFO no one writes once held lumend in `open` for good, deaf to every stop signal.
    @Test(arguments: Option.allCases, [SIGTERM, SIGINT])
    func aStopEndsAWaitForAWriterThatNeverComes(_ option: Option, _ signal: Int32) async throws {
        let directory = TemporaryDirectory()
        let fifo = try makeFIFO(in: directory)
        let daemon = try start(option, fifo, directory: directory)
        // Sent at once: caught before the wait begins or during it, it ends it either way.
        daemon.signal(signal)
        let status = await daemon.waitForExit(timeout: .seconds(15))
        #expect(status == option.statusAfterStop(signal), "\(daemon.stderr)")
    }

    @Test(arguments: Option.allCases)
    func aStopEndsAWaitForAWriterThatWritesNothing(_ option: Option) async throws {
        let directory = TemporaryDirectory()
        let fifo = try makeFIFO(in: directory)
        let daemon = try start(option, fifo, directory: directory)
        let writer = try await silentWriter(fifo, daemon)
        defer { close(writer) }
        daemon.signal(SIGTERM)
        let status = await daemon.waitForExit(timeout: .seconds(15))
        #expect(status == option.statusAfterStop(SIGTERM), "\(daemon.stderr)")
        if option != .check {
            #expect(daemon.stderr.contains("stopped by signal 15"), "\(daemon.stderr)")
            // A clean stop leaves no socket behind, bound or not by the time of the wait.
            #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
        } else {
            // The path leads the line, and is said once.
            #expect(daemon.stderr == "\(fifo): not checked: stopped by signal 15 while waiting for it to be written\n")
        }
    }

    /// The second stop signal exits at once with 128 + its number, whatever start-up is waiting on. Both
    /// signals are sent while lumend is stopped (SIGSTOP), so that both are pending when it goes on: whichever
    /// thread takes them, the second is taken before the first could end the wait.
    @Test func aSecondStopDuringStartUpExitsAtOnce() async throws {
        let directory = TemporaryDirectory()
        let fifo = try makeFIFO(in: directory)
        let daemon = try start(.fixture, fifo, directory: directory)
        let writer = try await silentWriter(fifo, daemon)
        defer { close(writer) }
        daemon.signal(SIGSTOP)
        #expect(await waitForStop(daemon.pid), "lumend never stopped")
        daemon.signal(SIGINT)
        daemon.signal(SIGTERM)
        daemon.signal(SIGCONT)
        let status = await daemon.waitForExit(timeout: .seconds(15))
        #expect(status == 128 + SIGINT || status == 128 + SIGTERM, "\(String(describing: status)): \(daemon.stderr)")
    }

    /// A harness killed while lumend waits on a file it names leaves no lumend behind: `--exit-with-parent`
    /// ends the wait as it ends serving, cleanly, and the socket lumend may have bound goes with it.
    @Test(arguments: [Option.fixture, .httpTokenFile, .tlsCertificate])
    func theParentsExitEndsAWait(_ option: Option) async throws {
        let directory = TemporaryDirectory()
        let fifo = try makeFIFO(in: directory)
        let socket = directory.file("lumend.sock")
        let pidFile = directory.file("lumend.pid")
        // A shell starts lumend as its child and waits for it: killing the shell leaves lumend an orphan.
        let harness = try DaemonProcess(
            environment: ["PIDFILE": pidFile], directory: directory,
            prefix: [
                "-c", "\"$0\" \"$@\" & echo $! > \"$PIDFILE\"; wait", DaemonProcess.builtBinary("lumend"),
                "--socket", socket, "--state-dir", directory.file("state"), "--exit-with-parent",
            ] + option.arguments(fifo),
            executable: "/bin/sh", setPaths: false)
        let writer = try await silentWriter(fifo, harness)
        defer { close(writer) }
        harness.signal(SIGKILL)
        // The shell's lifeline, which lumend inherited, closes only once lumend has exited too.
        let status = await harness.waitForExit(timeout: .seconds(20))
        if status == nil, let written = try? String(contentsOfFile: pidFile, encoding: .utf8),
            let lumend = Int32(written.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            kill(lumend, SIGKILL)
        }
        #expect(status == 128 + SIGKILL, "lumend lived on after its parent: \(harness.stderr)")
        #expect(harness.stderr.contains("the process that started lumend (pid"), "\(harness.stderr)")
        #expect(harness.stderr.contains("nothing was served"), "\(harness.stderr)")
        #expect(!FileManager.default.fileExists(atPath: socket))
    }

    /// lumend says it is ready only once it has read the files it serves with: a wait for a token file comes
    /// before that line, not after it.
    @Test func readyIsSaidOnlyOnceTheTokenFileIsRead() async throws {
        let directory = TemporaryDirectory()
        let fifo = try makeFIFO(in: directory)
        let daemon = try start(.httpTokenFile, fifo, directory: directory)
        let writer = try await silentWriter(fifo, daemon)
        // lumend has the FIFO open and waits for its bytes; the socket is bound by then.
        #expect(FileManager.default.fileExists(atPath: daemon.socketPath))
        #expect(!daemon.stderr.contains("ready on"), "\(daemon.stderr)")
        let token = "abcdefghijklmnopqrstuvwxyz\n"
        #expect(token.withCString { write(writer, $0, strlen($0)) } == token.utf8.count)
        close(writer)
        _ = try #require(await daemon.waitUntilReady(), "\(daemon.stderr)")
        #expect(daemon.stderr.contains("ready on"), "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(15)) == 0, "\(daemon.stderr)")
    }

    /// Waits until process `pid`, a child of this one, has stopped (SIGSTOP), as the kernel tells its parent; the
    /// stop is left to be seen again (`WNOWAIT`).
    func waitForStop(_ pid: Int32) async -> Bool {
        await offload { () -> Bool in
            var info = siginfo_t()
            return waitid(P_PID, id_t(pid), &info, WSTOPPED | WNOWAIT) == 0
        }
    }

    /// A pipe cannot be read twice: a reset of a home read from one goes back to the bytes read at start.
    @Test func aResetOfAFixtureReadFromAPipeGoesBackToWhatWasReadAtStart() async throws {
        let directory = TemporaryDirectory()
        let fifo = try makeFIFO(in: directory)
        let daemon = try DaemonProcess(arguments: ["--fixture", fifo], directory: directory)
        // Blocks until lumend opens the FIFO to read it.
        let written = await offload { () -> Bool in
            let fd = open(fifo, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            let bytes = Array(TestFixtures.instantHome.utf8)
            return bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count
        }
        try #require(written)
        _ = try #require(await daemon.waitUntilReady(), "\(daemon.stderr)")
        let ctl = ["--socket", daemon.socketPath]
        #expect(try await runTool("lumenctl", ctl + ["set", "lab.dim", "on", "brightness=20"]).status == 0)
        let reset = try await runTool("lumenctl", ctl + ["sim", "reset"])
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(try await runTool("lumenctl", ctl + ["get", "lab.dim", "brightness"]).stdout == "50\n")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(15)) == 0, "\(daemon.stderr)")
    }

    /// A fixture read from a regular file is read again at a reset, but never waited on: a FIFO put in its
    /// place since is refused at once, and the stop after it is not held up.
    @Test func aResetDoesNotWaitOnAFIFOPutInPlaceOfTheFixture() async throws {
        let directory = TemporaryDirectory()
        let fixture = directory.file("home.json")
        try TestFixtures.instantHome.write(toFile: fixture, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: ["--fixture", fixture], directory: directory)
        _ = try #require(await daemon.waitUntilReady(), "\(daemon.stderr)")
        let fifo = try makeFIFO(in: directory)
        try #require(rename(fifo, fixture) == 0)
        let reset = try await runTool("lumenctl", ["--socket", daemon.socketPath, "sim", "reset"])
        #expect(reset.status != 0 && reset.stderr.contains("not a regular file (a FIFO)"), "\(reset.stderr)")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(15)) == 0, "\(daemon.stderr)")
    }
}
