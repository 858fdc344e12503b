import Foundation
import Synchronization

/// A connection's own thread: it waits in `poll` on the socket and on a wake-up pipe, handles socket
/// readiness, and runs the connection's session task (it is that task's executor).
///
/// A request thus wakes exactly one thread — the one that reads it, handles it and writes the reply — as in a
/// thread-per-connection echo server, instead of passing through Dispatch's event thread to a worker.
final class ConnectionLoop: TaskExecutor {
    private struct State {
        var jobs: [UnownedJob] = []
        var blocks: [@Sendable () -> Void] = []
        var wantRead = true
        var wantWrite = false
        var stopped = false
        var asleep = false
        /// The thread has ended: work that still arrives goes to the global executor.
        var exited = false
    }

    let fd: Int32
    private let state = Mutex(State())
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// The socket handlers, in a class: a tuple of closures kept in a `Mutex` and read through its `inout`
    /// access gets wrapped in one more reabstraction thunk on every access, so calls grew slower with every
    /// request (7.7k/s fell to 1.1k/s over 40k requests). A reference does not.
    private final class Handlers: Sendable {
        let readable: @Sendable () -> Void
        let writable: @Sendable () -> Void
        init(readable: @escaping @Sendable () -> Void, writable: @escaping @Sendable () -> Void) {
            self.readable = readable
            self.writable = writable
        }
    }

    private let handlers = Mutex<Handlers?>(nil)

    /// A loop for `fd`; it owns the descriptor and closes it when it stops.
    init(fd: Int32) {
        self.fd = fd
        var ends: [Int32] = [0, 0]
        precondition(pipe(&ends) == 0, "pipe: \(String(cString: strerror(errno)))")
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
    }

    /// Starts the thread. The handlers run on it when the socket is readable or writable (and wanted).
    func start(readable: @escaping @Sendable () -> Void, writable: @escaping @Sendable () -> Void) {
        let installed = Handlers(readable: readable, writable: writable)
        handlers.withLock { $0 = installed }
        let thread = Thread { [self] in run() }
        thread.name = "lumend.connection"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let accepted = state.withLock { state -> Bool? in
            guard !state.exited else { return nil }
            state.jobs.append(job)
            return state.asleep
        }
        // Work can arrive after the loop ended: a task of the session resuming late, or an actor the session
        // called, whose processing Swift schedules on the task executor of the job that woke it. Dropping
        // it would stall that actor (the home) for everyone, so it runs on the shared pool instead.
        guard let asleep = accepted else { return globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
        wakeIfAsleep(asleep)
    }

    /// Runs `block` on the loop's thread (or, once the loop has ended, on a shared thread).
    func submit(_ block: @escaping @Sendable () -> Void) {
        let accepted = state.withLock { state -> Bool? in
            guard !state.exited else { return nil }
            state.blocks.append(block)
            return state.asleep
        }
        guard let asleep = accepted else { return DispatchQueue.global().async(execute: block) }
        wakeIfAsleep(asleep)
    }

    /// Whether to watch the socket for reading and writing; `nil` leaves a setting as it is.
    func watch(read: Bool? = nil, write: Bool? = nil) {
        wakeIfAsleep(
            state.withLock { state in
                if let read { state.wantRead = read }
                if let write { state.wantWrite = write }
                return state.asleep
            })
    }

    /// Stops the loop after the work already queued; the socket is closed then.
    func stop() {
        wakeIfAsleep(
            state.withLock { state in
                state.stopped = true
                return state.asleep
            })
    }

    private func wakeIfAsleep(_ asleep: Bool) {
        guard asleep else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private func run() {
        let executor = asUnownedTaskExecutor()
        var drain = [UInt8](repeating: 0, count: 64)
        while true {
            let (jobs, blocks, wantRead, wantWrite, stopped) = state.withLock { state in
                defer {
                    state.jobs.removeAll(keepingCapacity: true)
                    state.blocks.removeAll(keepingCapacity: true)
                }
                return (state.jobs, state.blocks, state.wantRead, state.wantWrite, state.stopped)
            }
            for block in blocks { block() }
            for job in jobs { job.runSynchronously(on: executor) }
            if !jobs.isEmpty || !blocks.isEmpty { continue }
            if stopped { break }
            var events: Int16 = 0
            if wantRead { events |= Int16(POLLIN) }
            if wantWrite { events |= Int16(POLLOUT) }
            // With nothing wanted the socket is left out, so a hung-up peer cannot make poll spin.
            var fds = [
                pollfd(fd: events == 0 ? -1 : fd, events: events, revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            // Mark asleep, then look once more for work that raced in before the mark.
            let raced = state.withLock { state -> Bool in
                state.asleep = true
                return !state.jobs.isEmpty || !state.blocks.isEmpty || state.stopped
                    || state.wantRead != wantRead || state.wantWrite != wantWrite
            }
            if !raced { _ = poll(&fds, 2, -1) }
            state.withLock { $0.asleep = false }
            if raced { continue }
            if fds[1].revents != 0 { _ = drain.withUnsafeMutableBytes { read(wakeRead, $0.baseAddress, $0.count) } }
            let handlers = handlers.withLock { $0 }
            let revents = fds[0].revents
            if wantRead, revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { handlers?.readable() }
            if wantWrite, revents & Int16(POLLOUT | POLLHUP | POLLERR) != 0 { handlers?.writable() }
        }
        handlers.withLock { $0 = nil }
        // Whatever raced in after the last look runs now; later arrivals go elsewhere (see `enqueue`).
        let (jobs, blocks) = state.withLock { state in
            state.exited = true
            defer {
                state.jobs = []
                state.blocks = []
            }
            return (state.jobs, state.blocks)
        }
        for block in blocks { block() }
        for job in jobs { job.runSynchronously(on: executor) }
        Glibc.close(fd)
        Glibc.close(wakeRead)
        Glibc.close(wakeWrite)
    }
}
