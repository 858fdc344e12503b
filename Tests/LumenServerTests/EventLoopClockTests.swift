import Dispatch
import LumenLoop
import Testing

@testable import LumenServer

@Suite("Sleeping on an event loop's clock", .timeLimit(.minutes(1)))
struct EventLoopClockTests {
    /// A sleep is a timer on the loop at its deadline, and waits until that timer fires.
    @Test func aSleepWaitsForATimerAtItsDeadline() async throws {
        let loop = EventLoop(name: "test.clock")
        let clock = EventLoopClock(loop: loop)
        let deadline = clock.now + .seconds(3_600)
        let sleeping = Task { try await clock.sleep(until: deadline) }
        while loop.timerDeadlines.isEmpty { await Task.yield() }
        #expect(loop.timerDeadlines == [deadline])
        // The loop takes a turn, looking for timers due, and keeps this one.
        await loop.executeAndWait { _ in }
        #expect(loop.timerDeadlines == [deadline])
        // Still asleep: cancelled now, it throws rather than returning as a woken sleep would.
        sleeping.cancel()
        await #expect(throws: CancellationError.self) { try await sleeping.value }
        #expect(loop.timerDeadlines.isEmpty)
        await loop.shutDown()
    }

    /// A sleep whose deadline has come ends once the loop runs its timer, and leaves none behind.
    @Test func aSleepEndsWhenItsDeadlineHasCome() async throws {
        let loop = EventLoop(name: "test.clock")
        let clock = EventLoopClock(loop: loop)
        try await clock.sleep(until: clock.now)
        #expect(loop.timerDeadlines.isEmpty)
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
        #expect(loop.timerDeadlines.isEmpty)
        await loop.shutDown()
    }

    /// Timers due at the same moment run in the order they were scheduled.
    @Test func timersDueTogetherRunInTheOrderScheduled() async throws {
        let loop = EventLoop(name: "test.clock")
        let deadline = ContinuousClock.now
        let (order, recorded) = AsyncStream.makeStream(of: Int.self)
        // Held up until all are scheduled, so that they are due in one turn.
        let gate = DispatchSemaphore(value: 0)
        loop.execute { _ in gate.wait() }
        for index in 0..<50 { loop.schedule(at: deadline) { recorded.yield(index) } }
        loop.schedule(at: deadline) { recorded.finish() }
        gate.signal()
        var seen: [Int] = []
        for await index in order { seen.append(index) }
        #expect(seen == Array(0..<50))
        await loop.shutDown()
    }
}
