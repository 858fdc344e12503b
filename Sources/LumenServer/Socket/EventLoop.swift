import CLinux
import Foundation
import Synchronization

/// One thread that waits in `epoll` on many sockets and runs the work of their sessions: the executor of
/// every connection it serves, as a swift-nio event loop is.
///
/// Work comes in one queue, in order: tasks' jobs (it is their `TaskExecutor`) and blocks. Each turn runs the
/// work queued so far, then asks `epoll` which sockets are ready (without waiting when more work is queued)
/// and calls their handlers, so a connection that floods it with requests gets one read per turn and every
/// other connection its turn between. Registrations live on the loop's thread alone and take no lock.
final class EventLoop: TaskExecutor, Sendable {
    /// What a socket's handlers are told.
    struct Readiness {
        var readable: Bool
        var writable: Bool
    }

    private enum Work {
        case job(UnownedJob)
        case block(@Sendable () -> Void)
        /// A connection with jobs waiting: a few of them run, then it goes to the back of the line.
        case connection(ConnectionLoop)
    }

    /// Jobs a connection may run in one turn.
    static let jobsPerTurn = 4

    private struct Inbox {
        var work: [Work] = []
        /// The thread is in (or about to enter) `epoll_wait` without a timeout: a producer must ring.
        var asleep = false
        var stopping = false
        /// The thread has ended: work that still arrives goes to the shared executors.
        var exited = false
    }

    /// A socket's handler and the interest `epoll` has for it; touched on the loop's thread only.
    private final class Registration {
        let fd: Int32
        let handle: (Readiness) -> Void
        var interest: Readiness = Readiness(readable: false, writable: false)
        var inEpoll = false
        init(fd: Int32, handle: @escaping (Readiness) -> Void) {
            self.fd = fd
            self.handle = handle
        }
    }

    /// What only the loop's thread reads and writes: registrations and the buffer reads go into.
    private final class ThreadState: @unchecked Sendable {
        // Unchecked: every access happens on the loop's own thread (`run`, and the blocks it runs).
        var registrations: [UInt64: Registration] = [:]
        var nextID: UInt64 = 1
        var readBuffer = [UInt8](repeating: 0, count: 65_536)
    }

    /// A name for logs and thread lists.
    let name: String
    private let epfd: Int32
    private let wakeFD: Int32
    private let inbox = Mutex(Inbox())
    private let local = ThreadState()
    private let thread = Mutex<pthread_t?>(nil)
    private let finished = Mutex<[CheckedContinuation<Void, Never>]?>([])
    private static let wakeID: UInt64 = 0

    /// A loop with its thread started.
    init(name: String) {
        self.name = name
        epfd = lumen_epoll_create()
        precondition(epfd >= 0, "epoll_create1: \(String(cString: strerror(errno)))")
        wakeFD = lumen_eventfd()
        precondition(wakeFD >= 0, "eventfd: \(String(cString: strerror(errno)))")
        precondition(lumen_epoll_ctl(epfd, LUMEN_EPOLL_CTL_ADD, wakeFD, LUMEN_EPOLLIN, Self.wakeID) == 0)
        let started = Thread { [self] in run() }
        started.name = name
        started.start()
    }

    // MARK: - Work from any thread

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        guard add(.job(job)) else { return globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }

    /// Runs `block` on the loop's thread after the work queued before it (on a shared thread once the loop
    /// has stopped).
    func execute(_ block: @escaping @Sendable () -> Void) {
        guard add(.block(block)) else { return DispatchQueue.global().async(execute: block) }
    }

    /// Gives a connection with jobs waiting a turn, after the work queued before.
    func schedule(_ connection: ConnectionLoop) {
        guard add(.connection(connection)) else {
            // The loop has stopped: the jobs run on the shared executors, in order.
            DispatchQueue.global().async {
                while connection.runJobs(limit: Int.max, on: connection.asUnownedTaskExecutor()) {}
            }
            return
        }
    }

    /// Whether the calling thread is the loop's.
    var inLoop: Bool {
        guard let thread = thread.withLock({ $0 }) else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }

