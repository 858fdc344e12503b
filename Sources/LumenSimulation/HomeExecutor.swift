import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `Home` actor's executor: runs the actor's jobs one at a time on the thread that asked for them, and
/// lets a thread that finds the actor free do its work there and then, without a task
/// (``Home/now(_:)``).
///
/// A job queued while the actor is free is run soon by ``runner`` (in lumend, on the event loop of the thread
/// that queued it, so a task calling the home from its connection's loop stays on that loop); jobs queued
/// while the actor is busy wait for whoever holds it, who runs them when done. Nothing here waits: a thread
/// that finds the actor busy is told so and goes the asynchronous way.
///
/// ```swift
/// let home = Home(fixture: fixture, clock: .real)
/// let ticket = try home.now { home throws(LumenError) in try home.submit(change, to: light) }
/// ```
public final class HomeExecutor: SerialExecutor {
    /// Runs a block soon, on some thread, without waiting for it.
    public typealias Runner = @Sendable (@escaping @Sendable () -> Void) -> Void

    private struct State {
        /// The thread running the actor's work (`0`: none).
        var owner: UInt = 0
        var jobs: [UnownedJob] = []
        var head = 0
        /// A drain was handed to the runner and has not started yet.
        var drainQueued = false

        var hasJobs: Bool { head < jobs.count }

        mutating func popJob() -> UnownedJob? {
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: jobs.capacity <= 64)
                head = 0
            }
            return job
        }
    }

    /// Jobs one drain runs before it hands the thread back, so that the other work of the runner's thread
    /// (a loop's other connections) gets a turn.
    static let jobsPerDrain = 16

    private let state = Mutex(State())
    private let runner: Runner

    /// An executor whose queued jobs are run by `runner`.
    /// - Parameter runner: where a drain of the queued jobs runs; by default on Dispatch's shared threads.
    public init(runner: Runner? = nil) {
        self.runner = runner ?? { DispatchQueue.global().async(execute: $0) }
    }

    private static var currentThread: UInt { UInt(pthread_self()) }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let drain = state.withLock { state -> Bool in
            state.jobs.append(job)
            guard state.owner == 0, !state.drainQueued else { return false }
            state.drainQueued = true
            return true
        }
        if drain { runner { [self] in self.drain() } }
    }

    /// Runs queued jobs, a few at most, as the actor's owner.
    private func drain() {
        let me = Self.currentThread
        let started = state.withLock { state -> Bool in
            state.drainQueued = false
            guard state.owner == 0 else { return false }
            state.owner = me
            return true
        }
        // Someone entered at once meanwhile; it runs what is queued when it leaves.
        guard started else { return }
        var ran = 0
        while true {
            let job = state.withLock { state -> UnownedJob? in
                guard ran < Self.jobsPerDrain, let job = state.popJob() else {
                    state.owner = 0
                    return nil
                }
                return job
            }
            guard let job else { break }
            job.runSynchronously(on: asUnownedSerialExecutor())
            ran += 1
        }
        queueDrainIfNeeded()
    }

    /// Runs `body` as the actor's owner on the calling thread when no other thread is running the actor's
    /// work; returns `false` at once otherwise.
    ///
    /// Jobs queued before, whose drain has not started yet, run first, as they would have.
    @usableFromInline
    func tryRunNow(_ body: () -> Void) -> Bool {
        let me = Self.currentThread
        let entered = state.withLock { state -> Bool in
            guard state.owner == 0 else { return false }
            state.owner = me
            return true
        }
        guard entered else { return false }
        var ran = 0
        while ran < Self.jobsPerDrain, let job = state.withLock({ $0.popJob() }) {
            job.runSynchronously(on: asUnownedSerialExecutor())
            ran += 1
        }
        body()
        state.withLock { $0.owner = 0 }
        queueDrainIfNeeded()
        return true
    }

    /// Hands a drain to the runner when jobs were queued while the actor was held.
    private func queueDrainIfNeeded() {
        let drain = state.withLock { state -> Bool in
            guard state.owner == 0, state.hasJobs, !state.drainQueued else { return false }
            state.drainQueued = true
            return true
        }
        if drain { runner { [self] in self.drain() } }
    }

    /// Whether the calling thread holds the actor.
    public var isHeldByCurrentThread: Bool {
        let me = Self.currentThread
        return state.withLock { $0.owner == me }
    }

    public func isIsolatingCurrentContext() -> Bool? { isHeldByCurrentThread }

    public func checkIsolated() {
        precondition(isHeldByCurrentThread, "not on the Home actor's executor")
    }
}
