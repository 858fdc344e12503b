import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A thread that runs work handed to it (in lumend, an event loop): where the home's queued jobs can run.
public protocol HomeWorkplace: AnyObject, Sendable {
    /// Runs `block` soon on this workplace's thread, without waiting for it.
    func runHomeWork(_ block: @escaping @Sendable () -> Void)
}

/// Where the home's queued jobs run: each where the thread that queued it works.
public struct HomeWorkplaces: Sendable {
    /// The workplace of the calling thread, if it has one.
    public var current: @Sendable () -> (any HomeWorkplace)?
    /// Where jobs queued from any other thread run; `nil`: Dispatch's shared threads.
    public var fallback: (any HomeWorkplace)?

    /// Workplaces.
    public init(current: @escaping @Sendable () -> (any HomeWorkplace)?, fallback: (any HomeWorkplace)?) {
        self.current = current
        self.fallback = fallback
    }

    /// No workplaces: every job runs on Dispatch's shared threads.
    public static let shared = HomeWorkplaces(current: { nil }, fallback: nil)
}

/// The `Home` actor's executor: runs the actor's jobs one at a time, each on the workplace (event loop) of the
/// thread that queued it, and lets a thread that finds the actor free do its work there and then, without a
/// task (``Home/now(_:)``).
///
/// A job queued while the actor is free is run soon where it was queued, so a task calling the home from its
/// connection's loop stays on that loop; jobs queued while the actor is busy wait for whoever holds it, and
/// are handed to their own workplaces when it lets go. Nothing here blocks: a thread that finds the actor
/// held by a drain, or held longer than a moment by another thread's work made at once, is told so and goes
/// the asynchronous way.
///
/// ```swift
/// let home = Home(fixture: fixture, clock: .real)
/// let ticket = try home.now { home throws(LumenError) in try home.submit(change, to: light) }
/// ```
public final class HomeExecutor: SerialExecutor {
    private struct Queued {
        let job: UnownedJob
        let place: (any HomeWorkplace)?
    }

    private struct State {
        /// The thread running the actor's work (`0`: none).
        var owner: UInt = 0
        var jobs: [Queued] = []
        var head = 0
        /// A drain was handed to a workplace and has not started yet.
        var drainQueued = false

        var first: Queued? { head < jobs.count ? jobs[head] : nil }

        /// The workplace of the first job waiting, when a drain must be handed to it (one is then counted as
        /// queued); `nil` when nothing waits or a drain is already on its way.
        mutating func claimDrain() -> (any HomeWorkplace)?? {
            guard let first, !drainQueued else { return nil }
            drainQueued = true
            return .some(first.place)
        }