    private func add(_ work: Work) -> Bool {
        let ring = inbox.withLock { inbox -> Bool? in
            guard !inbox.exited else { return nil }
            inbox.work.append(work)
            defer { inbox.asleep = false }
            return inbox.asleep
        }
        guard let ring else { return false }
        if ring {
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
        return true
    }

    /// Stops the loop once the work queued before has run; returns when its thread has ended.
    func shutDown() async {
        await withCheckedContinuation { continuation in
            let done = finished.withLock { waiters -> Bool in
                guard waiters != nil else { return true }
                waiters!.append(continuation)
                return false
            }
            if done { return continuation.resume() }
            _ = add(.block { [self] in inbox.withLock { $0.stopping = true } })
        }
    }

    // MARK: - Sockets (on the loop's thread)

    /// Registers `fd`, wanting nothing yet; `handle` is called on the loop's thread when it is ready for what
    /// is wanted. Returns the registration's key for ``watch(_:readable:writable:)`` and ``remove(_:)``.
    func register(_ fd: Int32, _ handle: @escaping (Readiness) -> Void) -> UInt64 {
        let id = local.nextID
        local.nextID += 1
        local.registrations[id] = Registration(fd: fd, handle: handle)
        return id
    }

    /// Sets what a registered socket is watched for; `nil` leaves a side as it is.
    func watch(_ id: UInt64, readable: Bool?, writable: Bool?) {
        guard let registration = local.registrations[id] else { return }
        if let readable { registration.interest.readable = readable }
        if let writable { registration.interest.writable = writable }
        var events: UInt32 = 0
        if registration.interest.readable { events |= LUMEN_EPOLLIN | LUMEN_EPOLLRDHUP }
        if registration.interest.writable { events |= LUMEN_EPOLLOUT }
        if events == 0 {
            // epoll reports a hang-up whatever is asked for: a socket that wants nothing is left out, so a
            // hung-up peer cannot make the loop spin.
            if registration.inEpoll { _ = lumen_epoll_ctl(epfd, LUMEN_EPOLL_CTL_DEL, registration.fd, 0, 0) }
            registration.inEpoll = false
        } else if registration.inEpoll {
            _ = lumen_epoll_ctl(epfd, LUMEN_EPOLL_CTL_MOD, registration.fd, events, id)
        } else {
            _ = lumen_epoll_ctl(epfd, LUMEN_EPOLL_CTL_ADD, registration.fd, events, id)
            registration.inEpoll = true
        }
    }

    /// Forgets a socket (before it is closed).
    func remove(_ id: UInt64) {
        guard let registration = local.registrations.removeValue(forKey: id) else { return }
        if registration.inEpoll { _ = lumen_epoll_ctl(epfd, LUMEN_EPOLL_CTL_DEL, registration.fd, 0, 0) }
    }

    /// Reads from `fd` into the loop's one read buffer (connections keep none of their own) and hands
    /// `body` what was read; returns `read`'s result.
    func read(_ fd: Int32, _ body: (ArraySlice<UInt8>) -> Void) -> Int {
        let count = local.readBuffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if count > 0 { body(local.readBuffer[0..<count]) }
        return count
    }

    /// How many sockets the loop serves.
    var registrationCount: Int { local.registrations.count }

    // MARK: - The thread

    private func perform(_ item: Work, on executor: UnownedTaskExecutor) {
        switch item {
        case .job(let job): job.runSynchronously(on: executor)
        case .block(let block): block()
        case .connection(let connection):
            if connection.runJobs(limit: Self.jobsPerTurn, on: connection.asUnownedTaskExecutor()) {
                if !add(.connection(connection)) {
                    while connection.runJobs(limit: Int.max, on: connection.asUnownedTaskExecutor()) {}
                }
            }
        }
    }

    private func run() {
        thread.withLock { $0 = pthread_self() }
        let executor = asUnownedTaskExecutor()
        var masks = [UInt32](repeating: 0, count: 256)
        var keys = [UInt64](repeating: 0, count: 256)
        var drain: UInt64 = 0
        while true {
            let (work, stopping) = inbox.withLock { inbox in
                defer { inbox.work.removeAll(keepingCapacity: true) }
                return (inbox.work, inbox.stopping)
            }
            for item in work { perform(item, on: executor) }
            if stopping { break }
            // Wait only when nothing is queued; the mark is made under the lock producers take, so a ring
            // cannot be missed.
            let timeout: Int32 = inbox.withLock { inbox in
                guard inbox.work.isEmpty, !inbox.stopping else { return 0 }
                inbox.asleep = true
                return -1
            }
            let count = masks.withUnsafeMutableBufferPointer { masks in
                keys.withUnsafeMutableBufferPointer { keys in
                    lumen_epoll_wait(epfd, masks.baseAddress, keys.baseAddress, 256, timeout)
                }
            }
            if timeout < 0 { inbox.withLock { $0.asleep = false } }
            guard count > 0 else { continue }
            for index in 0..<Int(count) {
                let id = keys[index]
                let flags = masks[index]
                if id == Self.wakeID {
                    _ = Glibc.read(wakeFD, &drain, 8)
                    continue
                }
                // A handler earlier in this batch may have removed it.
                guard let registration = local.registrations[id] else { continue }
                let failed = flags & (LUMEN_EPOLLHUP | LUMEN_EPOLLERR) != 0
                registration.handle(
                    Readiness(
                        readable: registration.interest.readable
                            && (failed || flags & (LUMEN_EPOLLIN | LUMEN_EPOLLRDHUP) != 0),
                        writable: registration.interest.writable && (failed || flags & LUMEN_EPOLLOUT != 0)))
            }
        }
        // Whatever raced in after the last look runs now; later arrivals go to the shared executors.
        let late = inbox.withLock { inbox in
            inbox.exited = true
            defer { inbox.work = [] }
            return inbox.work
        }
        for item in late { perform(item, on: executor) }
        for registration in local.registrations.values { Glibc.close(registration.fd) }
        local.registrations = [:]
        Glibc.close(epfd)
        Glibc.close(wakeFD)
        let waiters = finished.withLock { waiters in
            defer { waiters = nil }
            return waiters ?? []
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A fixed group of event loops, one per core by default, that connections are spread over in turn.
final class EventLoopGroup: Sendable {
    let loops: [EventLoop]
    private let next = Atomic<Int>(0)

    /// `count` loops (at least one).
    init(count: Int) {
        loops = (0..<max(1, count)).map { EventLoop(name: "lumend.loop-\($0)") }
    }

    /// The loop for the next connection.
    func nextLoop() -> EventLoop { loops[next.add(1, ordering: .relaxed).oldValue % loops.count] }

    /// Stops every loop; returns when their threads have ended.
    func shutDown() async {
        for loop in loops { await loop.shutDown() }
    }
}
