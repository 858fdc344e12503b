import LumenProtocol
import LumenService
import Testing

/// What a notifier was asked to send, message by message.
final class SentNotifications: ServiceNotifier {
    private let messages = Locked<[String]>([])
    func notify(_ state: String) { messages.withLock { $0.append(state) } }
    var all: [String] { messages.withLock { $0 } }
    /// Every assignment sent, in order, whichever message it was in.
    var lines: [String] { all.flatMap { $0.split(separator: "\n").map(String.init) } }
}

@Suite("Service notifier")
struct ServiceNotifierTests {
    @Test func noStatusIsPassedOnOnceStoppingIsSent() {
        let sent = SentNotifications()
        let notifier = StopAwareNotifier(sending: sent)
        notifier.notify("READY=1")
        notifier.notify("STATUS=Serving")
        notifier.notify("STATUS=Stopping\nSTOPPING=1")
        notifier.notify("STATUS=Serving 2 clients")
        notifier.notify("WATCHDOG=1\nSTATUS=late")
        notifier.notify("WATCHDOG=1")
        #expect(sent.all == ["READY=1", "STATUS=Serving", "STATUS=Stopping\nSTOPPING=1", "WATCHDOG=1", "WATCHDOG=1"])
    }

    @Test func aStatusAfterStoppingInTheSameMessageIsDropped() {
        let sent = SentNotifications()
        let notifier = StopAwareNotifier(sending: sent)
        notifier.notify("STOPPING=1\nSTATUS=late")
        #expect(sent.all == ["STOPPING=1"])
    }

    /// Reporters on other threads race the shutdown: whatever the order, each status is sent before
    /// `STOPPING=1` or not at all.
    @Test func aStatusFromAnotherThreadNeverFollowsStopping() async {
        let sent = SentNotifications()
        let notifier = StopAwareNotifier(sending: sent)
        await withTaskGroup(of: Void.self) { group in
            for reporter in 0..<4 {
                group.addTask { for report in 0..<500 { notifier.notify("STATUS=\(reporter).\(report)") } }
            }
            group.addTask { notifier.notify("STOPPING=1") }
        }
        let lines = sent.lines
        let stopping = lines.firstIndex(of: "STOPPING=1")
        #expect(stopping == lines.indices.last)
    }
}
