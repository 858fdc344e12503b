import Foundation
import LumenTestSupport
import Testing

/// A stop at any moment is a clean stop: SIGTERM or SIGINT from the first instant of start-up to well after
/// `READY=1`. Before `READY=1` lumend exits 0 with its state whole; after it, it sends `STOPPING=1` and exits
/// 0. `make lifecycle` runs more rounds (`LUMEN_LIFECYCLE_ROUNDS`).
///
/// Moments are events, not sleeps: the signal follows `READY=1` after a number of round trips through the
/// daemon (none, 1, 3, … 1,000), which between them span from the first microsecond to beyond 100 ms after
/// it; during start-up it follows the appearance of each thing lumend creates (its state directory, its
/// lock, its first snapshot, its socket).
@Suite("Stop signals at every moment", .timeLimit(.minutes(10)))
struct StopSignalTests {
    static let rounds = ProcessInfo.processInfo.environment["LUMEN_LIFECYCLE_ROUNDS"].flatMap(Int.init) ?? 1
    /// Round trips between `READY=1` and the signal; the last, `nil`, keeps going until 120 ms after it.
    static let afterReady: [Int?] = [0, 0, 1, 3, 10, 30, 100, 300, nil]

    /// Makes `count` round trips through the daemon at `socket` (or, for `nil`, as many as fit in the first
    /// 120 ms after `readyAt`, monotonic seconds), so that the signal lands while it serves.
    /// - Returns: how long after `readyAt` the round trips ended, in milliseconds.
    func roundTrips(_ count: Int?, socket: String, readyAt: Double) async throws -> Double {
        func sinceReady() -> Double {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            return (Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 - readyAt) * 1_000
        }
        if count != 0 {
            let client = try LineClient(path: socket)
            var made = 0
            while count.map({ made < $0 }) ?? (sinceReady() < 120) {
                _ = try await client.result("hello")
                made += 1
            }
        }
        return sinceReady()
    }

