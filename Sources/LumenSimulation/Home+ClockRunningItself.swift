import LumenProtocol

/// A virtual clock that runs itself, and sleeping on the simulation's clock.
///
/// Application code under test waits: for a command's answer, for a question to a bulb, or for time to pass
/// (``Home/sleep(milliseconds:)``, which a test harness puts in place of the application's own sleep). On a clock
/// that runs itself, whenever someone waits so and no front has taken a request for a moment of real time
/// (``Home/quietBeforeJump``, counted again from each request, ``Home/noteRequest()``), the clock jumps to the
/// next event and carries events out, one after another, until one of them ends a wait. The woken client's
/// next request then comes at that moment of simulated time, which is what makes a session replay byte for
/// byte: code that runs between two waits takes no simulated time, however long it takes on the machine. The
/// clock cannot tell a client that is working from one that is idle, so it jumps once anyone waits: code that
/// goes on working while a request it sent is unanswered (several threads, a request sent without waiting, a
/// LIFX change sent with no acknowledgement asked) may see the clock jump meanwhile.
extension Home {
    /// How long the home waits without a request, in real time, before a clock that runs itself jumps: long
    /// enough for requests already on their way (pipelined, from another task or thread of the same client, a
    /// round trip or two apart on a busy machine) to arrive, short enough that a test of a hundred waits takes
    /// half a second. At 1 ms, two asyncio sleepers started together woke out of order about one run in ten on a
    /// busy machine; at 5 ms, none in thirty.
    static let quietBeforeJump: Duration = .milliseconds(5)

    /// The most sleepers at once: each holds a little memory until its time comes, up to a day away.
    static let sleeperLimit = 4_096

    /// Notes that a front took a request: a clock that runs itself waits for a quiet moment after the last one
    /// before it jumps. Costs a relaxed atomic add, and nothing on other clocks.
    package nonisolated func noteRequest() {
        guard clockRunsItself else { return }
        requestsTaken.add(1, ordering: .relaxed)
    }

    /// Returns once the simulation's clock has moved `ms` on: by `advance` or by itself on the virtual clock,
    /// as time passes on the real one.
    /// - Throws: ``LumenError`` `invalidParams` for a span out of range; `busy` with ``sleeperLimit`` asleep
    ///   already; `shuttingDown` when the home stops first.
    package func sleep(milliseconds ms: Double) async throws(LumenError) {
        var refusal: LumenError?
        // Checked in the turn the sleeper lies down in, not before the `await`: that may give the home's executor
        // up first (a task that prefers no executor, run by an event loop that is its task executor as well, hops
        // again to take the continuation), and a stop or other sleepers may come between.
        let woken = await withCheckedContinuation { continuation in
            refusal = sleepRefusal(ms)
            guard refusal == nil else { return continuation.resume(returning: false) }
            refreshRealTime()
            let number = pending.takeNumber()
            pending.addSleeper(continuation, as: number)
            schedule(.wake(number), at: nowMicros + Self.micros(ms))
        }
        if let refusal { throw refusal }
        guard woken else { throw LumenError.shuttingDown }
    }

    /// Why a sleep of `ms` is refused now, if it is.
    private func sleepRefusal(_ ms: Double) -> LumenError? {
        if isShutDown { return .shuttingDown }
        if let problem = SimulatedDurations.advanceProblem(ms, "ms") { return LumenError(.invalidParams, problem) }
        guard pending.sleeperCount < Self.sleeperLimit else {
            return LumenError(
                .busy, "\(Self.sleeperLimit) are asleep on the simulation's clock already; wait for some to wake")
        }
        return nil
    }

    /// How many are waiting on the simulation: commands not yet answered, questions to lights, and sleepers. What
    /// a clock that runs itself jumps for, and what a test moving a virtual clock for a request's answer looks at
    /// before each move.
    package var waitingOnSimulation: Int { pending.count }

    /// A clock that runs itself: makes sure a jump follows once nothing has come for a moment, when someone
    /// waits on the simulation.
    func armJump() {
        guard !isJumpArmed, !isShutDown, waitingOnSimulation > 0 else { return }
        isJumpArmed = true
        let clock = wakeClock
        Task(executorPreference: wakeExecutor) { [weak self] in
            // A whole quiet moment with no request taken: requests on their way (pipelined, or from another
            // thread of the same client) come first.
            var taken: UInt64?
            while let home = self, home.requestsTaken.load(ordering: .relaxed) != taken {
                taken = home.requestsTaken.load(ordering: .relaxed)
                try? await clock.sleep(for: Self.quietBeforeJump)
            }
            await self?.jump()
        }
    }

    /// Carries out the events to come, one after another, until one ends a wait (so that the woken client's next
    /// request comes at that moment) or none is left; then waits for the next quiet moment if anyone still waits.
    func jump() {
        isJumpArmed = false
        let waiting = waitingOnSimulation
        while !isShutDown, waitingOnSimulation > 0, waitingOnSimulation >= waiting, let due = queue.nextDue {
            runEvents(notAfter: due)
        }
        armJump()
    }
}
