import LumenProtocol

/// The continuous clock, with sleeps that an ``EventLoop``'s timers wake: a task that sleeps on it needs
/// no thread besides the loop's (`Task.sleep` on the system clock wakes through Dispatch's threads).
public struct EventLoopClock: Clock {
    public typealias Instant = ContinuousClock.Instant
    public typealias Duration = Swift.Duration

    /// The loop whose timers wake the sleepers.
    public let loop: EventLoop

    /// A clock whose sleeps `loop` wakes.
    public init(loop: EventLoop) { self.loop = loop }

    public var now: Instant { .now }
    public var minimumResolution: Duration { .milliseconds(1) }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let sleeper = Sleeper()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                guard sleeper.wait(continuation) else { return continuation.resume(throwing: CancellationError()) }
                let id = loop.schedule(at: deadline) { sleeper.finish(throwing: nil) }
                // Cancelled since it began waiting: its cancellation found no timer to cancel, so it is done here.
                if !sleeper.timer(id) { loop.cancelTimer(id) }
            }
        } onCancel: {
            if let id = sleeper.finish(throwing: CancellationError()) { loop.cancelTimer(id) }
        }
    }

    /// One sleep: resumed once, by its timer or its cancellation, whichever comes first.
    private final class Sleeper: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Void, any Error>?
            var timer: UInt64?
            var cancelled = false
            var finished = false
        }
        private let state = Locked(State())

        /// Keeps the continuation; `false` when the sleep was cancelled before it began.
        func wait(_ continuation: CheckedContinuation<Void, any Error>) -> Bool {
            state.withLock { state in
                guard !state.cancelled else {
                    state.finished = true
                    return false
                }
                state.continuation = continuation
                return true
            }
        }

        /// Notes the sleep's timer; `false` when the sleep has ended already, its timer then the caller's to
        /// cancel.
        func timer(_ id: UInt64) -> Bool {
            state.withLock { state in
                guard !state.finished else { return false }
                state.timer = id
                return true
            }
        }

        /// Resumes the sleeper (with `error`, when cancelled) unless already done; returns its timer, to
        /// cancel.
        @discardableResult
        func finish(throwing error: (any Error)?) -> UInt64? {
            let (continuation, timer) = state.withLock { state -> (CheckedContinuation<Void, any Error>?, UInt64?) in
                if error != nil { state.cancelled = true }
                guard !state.finished else { return (nil, nil) }
                guard let continuation = state.continuation else { return (nil, nil) }
                state.finished = true
                state.continuation = nil
                return (continuation, state.timer)
            }
            if let error { continuation?.resume(throwing: error) } else { continuation?.resume() }
            return timer
        }
    }
}
