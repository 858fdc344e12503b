import Foundation
import LumenModel
import LumenProtocol
import LumenTestSupport
import Testing

@Suite("lumend lifecycle", .timeLimit(.minutes(2)))
struct DaemonLifecycleTests {
    func writeFixture(_ directory: TemporaryDirectory, _ text: String = TestFixtures.instantHome) -> String {
        let path = directory.file("home.json")
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    @Test func readyArrivesOnlyOnceTheSocketAcceptsConnections() async throws {
        let daemon = try DaemonProcess()
        let messages = try #require(await daemon.waitUntilReady(), "no READY=1; stderr: \(daemon.stderr)")
        // The moment READY=1 arrives the socket must already serve.
        let client = try daemon.connect()
        let hello = try await client.result("hello")
        #expect(hello["server"] == "lumend")
        #expect(hello["protocol"] == 1)
        #expect(messages.last?.contains("READY=1") == true)
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    /// A session is a descriptor: lumend raises its soft limit on them (often 1,024) to the hard limit.
    @Test func theDescriptorLimitIsRaisedToTheHardLimit() async throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), limit.rlim_max > 256 else {
            print("SKIPPED: needs /usr/bin/prlimit and a hard open-file limit above 256")
            return
        }
        let directory = TemporaryDirectory()
        let daemon = try DaemonProcess(
            arguments: ["--socket", directory.file("s.sock"), "--state-dir", directory.file("state")],
            directory: directory,
            prefix: ["--nofile=256:\(limit.rlim_max)", DaemonProcess.builtBinary("lumend")],
            executable: "/usr/bin/prlimit", setPaths: false)
        _ = try #require(await daemon.waitUntilReady(), "no READY=1; stderr: \(daemon.stderr)")
        let limits = try String(contentsOfFile: "/proc/\(daemon.pid)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        let numbers = line.split(separator: " ").compactMap { UInt($0) }
        #expect(numbers.count == 2 && numbers[0] == numbers[1], "\(line)")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    @Test func statusSaysWhatTheDaemonIsDoing() async throws {
        let daemon = try DaemonProcess()
        var seen: [String] = try #require(await daemon.waitUntilReady())
        while !seen.contains(where: { $0.hasPrefix("STATUS=Simulating") }) {
            guard let (message, _) = await daemon.notify.next() else { break }
            seen.append(message)
        }
        let status = try #require(seen.first { $0.hasPrefix("STATUS=Simulating") })
        #expect(status.contains("17 lights"))
        #expect(status.contains("0 clients connected"))
        #expect(status.contains("state saved"))
    }

    /// `STOPPING=1` is lumend's last word on its state: no `STATUS=` follows it, neither from the shutdown
    /// itself nor from the status reporter, which may be about to report when the signal comes.
    @Test func noStatusIsSentAfterStopping() async throws {
        let daemon = try DaemonProcess()
        var messages: [String] = try #require(await daemon.waitUntilReady(), "no READY=1; stderr: \(daemon.stderr)")
        // The status reporter is running: its first report has come.
        while !messages.contains(where: { $0.hasPrefix("STATUS=Simulating") }) {
            guard let (message, _) = await daemon.notify.next() else { break }
            messages.append(message)
        }
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
        // lumend has exited: everything it sent is waiting on the socket.
        while let (message, _) = await daemon.notify.next(timeout: .seconds(1)) { messages.append(message) }
        let lines = messages.flatMap { $0.split(separator: "\n").map(String.init) }
        let stopping = try #require(lines.firstIndex(of: "STOPPING=1"), "\(lines)")
        #expect(!lines[(stopping + 1)...].contains { $0.hasPrefix("STATUS=") }, "\(lines)")
        // What it does while it stops is said just before.
        #expect(lines[..<stopping].last?.hasPrefix("STATUS=Stopping") == true, "\(lines)")
    }

    @Test func servesOnTheSocketSystemdPasses() async throws {
        let directory = TemporaryDirectory()
        let socket = directory.file("activated.sock")
        let daemon = try DaemonProcess(
            arguments: ["--state-dir", directory.file("state")], directory: directory,
            // systemd-socket-activate passes on only the variables named with -E.
            prefix: [
                "-l", socket, "-E", "NOTIFY_SOCKET", "-E", "SWIFT_BACKTRACE", "-E", "TSAN_OPTIONS", "-E",
                "ASAN_OPTIONS", DaemonProcess.builtBinary("lumend"),
            ],
            executable: "/usr/bin/systemd-socket-activate", setPaths: false)
        // systemd-socket-activate starts lumend on the first connection, as systemd does. Its socket file
        // appears at bind(2), before listen(2), and a connect between the two is refused: wait for the line it
        // writes once it listens.
        #expect(
            await daemon.waitForStderr(containing: "Listening on \(socket) as "),
            "systemd-socket-activate never listened; stderr: \(daemon.stderr)")
        let connected = try LineClient(path: socket)
        _ = try #require(await daemon.waitUntilReady(), "no READY=1; stderr: \(daemon.stderr)")
        #expect(try await connected.result("hello")["server"] == "lumend")
        #expect(daemon.stderr.contains("serving on the socket systemd passed"))
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
        // The socket belongs to systemd: lumend must not remove it.
        #expect(FileManager.default.fileExists(atPath: socket))
    }

