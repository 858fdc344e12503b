import CLinux
import Foundation
import LumenProtocol

/// A `lumend` process started by a test, in its own temporary directory, with its own notify socket.
public final class DaemonProcess: Sendable {
    /// The path of a binary built beside the tests (`lumend`, `lumenctl`).
    public static func builtBinary(_ name: String) -> String {
        // `make hostile` measures the daemon as shipped: a release build, named here.
        if name == "lumend", let path = ProcessInfo.processInfo.environment["LUMEN_LUMEND_BINARY"], !path.isEmpty {
            return path
        }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        // The test bundle may sit one level down (`…/debug/LumenPackageTests.xctest`).
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return ".build/debug/\(name)"
    }

    /// The directory holding everything this daemon uses.
    public let directory: TemporaryDirectory
    /// Its socket.
    public let socketPath: String
    /// Its state directory.
    public let stateDirectory: String
    /// Its notify socket.
    public let notify: NotifyListener
    /// The process ID.
    public let pid: Int32
    private let stderrPath: String
    private let stdoutPath: String
    private let exitStatus = Locked<Int32?>(nil)
    /// The read end of a pipe whose write end only the child holds: it reports end-of-file when the child
    /// exits, so waiting for exit is a `poll` with a timeout rather than a loop of sleeps.
    private let lifeline: Int32

