import LumenProtocol
import LumenSimulation

extension Home {
    /// What `work` (a request to a front over this home, on the virtual clock) returns, moving the clock as a
    /// clock that runs itself does: only while someone waits on the simulation, and then to the next event.
    ///
    /// A request answered at once moves the clock not at all, and one that waits for its light moves it as far as
    /// its light takes, however slow the machine: the events nobody waits for (an alert's end, a bridge's budget
    /// refilling, a light found by a search) come no earlier than the test moves the clock to them itself.
    /// - Parameter limit: real time after which `work` is taken to wait on something the home does not count.
    /// - Throws: ``NoAnswer`` when `work` has not returned by `limit`.
    public nonisolated func driving<T: Sendable>(
        limit: Duration = .seconds(10), _ work: @escaping @Sendable () async -> T
    ) async throws -> T {
        let answer = Locked<T?>(nil)
        let task = Task {
            let value = await work()
            answer.withLock { $0 = value }
        }
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let value = answer.withLock({ $0 }) { return value }
            // Nobody waiting: the request is on its way to the home, or on its way back with its answer. Any
            // other sleeper on the home (a simulation scope's `sleep`) counts as waiting too, and moves the clock.
            if await waitingOnSimulation > 0 { _ = try await advanceToNextEvent() } else { await Task.yield() }
        }
        // One last look: a stall of the whole process on a loaded machine may have let the answer come just as the
        // deadline passed.
        if let value = answer.withLock({ $0 }) { return value }
        task.cancel()
        throw NoAnswer(limit: limit)
    }
}

/// A request that did not return within its limit: it waits on something the home does not count, which a clock
/// that runs itself would never jump for either.
public struct NoAnswer: Error, CustomStringConvertible {
    /// The real time given.
    public let limit: Duration

    /// Says what was given.
    public var description: String { "no answer within \(limit) of real time" }
}
