import Foundation
import LumenTestSupport
import Testing

@Suite("Where lumend logs", .timeLimit(.minutes(2)))
struct LoggingTests {
    /// Started from a shell inside a systemd session, lumend inherits a `JOURNAL_STREAM` that names another
    /// stream than its stderr: the log belongs on stderr, as systemd documents.
    @Test func anInheritedJournalStreamThatIsNotStderrLeavesTheLogOnStderr() async throws {
        let daemon = try DaemonProcess(environment: ["JOURNAL_STREAM": "8:12345"])
        _ = try #require(await daemon.waitUntilReady(), "no READY=1")
        #expect(daemon.stderr.contains("ready on"), "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }
}
