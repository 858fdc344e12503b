import Foundation
import LumenTestSupport
import Testing

/// lumend out of file descriptors: it stops accepting for a while rather than spin on a listener it cannot
/// take connections from, says so once, and takes the waiting connections once some close.
@Suite("Out of file descriptors", .timeLimit(.minutes(2)))
struct DescriptorExhaustionTests {
    /// The lines of the daemon's log about failing to accept for want of descriptors.
    static func acceptFailures(_ daemon: DaemonProcess) -> Int {
        daemon.stderr.split(separator: "\n").count { $0.contains("accept") && $0.contains("Too many open files") }
    }

    @Test func outOfDescriptorsTheDaemonPausesAcceptingSaysSoOnceAndResumesWhenSomeClose() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit") else {
            print("SKIPPED: needs /usr/bin/prlimit")
            return
        }
        let directory = TemporaryDirectory()
        // A hard limit lumend cannot raise: some 20 descriptors left for clients once it has started.
        let daemon = try DaemonProcess(
            arguments: [
                "--socket", directory.file("s.sock"), "--state-dir", directory.file("state"), "--event-loops", "1",
                // Connections wait their turn for longer than the idle limit on a loaded machine: not closed
                // for it.
                "--request-timeout", "600", "--exit-with-parent",
            ],
            directory: directory, prefix: ["--nofile=40:40", DaemonProcess.builtBinary("lumend")],
            executable: "/usr/bin/prlimit", setPaths: false)
        _ = try #require(await daemon.waitUntilReady(), "no READY=1; stderr: \(daemon.stderr)")
        var clients: [LineClient] = []
        for _ in 0..<40 { clients.append(try LineClient(path: directory.file("s.sock"))) }
        let said = await waitForCondition(in: directory.path) { Self.acceptFailures(daemon) > 0 }
        #expect(said, "\(daemon.stderr)")
        // The loop that accepts serves the first client too: each answer is a turn of that loop, and none of
        // them tries the listener again.
        for _ in 0..<20 { #expect(try await clients[0].result("hello")["server"] == "lumend") }
        #expect(Self.acceptFailures(daemon) == 1, "\(daemon.stderr.suffix(2_000))")
        // Room made, the connections that waited are taken.
        clients.removeFirst(37)
        for client in clients { #expect(try await client.result("hello")["server"] == "lumend") }
        #expect(daemon.stderr.contains("accepting connections again"), "\(daemon.stderr.suffix(2_000))")
        #expect(Self.acceptFailures(daemon) == 1)
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }
}