        mutating func pop() {
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: jobs.capacity <= 64)
                head = 0
            }
        }
    }

    /// Jobs one drain runs before it hands the thread back, so that the other work of the workplace (a loop's
    /// other connections) gets a turn.
    static let jobsPerDrain = 16

    private let state = Mutex(State())
    /// Whether the actor is held by work made at once (``tryRunNow(_:)``), which is short and never suspends.
    /// Changed under the lock with the owner, read without it by a thread waiting a moment for the actor.
    private let heldAtOnce = Atomic<Bool>(false)
    /// How many threads are waiting a moment for work made at once to let the actor go.
    let waiting = Atomic<Int>(0)
    private let workplaces: HomeWorkplaces
    /// How long, in nanoseconds, a thread that finds the actor held by work made at once waits for it before
    /// it goes the asynchronous way.
    let atOnceWait: UInt64
    /// How long, in nanoseconds, a waiting thread spins before it offers its core to other threads between
    /// looks.
    let spinBeforeYielding: UInt64
    /// Offers the calling thread's core to other threads (`sched_yield`).
    let yieldCore: @Sendable () -> Void

    /// An executor whose queued jobs run at `workplaces`.
    ///
    /// A thread that finds the actor held by another's work made at once waits up to `atOnceWait` for it
    /// (by default a few times what a `set` holds it), then goes the asynchronous way. It spins for
    /// `spinBeforeYielding` (about what a `set` holds the actor), then offers its core to other threads
    /// (`yieldCore`) between looks: work held longer than that has most likely lost its own core for a while,
    /// to a thread that may as well run on this one.
    public init(
        workplaces: HomeWorkplaces = .shared, atOnceWait: Duration = .microseconds(10),
        spinBeforeYielding: Duration = .microseconds(1), yieldCore: @escaping @Sendable () -> Void = { sched_yield() }
    ) {
        self.workplaces = workplaces
        self.atOnceWait = Self.nanoseconds(atOnceWait)
        self.spinBeforeYielding = Self.nanoseconds(spinBeforeYielding)
        self.yieldCore = yieldCore
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }

    private static var currentThread: UInt { UInt(pthread_self()) }

    public func enqueue(_ job: consuming ExecutorJob) {
        let queued = Queued(job: UnownedJob(job), place: workplaces.current())
        let drain = state.withLock { state -> Bool in
            state.jobs.append(queued)
            guard state.owner == 0, !state.drainQueued else { return false }
            state.drainQueued = true
            return true
        }
        if drain { hand(drainAt: queued.place) }
    }

    private func hand(drainAt place: (any HomeWorkplace)?) {
        if let place = place ?? workplaces.fallback {
            place.runHomeWork { [self] in drain(at: place) }
        } else {
            DispatchQueue.global().async { [self] in drain(at: nil) }
        }
    }

    /// Whether a job queued at `place` may run on the thread of `here`.
    private static func belongs(_ place: (any HomeWorkplace)?, to here: (any HomeWorkplace)?) -> Bool {
        place == nil || place === here
    }

    /// Runs queued jobs that belong at `here` as the actor's owner, a few at most, until one belongs
    /// elsewhere.
    private func drain(at here: (any HomeWorkplace)?) {
        let me = Self.currentThread
        let started = state.withLock { state -> Bool in
            state.drainQueued = false
            guard state.owner == 0 else { return false }
            state.owner = me
            return true
        }
        // Someone entered at once meanwhile; it hands on what is queued when it leaves.
        guard started else { return }
        runQueued(at: here, limit: Self.jobsPerDrain, leaving: true)
        queueDrainIfNeeded()
    }

    /// Runs queued jobs that belong at `here`, at most `limit`, as the actor's owner; with `leaving`, lets
    /// the actor go under the same lock that finds no more.
    private func runQueued(at here: (any HomeWorkplace)?, limit: Int, leaving: Bool) {
        var ran = 0
        while true {
            let job = state.withLock { state -> UnownedJob? in
                guard ran < limit, let first = state.first, Self.belongs(first.place, to: here) else {
                    if leaving { state.owner = 0 }
                    return nil
                }
                state.pop()
                return first.job
            }
            guard let job else { return }
            job.runSynchronously(on: asUnownedSerialExecutor())
            ran += 1
        }
    }

    /// Runs `body` as the actor's owner on the calling thread when no other thread is running the actor's
    /// work, or when another thread's work made at once lets it go within ``atOnceWait``; returns `false`
    /// otherwise.
    ///
    /// Jobs queued before from this thread's workplace, whose drain has not started yet, run first, as they
    /// would have.
    @usableFromInline
    func tryRunNow(_ body: () -> Void) -> Bool {
        let me = Self.currentThread
        var deadline: UInt64?
        var jobsWaiting = false
        while true {
            let entered = state.withLock { state -> Bool? in
                guard state.owner == 0 else { return state.owner == me ? false : nil }
                state.owner = me
                heldAtOnce.store(true, ordering: .relaxed)
                jobsWaiting = state.first != nil
                return true
            }
            if entered == true { break }
            // Held by this very thread (work made at once calling in again), or by a drain, whose jobs may
            // take long: the asynchronous way.
            guard entered == nil, heldAtOnce.load(ordering: .relaxed) else { return false }
            // Held by another thread's work made at once, a few microseconds of work that never suspends: a
            // task and a wake-up of this loop would cost more than waiting for it. Only a moment, though, in
            // case that thread was descheduled meanwhile.
            let start = Self.continuousNanoseconds()
            let until = deadline ?? start + atOnceWait
            deadline = until
            waiting.add(1, ordering: .relaxed)
            let letGo = wait(whileHeldAtOnceUntil: until, yieldingAfter: start + spinBeforeYielding)
            waiting.subtract(1, ordering: .relaxed)
            guard letGo else { return false }
        }
        if jobsWaiting { runQueued(at: workplaces.current(), limit: Self.jobsPerDrain, leaving: false) }
        body()
        // Let go, and hand on what was queued meanwhile, in one step: a `set` takes the lock twice, not more.
        let place = state.withLock { state -> (any HomeWorkplace)?? in
            state.owner = 0
            heldAtOnce.store(false, ordering: .relaxed)
            return state.claimDrain()
        }
        if let place { hand(drainAt: place) }
        return true
    }

    /// Waits until the actor is no longer held at once (`true`) or the clock reaches `deadline` (`false`):
    /// spinning, then from `yieldTime` on offering the core between looks.
    ///
    /// Work made at once is short, so a hold that outlasts the spin most likely means its thread lost its
    /// core (to a client woken on it, for instance) and will not let go until it has it back. Spinning on
    /// meanwhile would burn this core for nothing; offered, it runs a thread that has work, or the holder
    /// itself when both share a core.
    private func wait(whileHeldAtOnceUntil deadline: UInt64, yieldingAfter yieldTime: UInt64) -> Bool {
        while true {
            // The clock is read once in a while: a load of a line another core is writing costs less.
            for _ in 0..<64 where !heldAtOnce.load(ordering: .relaxed) { return true }
            let now = Self.continuousNanoseconds()
            if now >= deadline { return false }
            if now >= yieldTime { yieldCore() }
        }
    }

    /// The clock `ContinuousClock` reads on Linux (`CLOCK_BOOTTIME`), in nanoseconds, read without building a
    /// `Duration`: every command reads it.
    static func continuousNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// Hands a drain to the workplace of the first job waiting, when jobs were queued while the actor was
    /// held.
    private func queueDrainIfNeeded() {
        let place = state.withLock { state -> (any HomeWorkplace)?? in
            guard state.owner == 0 else { return nil }
            return state.claimDrain()
        }
        if let place { hand(drainAt: place) }
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