    /// Started with `--exit-with-parent` by a harness that is then killed outright: lumend notices, saves its
    /// state and exits, rather than living on with nobody to stop it.
    @Test func withExitWithParentItStopsCleanlyOnceWhatStartedItIsKilled() async throws {
        let directory = TemporaryDirectory()
        let pidFile = directory.file("lumend.pid")
        // A shell starts lumend as its child and waits for it: killing the shell leaves lumend an orphan.
        let harness = try DaemonProcess(
            environment: ["PIDFILE": pidFile], directory: directory,
            prefix: [
                "-c", "\"$0\" \"$@\" & echo $! > \"$PIDFILE\"; wait", DaemonProcess.builtBinary("lumend"),
                "--socket", directory.file("lumend.sock"), "--state-dir", directory.file("state"),
                "--exit-with-parent",
            ],
            executable: "/bin/sh", setPaths: false)
        _ = try #require(await harness.waitUntilReady(), "no READY=1; stderr: \(harness.stderr)")
        let written = try String(contentsOfFile: pidFile, encoding: .utf8)
        let lumend = try #require(Int32(written.trimmingCharacters(in: .whitespacesAndNewlines)))
        harness.signal(SIGKILL)
        // The shell's lifeline, which lumend inherited, closes only once lumend has exited too.
        let status = await harness.waitForExit(timeout: .seconds(20))
        if status == nil { kill(lumend, SIGKILL) }
        #expect(status == 128 + SIGKILL, "lumend lived on after its parent; stderr: \(harness.stderr)")
        #expect(harness.stderr.contains("the process that started lumend (pid"), "\(harness.stderr)")
        #expect(harness.stderr.contains("state saved"), "\(harness.stderr)")
    }

    /// lumend with a systemd watchdog of `microseconds`, its socket and state in `directory`.
    func withWatchdog(microseconds: Int, directory: TemporaryDirectory, arguments: [String] = []) throws
        -> DaemonProcess
    {
        // `exec` keeps the shell's PID, so WATCHDOG_PID names lumend itself.
        try DaemonProcess(
            arguments: [], environment: ["WATCHDOG_USEC": String(microseconds)], directory: directory,
            prefix: [
                "-c", "WATCHDOG_PID=$$ exec \"$0\" \"$@\"", DaemonProcess.builtBinary("lumend"),
                "--socket", directory.file("lumend.sock"), "--state-dir", directory.file("state"),
            ] + arguments,
            executable: "/bin/sh", setPaths: false)
    }

