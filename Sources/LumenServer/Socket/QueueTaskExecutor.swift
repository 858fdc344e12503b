import Dispatch

/// Runs a task's jobs on a Dispatch queue. A connection's session task prefers the connection's own queue,
/// where its socket events are handled, so a request goes from the socket to the session (and, through
/// SE-0417's executor preference, into the `Home` actor) without waking another thread.
final class QueueTaskExecutor: TaskExecutor {
    let queue: DispatchQueue

    init(queue: DispatchQueue) { self.queue = queue }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