    /// Waits for the stop to be clean; returns what was wrong, or `nil`.
    func cleanStop(_ daemon: DaemonProcess, readySeen: Bool) async -> String? {
        guard let status = await daemon.waitForExit(timeout: .seconds(15)) else {
            return "still running 15 s after the signal (the signal was lost)"
        }
        guard status == 0 else {
            return "exited \(status)\(status > 128 ? ", killed by signal \(status - 128)" : ""): "
                + daemon.stderr.suffix(3_000)
        }
        // Sent before the exit; the wait is only for the listener thread on a loaded machine.
        if readySeen, await daemon.notify.wait(for: "STOPPING=1", timeout: .seconds(10)) == nil {
            return "no STOPPING=1 after READY=1: " + daemon.stderr.suffix(1_000)
        }
        return nil
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aStopRightAfterReadyIsNeverLost(_ signal: Int32) async throws {
        var failures: [String] = []
        var reached: [Double] = []
        for _ in 0..<Self.rounds {
            for trips in Self.afterReady {
                let daemon = try DaemonProcess(arguments: ["--clock", "virtual"])
                guard let readyAt = await daemon.readyTime() else {
                    failures.append("no READY=1: \(daemon.stderr)")
                    continue
                }
                let after = try await roundTrips(trips, socket: daemon.socketPath, readyAt: readyAt)
                daemon.signal(signal)
                reached.append(after)
                if let wrong = await cleanStop(daemon, readySeen: true) {
                    failures.append(
                        "signal \(signal) after \(trips.map(String.init) ?? "120 ms of") round trips (\(after) ms after READY=1): \(wrong)"
                    )
                }
            }
        }
        print("signal \(signal): sent from \(Self.span(reached)) after READY=1")
        #expect(failures.isEmpty, "\(failures)")
        // The moments must reach from the instant of READY=1 to beyond 100 ms after it, or the test says less
        // than it claims.
        #expect(reached.max() ?? 0 >= 100, "the latest signal came \(reached.max() ?? 0) ms after READY=1")
    }

    static func span(_ milliseconds: [Double]) -> String {
        String(format: "%.2f ms to %.1f ms", milliseconds.min() ?? 0, milliseconds.max() ?? 0)
    }

    @Test func aStopRightAfterReadyUnderSocketActivationIsNeverLost() async throws {
        var failures: [String] = []
        for _ in 0..<Self.rounds {
            for trips in Self.afterReady {
                let directory = TemporaryDirectory()
                let socket = directory.file("activated.sock")
                let daemon = try DaemonProcess(
                    arguments: ["--state-dir", directory.file("state"), "--clock", "virtual"], directory: directory,
                    prefix: [
                        "-l", socket, "-E", "NOTIFY_SOCKET", "-E", "SWIFT_BACKTRACE", "-E", "TSAN_OPTIONS", "-E",
                        "ASAN_OPTIONS",
                        DaemonProcess.builtBinary("lumend"),
                    ],
                    executable: "/usr/bin/systemd-socket-activate", setPaths: false)
                // systemd-socket-activate starts lumend on the first connection, as systemd does; it says so
                // once it listens (the socket file appears a moment earlier, at bind).
                guard await daemon.waitForStderr(containing: "Listening on \(socket) as ") else {
                    failures.append("systemd-socket-activate never listened: \(daemon.stderr)")
                    continue
                }
                let client = try LineClient(path: socket)
                guard let readyAt = await daemon.readyTime() else {
                    failures.append("no READY=1: \(daemon.stderr)")
                    continue
                }
                let after = try await roundTrips(trips, socket: socket, readyAt: readyAt)
                daemon.signal(SIGTERM)
                if let wrong = await cleanStop(daemon, readySeen: true) {
                    failures.append(
                        "SIGTERM after \(trips.map(String.init) ?? "120 ms of") round trips (\(after) ms after READY=1): \(wrong)"
                    )
                }
                withExtendedLifetime(client) {}
            }
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test func aStopDuringStartUpExitsCleanlyWithTheStateWhole() async throws {
        var failures: [String] = []
        let fixture = TestFixtures.repositoryFixtures + "/office-floor.json"
        for _ in 0..<Self.rounds {
            for moment in StartUpMoment.allCases {
                let directory = TemporaryDirectory()
                let daemon = try DaemonProcess(arguments: ["--fixture", fixture], directory: directory)
                for path in moment.paths(daemon) where !(await waitForPath(path)) {
                    failures.append("\(path) never appeared: \(daemon.stderr)")
                }
                daemon.signal(SIGTERM)
                let readySeen = await daemon.notify.wait(for: "READY=1", timeout: .milliseconds(1)) != nil
                if let wrong = await cleanStop(daemon, readySeen: readySeen) {
                    failures.append("SIGTERM \(moment): \(wrong); \(daemon.stderr.suffix(300))")
                    continue
                }
                // Whatever it had done, the next start finds the state whole.
                let next = try DaemonProcess(arguments: ["--fixture", fixture], directory: directory)
                guard await next.waitUntilReady() != nil else {
                    failures.append("after a SIGTERM \(moment), the next start failed: \(next.stderr)")
                    continue
                }
                if next.stderr.contains("warning") { failures.append("the next start warned: \(next.stderr)") }
                next.signal(SIGTERM)
                _ = await next.waitForExit()
            }
        }
        #expect(failures.isEmpty, "\(failures)")
    }
}

/// A moment during start-up, marked by what lumend has created by then.
enum StartUpMoment: CaseIterable, CustomStringConvertible {
    case atSpawn, stateDirectory, lock, snapshot, socket

    /// What must exist before the signal, each in a directory that the one before it makes.
    func paths(_ daemon: DaemonProcess) -> [String] {
        let state = daemon.stateDirectory
        switch self {
        case .atSpawn: return []
        case .stateDirectory: return [state]
        case .lock: return [state, state + "/lumend.lock"]
        case .snapshot: return [state, state + "/state.json"]
        case .socket: return [daemon.socketPath]
        }
    }

    var description: String {
        switch self {
        case .atSpawn: "at spawn"
        case .stateDirectory: "once the state directory exists"
        case .lock: "once the state directory is locked"
        case .snapshot: "once the first snapshot is written"
        case .socket: "once the socket is bound"
        }
    }
}
