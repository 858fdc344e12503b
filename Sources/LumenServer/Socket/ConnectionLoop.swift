import Foundation
import Synchronization

/// A connection's place on an ``EventLoop``: its socket's registration there, and the executor its
/// session's task runs on (the loop's thread, a few jobs a turn).
///
/// Everything it does to the socket happens on the loop's thread, in the order asked: what is asked from
/// another thread is handed to the loop first. So a request that arrives is read, handled and answered on one
/// thread, among the other connections that loop serves.
final class ConnectionLoop: TaskExecutor {
    let fd: Int32
    let eventLoop: EventLoop
    /// The socket's registration on the loop: unique for the process's life, so a descriptor number reused
    /// after a close can never reach this connection's handlers.
    private let key = EventLoop.nextKey.add(1, ordering: .relaxed).newValue

    /// A job, stamped with the loop's ``EventLoop/nextPlace`` when it was queued.
    private struct StampedJob {
        let job: UnownedJob
        let place: UInt64
    }

    /// The session's jobs waiting for their turn: the loop takes a few at a time from each connection in
    /// turn, so one whose many writes are confirmed at once (a group commit) does not queue its thousands
    /// of replies ahead of another connection's one.
    private let jobs = Mutex<(queue: [StampedJob], scheduled: Bool)>(([], false))

    /// A connection for `fd` on `eventLoop`; it owns the descriptor and closes it when it stops.
    init(fd: Int32, on eventLoop: EventLoop) {
        self.fd = fd
        self.eventLoop = eventLoop
    }

    /// Registers the socket, watched for reading. The handlers run on the loop's thread when the socket is
    /// readable (given the loop's state, to read with) or writable, and that is wanted.
    /// `outputWaiting` runs when ``requestWrite()`` asked.
    func start(
        readable: @escaping @Sendable (LoopContext) -> Void, writable: @escaping @Sendable () -> Void,
        outputWaiting: @escaping @Sendable () -> Void = {}
    ) {
        eventLoop.execute { [fd, key] context in
            context?.register(key, fd: fd) { readiness, context in
                if readiness.readable { readable(context) }
                if readiness.writable { writable() }
                if readiness.outputWaiting { outputWaiting() }
            }
            context?.watch(key, readable: true, writable: nil)
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let schedule = jobs.withLock { jobs -> Bool in
            // Stamped under the lock, so the queue's stamps never go down.
            jobs.queue.append(StampedJob(job: job, place: eventLoop.nextPlace))
            defer { jobs.scheduled = true }
            return !jobs.scheduled
        }
        if schedule { eventLoop.schedule(self) }
    }

    /// Whether jobs are waiting for a turn.
    var hasJobsWaiting: Bool { jobs.withLock { !$0.queue.isEmpty } }

    /// Runs up to `limit` of the waiting jobs on the calling thread, of those stamped no later than `latest`;
    /// returns whether more are waiting (the loop then comes back to this connection after the others).
    /// A job stamped later waits for that later turn: the loop was handed other work after this turn was
    /// queued and before the job (a block that watches or closes the socket, say), and the job must not pass
    /// it.
    func runJobs(limit: Int, stampedNoLaterThan latest: UInt64 = .max) -> Bool {
        let batch = jobs.withLock { jobs -> [StampedJob] in
            var count = 0
            while count < min(limit, jobs.queue.count), jobs.queue[count].place <= latest { count += 1 }
            guard count < jobs.queue.count else {
                defer { jobs.queue = [] }
                return jobs.queue
            }
            defer { jobs.queue.removeSubrange(0..<count) }
            return Array(jobs.queue[0..<count])
        }
        let executor = asUnownedTaskExecutor()
        for stamped in batch { stamped.job.runSynchronously(on: executor) }
        return jobs.withLock { jobs in
            jobs.scheduled = !jobs.queue.isEmpty
            return jobs.scheduled
        }
    }

    /// Runs every waiting job, and those they queue: the loop has stopped.
    func runAllJobs() {
        while runJobs(limit: Int.max) {}
    }

    /// Calls the socket's `outputWaiting` handler on the loop's thread, after the work already asked of it;
    /// `false` once the loop has stopped.
    func requestWrite() -> Bool { eventLoop.requestWrite(key) }

    /// Runs `block` on the loop's thread, after the work already asked of it.
    func submit(_ block: @escaping @Sendable () -> Void) { eventLoop.execute { _ in block() } }

    /// Whether to watch the socket for reading and writing; `nil` leaves a setting as it is.
    /// Applied in its turn on the loop's thread (before the loop next waits), so changes asked from
    /// several threads take effect in the order asked.
    func watch(read: Bool? = nil, write: Bool? = nil) {
        eventLoop.execute { [key] context in context?.watch(key, readable: read, writable: write) }
    }

    /// Stops watching the socket and closes it, after the work already asked of the loop: runs `closing`
    /// just before the socket is closed and `closed` just after. A connection is forgotten in `closing`, so
    /// that a client that sees the hang-up and connects again finds its place free; whoever waits for a
    /// listener to be closed waits for `closed`.
    func stop(
        closing: @escaping @Sendable () -> Void = {}, then closed: @escaping @Sendable () -> Void = {}
    ) {
        eventLoop.execute { [fd, key] context in
            context?.remove(key)
            closing()
            Glibc.close(fd)
            closed()
        }
    }
}
