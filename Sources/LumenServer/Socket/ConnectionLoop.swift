import Foundation
import Synchronization

/// A connection's place on an ``EventLoop``: its socket's registration there, and the executor its
/// session's task runs on (the loop's).
///
/// Everything it does happens on the loop's thread, in the order asked: what arrives from another thread
/// is handed to the loop first. So the socket's state needs no lock, and a request that arrives is read,
/// handled and answered on one thread, among the other connections that loop serves.
final class ConnectionLoop: TaskExecutor {
    let fd: Int32
    let eventLoop: EventLoop
    /// The key of the socket's registration; set on the loop's thread by ``start(readable:writable:)``.
    private let registration = Box()

    /// Read and written on the loop's thread only.
    private final class Box: @unchecked Sendable {
        // Unchecked: only the event loop's thread touches it.
        var id: UInt64?
        var stopped = false
    }

    /// A connection for `fd` on `eventLoop`; it owns the descriptor and closes it when it stops.
    init(fd: Int32, on eventLoop: EventLoop) {
        self.fd = fd
        self.eventLoop = eventLoop
    }

    /// Registers the socket, watched for reading. The handlers run on the loop's thread when the socket is
    /// readable or writable (and that is wanted).
    func start(readable: @escaping @Sendable () -> Void, writable: @escaping @Sendable () -> Void) {
        eventLoop.execute { [self] in
            guard !registration.stopped else { return }
            let id = eventLoop.register(fd) { readiness in
                if readiness.readable { readable() }
                if readiness.writable { writable() }
            }
            registration.id = id
            eventLoop.watch(id, readable: true, writable: nil)
        }
    }

    /// The session's jobs waiting for their turn: the loop takes a few at a time from each connection in
    /// turn, so one whose many writes are confirmed at once (a group commit) does not queue its thousands
    /// of replies ahead of another connection's one.
    private let jobs = Mutex<(queue: [UnownedJob], scheduled: Bool)>(([], false))

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let schedule = jobs.withLock { jobs -> Bool in
            jobs.queue.append(job)
            defer { jobs.scheduled = true }
            return !jobs.scheduled
        }
        if schedule { eventLoop.schedule(self) }
    }

    /// Runs up to `limit` of the waiting jobs on the loop's thread; returns whether more are waiting (the loop
    /// then comes back to this connection after the others).
    func runJobs(limit: Int, on executor: UnownedTaskExecutor) -> Bool {
        let batch = jobs.withLock { jobs -> ArraySlice<UnownedJob> in
            let batch = jobs.queue.prefix(limit)
            jobs.queue.removeFirst(batch.count)
            return batch
        }
        for job in batch { job.runSynchronously(on: executor) }
        return jobs.withLock { jobs in
            jobs.scheduled = !jobs.queue.isEmpty
            return jobs.scheduled
        }
    }

    /// Runs `block` on the loop's thread, after the work already asked of it.
    func submit(_ block: @escaping @Sendable () -> Void) { eventLoop.execute(block) }

    /// Whether to watch the socket for reading and writing; `nil` leaves a setting as it is.
    /// Applied in its turn on the loop's thread (before the loop next waits), so changes asked from
    /// several threads take effect in the order asked.
    func watch(read: Bool? = nil, write: Bool? = nil) {
        eventLoop.execute { [self] in
            guard let id = registration.id, !registration.stopped else { return }
            eventLoop.watch(id, readable: read, writable: write)
        }
    }

    /// Stops watching the socket and closes it, after the work already asked of the loop; then runs
    /// `closed`, so that whoever counts connections counts only open sockets.
    func stop(then closed: @escaping @Sendable () -> Void = {}) {
        eventLoop.execute { [self] in
            guard !registration.stopped else { return }
            registration.stopped = true
            if let id = registration.id { eventLoop.remove(id) }
            Glibc.close(fd)
            closed()
        }
    }

    /// Reads from the socket into the loop's buffer; see ``EventLoop/read(_:_:)``.
    func read(_ body: (ArraySlice<UInt8>) -> Void) -> Int { eventLoop.read(fd, body) }
}
