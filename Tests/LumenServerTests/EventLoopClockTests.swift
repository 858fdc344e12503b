import Testing

@testable import LumenServer

@Suite("Sleeping on an event loop's clock", .timeLimit(.minutes(1)))
struct EventLoopClockTests {
    @Test func aSleepEndsAtItsDeadline() async throws {
        let loop = EventLoop(name: "test.clock")
        let clock = EventLoopClock(loop: loop)
        let deadline = clock.now + .milliseconds(20)
        try await clock.sleep(until: deadline)
        #expect(clock.now >= deadline)
        #expect(loop.timerCount == 0)
        await loop.shutDown()
    }

    /// However soon after it begins a sleep is cancelled (before its timer is noted, say), it throws and
    /// leaves no timer on the loop.
    @Test func aCancelledSleepLeavesNoTimer() async throws {
        let loop = EventLoop(name: "test.clock")
        let clock = EventLoopClock(loop: loop)
        for _ in 0..<500 {
            let sleeping = Task { try await clock.sleep(for: .seconds(3_600)) }
            sleeping.cancel()
            await #expect(throws: CancellationError.self) { try await sleeping.value }
        }
        // A timer is dropped as it is cancelled, on the thread that cancels: none is left to wait for.
        #expect(loop.timerCount == 0)
        await loop.shutDown()
    }
}