    /// lumend's threads are its main event loop (the main thread), its connections' loops and its store's
    /// writer, whatever it does: its timers (the watchdog, the status), its signals and the home's real
    /// clock (a command's latency, a fade) run on the main loop, and nothing wakes Dispatch's threads or the
    /// shared executor's. Each is named for what it does, as `ps -L` and `top -H` show.
    @Test func itsThreadsAreItsLoopsAndItsStoresWriterWhateverItDoes() async throws {
        let directory = TemporaryDirectory()
        let daemon = try withWatchdog(
            microseconds: 200_000, directory: directory, arguments: ["--event-loops", "2", "--clock", "real"])
        _ = try #require(await daemon.waitUntilReady(), "no READY=1; stderr: \(daemon.stderr)")
        let socket = directory.file("lumend.sock")
        // A command that takes the demo home's latency and a fade, then a read, a signal it only logs, and a
        // few watchdog pings.
        let set = try await runTool(
            "lumenctl", ["--socket", socket, "set", "kitchen.spot-1", "brightness=40", "--transition", "200"])
        #expect(set.status == 0, "\(set.stderr)")
        let get = try await runTool("lumenctl", ["--socket", socket, "get", "kitchen.spot-1"])
        #expect(get.stdout.contains("brightness"), "\(get.stdout)")
        daemon.signal(SIGHUP)
        var pings = 0
        while pings < 4, let (message, _) = await daemon.notify.next(timeout: .seconds(10)) {
            if message.contains("WATCHDOG=1") { pings += 1 }
        }
        #expect(pings == 4)
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/task")) ?? []
        let names = threads.map {
            ((try? String(contentsOfFile: "/proc/\(daemon.pid)/task/\($0)/comm", encoding: .utf8)) ?? "?")
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // Only the main thread keeps the process's name; a sanitizer's runtime thread, started from it, has it
        // too.
        let unnamed = names.filter { $0 == "lumend" }.count
        #expect(unnamed == 1 || (runningSanitizer != nil && unnamed == 2), "threads: \(names)")
        #expect(names.contains("lumend.loop-0") && names.contains("lumend.loop-1"), "threads: \(names)")
        #expect(names.contains("lumend.store"), "threads: \(names)")
        if runningSanitizer == nil {
            #expect(threads.count == 4, "threads: \(names)")
        } else {
            // A sanitizer's runtime may have a thread of its own.
            #expect(threads.count <= 5, "threads: \(names)")
        }
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    @Test func watchdogPingsArriveAtAboutHalfTheInterval() async throws {
        let directory = TemporaryDirectory()
        let daemon = try withWatchdog(microseconds: 400_000, directory: directory)
        _ = try #require(await daemon.waitUntilReady(), "no READY=1; stderr: \(daemon.stderr)")
        var pings: [Double] = []
        while pings.count < 6 {
            guard let (message, at) = await daemon.notify.next(timeout: .seconds(10)) else { break }
            if message.contains("WATCHDOG=1") { pings.append(at) }
        }
        try #require(pings.count == 6, "expected 6 watchdog pings")
        let average = (pings[5] - pings[1]) / 4
        // Half of 400 ms is 200 ms; allow for a loaded machine but not for pinging at the full interval.
        #expect(average > 0.12 && average < 0.38, "average interval \(average) s; pings at \(pings)")
    }

    @Test func sigtermSaysStoppingFailsPendingWritesSavesStateAndExitsZero() async throws {
        let directory = TemporaryDirectory()
        let fixture = writeFixture(
            directory,
            TestFixtures.instantHome.replacingOccurrences(of: "\"instant\"", with: "{\"kind\": \"fixed\", \"ms\": 500}")
        )
        let daemon = try DaemonProcess(
            arguments: ["--fixture", fixture, "--clock", "virtual"], directory: directory)
        _ = try #require(await daemon.waitUntilReady(), "stderr: \(daemon.stderr)")
        var finished = false
        defer { if !finished { Issue.record("lumend said: \(daemon.stderr)") } }
        let client = try daemon.connect()
        let room = try await client.result("open", ["scope": 0, "connection": "room", "configuration": "lab"])
        let light = try await client.result(
            "open", ["scope": room["scope"]!, "connection": "light", "configuration": "lab.plug"])
        let simulation = try await client.result("open", ["scope": 0, "connection": "simulation"])
        // A write that is confirmed, then one left waiting for its device when SIGTERM comes.
        client.send(
            #"{"jsonrpc":"2.0","id":"a","method":"set","params":{"scope":\#(light["scope"]!.serialized()),"connection":"isOn","value":true}}"#
        )
        _ = try await client.result(
            "call", ["scope": simulation["scope"]!, "connection": "advance", "arguments": ["ms": 600]])
        #expect(try await client.response(to: "a")["result"]?["value"] == true)
        client.send(
            #"{"jsonrpc":"2.0","id":"b","method":"set","params":{"scope":\#(light["scope"]!.serialized()),"connection":"name","value":"Renamed"}}"#
        )
        #expect(try await client.response(to: "b")["result"] != nil)
        client.send(
            #"{"jsonrpc":"2.0","id":"c","method":"set","params":{"scope":\#(light["scope"]!.serialized()),"connection":"isOn","value":false}}"#
        )
        // Make sure the last write was received before signalling: another session reads the command record,
        // as a request of this one would be answered only after the write.
        let watcher = try daemon.connect()
        let watching = try await watcher.result("open", ["scope": 0, "connection": "simulation"])["scope"]!
        for _ in 0..<10_000 {
            let commands = try await watcher.result(
                "call", ["scope": watching, "connection": "commands", "arguments": ["light": "lab.plug"]])
            if commands["value"]?["commands"]?.arrayValue?.last?["change"] == ["isOn": false] { break }
        }
        daemon.signal(SIGTERM)
        let pending = try await client.response(to: "c")
        #expect(pending["error"]?["code"] == .int(LumenError.Code.shuttingDown.rawValue))
        #expect(await daemon.waitForExit() == 0)
        #expect(await daemon.notify.wait(for: "STOPPING=1") != nil)
        let state = try Fixture(
            json: Array(try Data(contentsOf: URL(fileURLWithPath: daemon.stateDirectory + "/state.json"))))
        let plug = state.rooms[0].lights.first { $0.id == "lab.plug" }
        #expect(plug?.state.isOn == true)
        #expect(plug?.name == "Renamed")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
        finished = true
    }

    @Test(arguments: [
        (["--bogus"], "unknown option '--bogus'"),
        (["--clock", "fast"], "--clock must be 'real', 'virtual' or 'auto', not 'fast'"),
        (["--clock"], "--clock needs a value"),
        (["--seed", "-3"], "--seed must be a whole number"),
        (["--log-level", "loud"], "--log-level must be one of"),
        (["--durability=eventual"], "--durability must be 'full' or 'relaxed'"),
        (["--reset=yes"], "--reset takes no value"),
        (["home.json"], "to simulate a fixture, use --fixture home.json"),
    ])
    func badCommandLinesExitTwoAndSayWhatToType(arguments: [String], message: String) async throws {
        let daemon = try DaemonProcess(arguments: arguments)
        #expect(await daemon.waitForExit() == 2)
        #expect(daemon.stderr.contains(message), "stderr: \(daemon.stderr)")
    }

    @Test func aSecondDaemonOnTheSameSocketRefusesToStart() async throws {
        let first = try DaemonProcess()
        _ = try #require(await first.waitUntilReady())
        let second = try DaemonProcess(
            arguments: ["--socket", first.socketPath, "--state-dir", first.directory.file("state2")],
            directory: first.directory, setPaths: false)
        #expect(await second.waitForExit() == 1)
        #expect(second.stderr.contains("another lumend is serving this socket"), "stderr: \(second.stderr)")
        // The first keeps serving.
        let client = try #require(try? first.connect(), "the first daemon stopped serving: \(first.stderr)")
        #expect(try await client.result("hello")["server"] == "lumend")
    }

    @Test func aStaleSocketFileIsReplaced() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("lumend.sock")
        // A socket file nobody listens on, as a crash leaves behind.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        _ = UnixSocketAddress.with(path) { bind(fd, $0, $1) }
        close(fd)
        #expect(FileManager.default.fileExists(atPath: path))
        let daemon = try DaemonProcess(directory: directory)
        _ = try #require(await daemon.waitUntilReady(), "stderr: \(daemon.stderr)")
        #expect(try await daemon.connect().result("hello")["server"] == "lumend")
    }

    @Test func sighupIsLoggedAndTheDaemonKeepsServing() async throws {
        let daemon = try DaemonProcess()
        _ = try #require(await daemon.waitUntilReady())
        let client = try daemon.connect()
        daemon.signal(SIGHUP)
        // Round trips, not sleeps, give the signal handler its turn.
        for _ in 0..<1_000 where !daemon.stderr.contains("SIGHUP ignored") { _ = try await client.result("hello") }
        #expect(daemon.stderr.contains("SIGHUP ignored: lumend reads its options at start"))
        #expect(try await client.result("hello")["server"] == "lumend")
    }

    @Test func helpAndVersionExitZero() async throws {
        let help = try DaemonProcess(arguments: ["--help"])
        #expect(await help.waitForExit() == 0)
        let version = try DaemonProcess(arguments: ["--version"])
        #expect(await version.waitForExit() == 0)
    }
}
