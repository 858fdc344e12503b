import LumenLoop
import Synchronization

/// A home's executor that counts the jobs it is given, and runs them on an event loop of its own as lumend's main
/// loop runs the home: each job is a turn of the home that a task hopped to it for, so a test can tell how many
/// hops an answer took.
final class TurnCountingExecutor: SerialExecutor {
    let loop = EventLoop(name: "test.home")
    /// The jobs given so far.
    let turns = Atomic<Int>(0)

    func enqueue(_ job: consuming ExecutorJob) {
        turns.add(1, ordering: .relaxed)
        let job = UnownedJob(job)
        // Run as this executor's, not the loop's: the home is isolated to this one.
        loop.execute { [self] _ in job.runSynchronously(on: asUnownedSerialExecutor()) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    func isIsolatingCurrentContext() -> Bool? { loop.isCurrent }

    func checkIsolated() { loop.checkIsolated() }
}
