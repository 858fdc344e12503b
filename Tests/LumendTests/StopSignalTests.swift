import Foundation
import LumenTestSupport
import Testing

/// A stop at any moment is a clean stop: SIGTERM or SIGINT from the first instant of start-up to well after
/// `READY=1`. Before `READY=1` lumend exits 0 with its state whole; after it, it sends `STOPPING=1` and exits
/// 0. `make lifecycle` runs more rounds (`LUMEN_LIFECYCLE_ROUNDS`).
@Suite("Stop signals at every moment", .timeLimit(.minutes(10)))
struct StopSignalTests {
    static let rounds = ProcessInfo.processInfo.environment["LUMEN_LIFECYCLE_ROUNDS"].flatMap(Int.init) ?? 1
    /// Delays after `READY=1`, in microseconds.
    static let afterReady = [0, 0, 100, 300, 1_000, 2_000, 5_000, 10_000, 30_000, 100_000]

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
        for _ in 0..<Self.rounds {
            for delay in Self.afterReady {
                let daemon = try DaemonProcess(arguments: ["--clock", "virtual"])
                guard await daemon.waitUntilReady() != nil else {
                    failures.append("no READY=1: \(daemon.stderr)")
                    continue
                }
                if delay > 0 { try await Task.sleep(for: .microseconds(delay)) }
                daemon.signal(signal)
                if let wrong = await cleanStop(daemon, readySeen: true) {
                    failures.append("signal \(signal) \(delay) µs after READY=1: \(wrong)")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test func aStopRightAfterReadyUnderSocketActivationIsNeverLost() async throws {
        var failures: [String] = []
        for _ in 0..<Self.rounds {
            for delay in Self.afterReady {
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
                // systemd-socket-activate starts lumend on the first connection, as systemd does.
                guard await waitForPath(socket) else {
                    failures.append("systemd-socket-activate never listened")
                    continue
                }
                // The socket file appears at bind, a moment before systemd-socket-activate listens on it.
                var client: LineClient?
                for _ in 0..<200 where client == nil {
                    client = try? LineClient(path: socket)
                    if client == nil { try await Task.sleep(for: .milliseconds(5)) }
                }
                guard await daemon.waitUntilReady() != nil else {
                    failures.append("no READY=1: \(daemon.stderr)")
                    continue
                }
                if delay > 0 { try await Task.sleep(for: .microseconds(delay)) }
                daemon.signal(SIGTERM)
                if let wrong = await cleanStop(daemon, readySeen: true) {
                    failures.append("SIGTERM \(delay) µs after READY=1: \(wrong)")
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
            for delay in [0, 200, 1_000, 5_000, 20_000, 50_000] {
                let directory = TemporaryDirectory()
                let daemon = try DaemonProcess(arguments: ["--fixture", fixture], directory: directory)
                if delay > 0 { try await Task.sleep(for: .microseconds(delay)) }
                daemon.signal(SIGTERM)
                let readySeen = await daemon.notify.wait(for: "READY=1", timeout: .milliseconds(1)) != nil
                if let wrong = await cleanStop(daemon, readySeen: readySeen) {
                    failures.append("SIGTERM \(delay) µs after start: \(wrong); \(daemon.stderr.suffix(300))")
                    continue
                }
                // Whatever it had done, the next start finds the state whole.
                let next = try DaemonProcess(arguments: ["--fixture", fixture], directory: directory)
                guard await next.waitUntilReady() != nil else {
                    failures.append("after a stop \(delay) µs into start-up, the next start failed: \(next.stderr)")
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
