import Testing

@testable import LumenService

@Suite("Logging to journald or stderr")
struct LoggerTests {
    @Test func journaldOnlyWhenJournalStreamNamesStderrItself() {
        let stderr = (device: UInt64(64_769), inode: UInt64(4_242))
        #expect(Logger.stderrIsJournal("64769:4242", stderr: stderr))
        #expect(!Logger.stderrIsJournal("64769:4243", stderr: stderr))
        #expect(!Logger.stderrIsJournal("8:4242", stderr: stderr))
        #expect(!Logger.stderrIsJournal(nil, stderr: stderr))
        #expect(!Logger.stderrIsJournal("garbage", stderr: stderr))
        #expect(!Logger.stderrIsJournal("64769:4242", stderr: nil))
    }
}