    /// Starts `lumend` with `arguments` (after the socket and state options, which it sets).
    /// - Parameters:
    ///   - executable: run this instead of lumend directly (e.g. `systemd-socket-activate`), with `prefix`.
    ///   - setPaths: whether to pass `--socket` and `--state-dir` inside `directory`.
    public init(
        arguments: [String] = [], environment: [String: String] = [:],
        directory: TemporaryDirectory = TemporaryDirectory(), prefix: [String] = [], executable: String? = nil,
        setPaths: Bool = true
    ) throws {
        self.directory = directory
        socketPath = directory.file("lumend.sock")
        stateDirectory = directory.file("state")
        let tag = UUID().uuidString.prefix(8)
        stderrPath = directory.file("stderr-\(tag).log")
        stdoutPath = directory.file("stdout-\(tag).log")
        notify = NotifyListener(path: directory.file("notify-\(tag).sock"))
        let program = executable ?? Self.builtBinary("lumend")
        // lumend run directly goes when the test process does, even killed outright: no daemon outlives its run.
        let paths =
            (setPaths ? ["--socket", socketPath, "--state-dir", stateDirectory] : [])
            + (executable == nil ? ["--exit-with-parent"] : [])
        var env = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": directory.path, "NOTIFY_SOCKET": notify.path, "SWIFT_BACKTRACE": "enable=no",
        ]
        // Under make sanitize the children are instrumented too and need the same options (suppressions).
        for name in ["TSAN_OPTIONS", "ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS"] {
            if let value = ProcessInfo.processInfo.environment[name] { env[name] = value }
        }
        env.merge(environment) { $1 }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SpawnError(program: "pipe", code: errno) }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        lifeline = ends[0]
        defer { close(ends[1]) }
        pid = try Self.spawn(
            program, [program] + prefix + paths + arguments, env, stdout: stdoutPath, stderr: stderrPath,
            lifeline: ends[1])
    }

    /// posix_spawn, with stdin on /dev/null and stdout and stderr to files. Foundation's `Process` reaps
    /// children on one shared thread and can hang a test run when one child misbehaves; this does not.
    ///
    /// The child starts with the stop signals blocked, whichever test thread spawns it (a child inherits its
    /// spawning thread's mask, and the test process's threads differ in theirs): a signal sent at spawn then
    /// waits for lumend to catch it, as with any parent that blocks them, rather than ending it before `main`.
    static func spawn(
        _ program: String, _ argv: [String], _ env: [String: String], stdout: String, stderr: String, lifeline: Int32
    ) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // dup2 clears close-on-exec on the copy only, so no other test's child inherits this pipe; from a
        // number other than 3 itself, where dup2 would do nothing.
        let source = lifeline == 3 ? fcntl(lifeline, F_DUPFD_CLOEXEC, 10) : lifeline
        defer { if source != lifeline { close(source) } }
        posix_spawn_file_actions_adddup2(&actions, source, 3)
        // Nothing else of the test process's: another test's files and sockets, open without close-on-exec
        // while this one spawns, would otherwise live on in this daemon.
        lumen_spawn_close_from(&actions, 4)
        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArgs.forEach { free($0) }
            cEnv.forEach { free($0) }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        for number in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&mask, number) }
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        let result = posix_spawn(&pid, program, &actions, &attributes, cArgs, cEnv)
        guard result == 0 else { throw SpawnError(program: program, code: result) }
        return pid
    }

    /// What it wrote to stdout so far.
    public var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }

    /// What it wrote to stderr so far.
    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Waits until its stderr holds `text`, watching the file with inotify; `false` after `timeout`.
    public func waitForStderr(containing text: String, timeout: Duration = .seconds(20)) async -> Bool {
        await waitForCondition(in: directory.path, timeout: timeout) { [self] in stderr.contains(text) }
    }

    /// Waits for `READY=1`; returns the messages seen up to it, or `nil`.
    public func waitUntilReady(timeout: Duration = .seconds(30)) async -> [String]? {
        await notify.wait(for: "READY=1", timeout: timeout)
    }

    /// Waits for `READY=1`; returns when it arrived (monotonic seconds, as `CLOCK_MONOTONIC`), or `nil`.
    public func readyTime(timeout: Duration = .seconds(30)) async -> Double? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let (message, at) = await notify.next(timeout: deadline - ContinuousClock.now) else { return nil }
            if message.split(separator: "\n").contains("READY=1") { return at }
        }
        return nil
    }

    /// Sends a signal.
    public func signal(_ number: Int32) { kill(pid, number) }

    /// Reaps the process if it has exited; returns its status (128+N when killed by signal N).
    private func reap(blocking: Bool) -> Int32? {
        exitStatus.withLock { status in
            if let status { return status }
            var raw: Int32 = 0
            let result = waitpid(pid, &raw, blocking ? 0 : WNOHANG)
            guard result == pid else { return nil }
            let termSignal = raw & 0x7f
            status = termSignal == 0 ? (raw >> 8) & 0xff : 128 + termSignal
            return status
        }
    }

    /// Waits for the process to exit and returns its status (128+N when killed by signal N), or `nil` on timeout.
    public func waitForExit(timeout: Duration = .seconds(30)) async -> Int32? {
        await offload { [self] in
            var poller = pollfd(fd: lifeline, events: Int16(POLLIN), revents: 0)
            let millis = Int32(timeout.components.seconds * 1_000)
            guard poll(&poller, 1, millis) > 0 else { return nil }
            return reap(blocking: true)
        }
    }

    /// Connects a client.
    public func connect() throws -> LineClient { try LineClient(path: socketPath) }

    deinit {
        if reap(blocking: false) == nil {
            kill(pid, SIGKILL)
            _ = reap(blocking: true)
        }
        close(lifeline)
    }
}

/// A child process could not be started.
public struct SpawnError: Error, CustomStringConvertible {
    public let program: String
    public let code: Int32
    public var description: String { "cannot start \(program): \(String(cString: strerror(code)))" }
}

/// Runs a tool built beside the tests (such as `lumenctl`) to completion.
/// - Returns: its exit status, stdout and stderr.
public func runTool(_ name: String, _ arguments: [String], environment: [String: String] = [:]) async throws
    -> (status: Int32, stdout: String, stderr: String)
{
    let run = try DaemonProcess(
        arguments: arguments, environment: environment, executable: DaemonProcess.builtBinary(name), setPaths: false)
    let status = await run.waitForExit() ?? -1
    return (status, run.stdout, run.stderr)
}
