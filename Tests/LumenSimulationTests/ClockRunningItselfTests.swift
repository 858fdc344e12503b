import LumenLoop
import LumenModel
import LumenProtocol
import LumenTestSupport
import Testing

@testable import LumenSimulation

/// A virtual clock that runs itself, and sleeping on the simulation's clock.
@Suite("A clock that runs itself")
struct ClockRunningItselfTests {
    static let fixture = """
        {"schema": 1, "id": "t", "name": "T", "seed": 3, "rooms": [{"id": "hall", "name": "Hall", "lights": [
          {"id": "hall.lamp", "name": "Lamp", "kind": "dimmable", "latency": {"kind": "fixed", "ms": 250}},
          {"id": "hall.far", "name": "Far", "kind": "dimmable", "latency": {"kind": "fixed", "ms": 900}}]}]}
        """

    func makeHome(runsItself: Bool) throws -> Home {
        Home(fixture: try Fixture(json: Array(Self.fixture.utf8)), clock: .virtual, runsItself: runsItself)
    }

    @Test func aCommandIsAnsweredWithoutAnAdvanceAtTheMomentItsLightTookIt() async throws {
        let home = try makeHome(runsItself: true)
        let state = try await home.submit(LightChange(brightness: 40), to: "hall.lamp", transitionMs: 2_000).value
        #expect(state.brightness == 40)
        // The clock stopped where the answer came: the fade that goes on is nobody's wait.
        #expect(await home.nowMilliseconds == 250)
        #expect(await home.clockValue["runsItself"] == true)
    }

    @Test func aSleepEndsWhenItsTimeComesAndTheLightsMoveOnMeanwhile() async throws {
        let home = try makeHome(runsItself: true)
        _ = try await home.submit(LightChange(brightness: 40), to: "hall.lamp", transitionMs: 2_000).value
        try await home.sleep(milliseconds: 60_000)
        #expect(await home.nowMilliseconds == 60_250)
        #expect(try await home.light("hall.lamp").state.brightness == 40)
        #expect(await home.wallTime.iso8601 == "2026-01-01T00:01:00.250Z")
    }

    /// Two waits at once end one jump apart, the nearer first. The quiet moment before each jump ends when the
    /// test lets it, not after real time, so both waits are in before the first jump, however slowly their tasks run.
    @Test func waitsEndInTheOrderOfTheirTimes() async throws {
        let quiet = SteppedClock()
        let fixture = try Fixture(json: Array(Self.fixture.utf8))
        let home = Home(fixture: fixture, clock: .virtual, wakeClock: quiet, runsItself: true)
        let far = Task { try await home.submit(LightChange(brightness: 10), to: "hall.far").value }
        let sleeper = Task { try await home.sleep(milliseconds: 500) }
        while await home.waitingOnSimulation < 2 { await Task.yield() }

        quiet.step()
        try await sleeper.value
        #expect(await home.nowMilliseconds == 500)
        #expect(await home.waitingOnSimulation == 1, "the far light's answer is still to come")

        quiet.step()
        #expect(try await far.value.brightness == 10)
        #expect(await home.nowMilliseconds == 900)
    }

    @Test func aVirtualClockThatDoesNotRunItselfWakesASleeperOnlyWhenAdvanced() async throws {
        let home = try makeHome(runsItself: false)
        let woken = Locked(false)
        let sleeper = Task {
            try await home.sleep(milliseconds: 1_000)
            woken.withLock { $0 = true }
        }
        // The sleep is queued once the clock has an event to advance to.
        while try await home.advanceToNextEvent() == 0 { await Task.yield() }
        try await sleeper.value
        let now = await home.nowMilliseconds
        #expect(woken.withLock { $0 } && now == 1_000)
    }

    @Test func aSleeperIsToldWhenTheHomeStops() async throws {
        let home = try makeHome(runsItself: false)
        let sleeper = Task { try await home.sleep(milliseconds: 1_000) }
        // Whether the sleep began before the stop or after it, it is told the home stopped.
        await home.shutDown()
        await #expect(throws: LumenError.shuttingDown) { try await sleeper.value }
        await #expect(throws: LumenError.self) { try await home.sleep(milliseconds: -1) }
    }

    /// A sleep's `await` may give the home's loop up before the sleeper lies down: a task that prefers no
    /// executor, run by the loop as its task executor too, hops again to take the continuation. A stop queued
    /// meanwhile runs between, and the sleeper must still be told of it, not lie down on a stopped home for good.
    @Test func aStopThatComesBetweenASleepsStartAndItsLyingDownIsToldToIt() async throws {
        // Not running yet: what is queued on it runs in order once a thread runs it.
        let loop = EventLoop(name: "test.home", startingThread: false)
        let home = Home(fixture: try Fixture(json: Array(Self.fixture.utf8)), clock: .virtual, executor: loop)
        // Run here up to its hop to the home, so its first turn is the first thing queued on the loop.
        let sleeper = Task.immediate { try await home.sleep(milliseconds: 1_000) }
        let (asleep, tell) = AsyncStream.makeStream(of: Int.self)
        loop.execute { _ in
            home.assumeIsolated { $0.shutDown() }
            // Behind the sleep's next turn, which its first turn queued before this block ran.
            loop.execute { _ in tell.yield(home.assumeIsolated { $0.waitingOnSimulation }) }
        }
        async let ran: Void = offload { loop.runOnCurrentThread() }
        let leftAsleep = await asleep.first { _ in true } ?? -1
        await loop.shutDown()
        await ran
        #expect(leftAsleep == 0, "a sleeper lay down on the stopped home, and is never woken")
        // Only when told: one lying on the stopped home would hold this test for good.
        if leftAsleep == 0 {
            await #expect(throws: LumenError.shuttingDown) { try await sleeper.value }
        }
    }

    @Test func sleepersAreBoundedAndOneTooManyIsToldWhy() async throws {
        let home = try makeHome(runsItself: false)
        let sleepers = (0..<Home.sleeperLimit).map { _ in Task { try await home.sleep(milliseconds: 1_000) } }
        // Every one of them asleep: the clock has them all to wake at one moment.
        while await home.pending.sleeperCount < Home.sleeperLimit { await Task.yield() }
        await #expect {
            try await home.sleep(milliseconds: 1)
        } throws: { error in
            (error as? LumenError)?.code == .busy
        }
        try await home.advance(byMilliseconds: 1_000)
        for sleeper in sleepers { try await sleeper.value }
    }
}

/// A clock whose sleeps end only as a test lets them, one at a time (``step()``): what a home whose clock runs
/// itself waits its quiet moment on, so that the test, not the speed of its tasks, says when the moment is over.
final class SteppedClock: Clock {
    private let state = Locked<(waiting: [CheckedContinuation<Void, Never>], steps: Int)>(([], 0))

    var now: ContinuousClock.Instant { .now }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
        await withCheckedContinuation { continuation in
            let stepped = state.withLock { state in
                guard state.steps > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.steps -= 1
                return true
            }
            if stepped { continuation.resume() }
        }
    }

    /// Ends the sleep under way, or else the next one as soon as it begins.
    func step() {
        let woken = state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.steps += 1
                return nil as CheckedContinuation<Void, Never>?
            }
            return state.waiting.removeFirst()
        }
        woken?.resume()
    }
}
