import Dispatch
import LumenProtocol
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A serial executor with a thread of its own, which runs the jobs queued on it one after another.
///
/// A ``Home`` that is given no executor runs on ``shared``: tests, tools and in-process sessions. lumend gives
/// its home the main event loop instead.
public final class ThreadExecutor: SerialExecutor {
    /// The executor of every home made without one of its own.
    public static let shared = ThreadExecutor(name: "lumen.home")

    private let jobs = Mutex<[UnownedJob]>([])
    /// Signalled when a job arrives while none waits.
    private let arrived = DispatchSemaphore(value: 0)
    /// The thread that runs the jobs (`pthread_self()` as a number, once it has started).
    private let runner = Atomic<UInt>(0)

    /// An executor whose thread starts now, named `name`: only ``shared`` is made.
    private init(name: String) {
        DetachedThread.start(name: name) { [self] in run() }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let wasIdle = jobs.withLock { jobs in
            defer { jobs.append(job) }
            return jobs.isEmpty
        }
        if wasIdle { arrived.signal() }
    }

    private func run() {
        runner.store(Self.currentThread, ordering: .releasing)
        while true {
            arrived.wait()
            while true {
                let batch = jobs.withLock { jobs in
                    defer { jobs = [] }
                    return jobs
                }
                if batch.isEmpty { break }
                for job in batch { job.runSynchronously(on: asUnownedSerialExecutor()) }
            }
        }
    }

    /// Whether the caller is on the executor's thread.
    public var isCurrent: Bool { runner.load(ordering: .acquiring) == Self.currentThread }

    /// The calling thread (`pthread_self()`), as the number ``runner`` holds.
    private static var currentThread: UInt { UInt(pthread_self()) }

    public func isIsolatingCurrentContext() -> Bool? { isCurrent }

    public func checkIsolated() {
        precondition(isCurrent, "not on the executor's thread")
    }
}
