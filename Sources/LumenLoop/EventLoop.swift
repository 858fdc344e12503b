import CLinux
import FoundationEssentials
import LumenProtocol
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The thread-specific slot that names the loop a thread runs (``EventLoop/current``).
private let currentLoopKey: pthread_key_t = {
    var key = pthread_key_t()
    precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
    return key
}()

/// One thread that waits in `epoll` on many sockets and runs the work of their sessions, as a swift-nio event
/// loop does.
///
/// Work comes in one queue, in order: blocks, and jobs of the tasks that prefer the loop (its sessions'
/// tasks) or of an actor it is the executor of (the `Home`, on lumend's main loop). Each turn runs the queue in
/// rounds — what is queued, then what that work queued in turn (a task back from the `Home`, its reply) — until
/// the queue is empty or for at most ``roundsPerPoll`` rounds, then runs the timers due and asks `epoll` which
/// sockets are ready (without waiting when work is still queued) and calls their handlers, so a connection
/// that floods it with requests gets one read per turn and every other connection its turn between.
///
/// It keeps timers too (the `epoll` wait ends at the earliest), so sleeping on its ``EventLoopClock`` needs
/// no other thread.
public final class EventLoop: TaskExecutor, SerialExecutor {
    /// What a socket's handlers are told.
    package struct Readiness {
        package var readable: Bool
        package var writable: Bool
        /// Not from `epoll`: the socket's output has something new (``requestWrite(_:)``).
        package var outputWaiting = false
    }

    private enum Work {
        /// Run with the loop's own state (`nil` once the loop has stopped).
        case block(@Sendable (LoopContext?) -> Void)
        /// A job of a task that prefers this loop, or of an actor whose executor it is.
        case job(UnownedJob)
        /// A socket whose output has something new: its handler is told it may write, as if `epoll` said so.
        case write(UInt64)
    }

    private struct Timer {
        let deadline: ContinuousClock.Instant
        let id: UInt64
        let block: @Sendable () -> Void
    }

    /// Rounds of queued work run between two looks at the sockets.
    package static let roundsPerPoll = 8

    private struct Inbox {
        var work: [Work] = []
        /// The thread is in (or about to enter) `epoll_wait` without a timeout: a producer must ring.
        var asleep = false
        var stopping = false
        /// The thread has ended: work that still arrives runs elsewhere (``execute(_:)``, ``enqueue(_:)``).
        var exited = false
        /// Waiting for their deadlines, in no order: a loop has a handful.
        var timers: [Timer] = []
        var nextTimer: UInt64 = 1
    }

    /// A name for logs and thread lists.
    package let name: String
    private let epfd: Int32
    private let wakeFD: Int32
    private let inbox = Locked(Inbox())
    private let finished = Locked<[CheckedContinuation<Void, Never>]?>([])
    package static let wakeKey: UInt64 = 0

    /// A loop with its thread started, or (`startingThread: false`) one that runs when a thread calls
    /// ``runOnCurrentThread()``, as lumend's main thread does.
    public init(name: String, startingThread: Bool = true) {
        self.name = name
        epfd = lumen_epoll_create()
        precondition(epfd >= 0, "epoll_create1: \(String(cString: strerror(errno)))")
        wakeFD = lumen_eventfd()
        precondition(wakeFD >= 0, "eventfd: \(String(cString: strerror(errno)))")
        precondition(lumen_epoll_ctl(epfd, LUMEN_EPOLL_CTL_ADD, wakeFD, LUMEN_EPOLLIN, Self.wakeKey) == 0)
        guard startingThread else { return }
        DetachedThread.start(name: name) { [self] in run() }
    }

    /// Runs the loop on the calling thread until it is shut down (``shutDown()`` or ``stop()``).
    public func runOnCurrentThread() { run() }

    /// Whether the caller is on the loop's thread (once the loop has stopped, on ``lateWork``'s, which runs
    /// what still arrives for it).
    public var isCurrent: Bool {
        let current = Self.current
        return current === self
            || (current != nil && current === Self.lateWorkIfStarted && hasExited.load(ordering: .acquiring))
    }

    /// Where work that arrives for a loop after it stopped runs (a write confirmed by the store after the
    /// server closed, say), one piece at a time as the loop would have: a thread started the first time.
    package static var lateWork: EventLoop {
        lateWorkLoop.withLock { loop in
            if let loop { return loop }
            let started = EventLoop(name: "lumen.late")
            loop = started
            return started
        }
    }

    private static let lateWorkLoop = Locked<EventLoop?>(nil)
    private static var lateWorkIfStarted: EventLoop? { lateWorkLoop.withLock { $0 } }
    private let hasExited = Atomic<Bool>(false)

    public func isIsolatingCurrentContext() -> Bool? { isCurrent }

    public func checkIsolated() {
        precondition(isCurrent, "not on event loop \(name)")
    }

    /// The loop whose thread is calling, if the caller is on one.
    public static var current: EventLoop? {
        guard let pointer = pthread_getspecific(currentLoopKey) else { return nil }
        return Unmanaged<EventLoop>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Asks the loop to stop once the work queued before has run, without waiting for it.
    public func stop() { requestStop() }

    /// Queues the loop's stop behind the work queued so far; `false` when it has stopped already.
    @discardableResult
    private func requestStop() -> Bool { add(.block { [self] _ in inbox.withLock { $0.stopping = true } }) }

    /// Keys for registrations on any loop: unique for the process's life, so a descriptor number reused after
    /// a close can never reach another registration's handler.
    package static let nextKey = Atomic<UInt64>(EventLoop.wakeKey)

    // MARK: - Work from any thread

    /// Runs `block` on the loop's thread, with the state only that thread touches, after the work queued
    /// before it. Once the loop has stopped it runs on ``lateWork``, given `nil`: what it would have done to
    /// the loop's sockets is moot, and what it does besides (closing a socket) still happens.
    package func execute(_ block: @escaping @Sendable (LoopContext?) -> Void) {
        guard add(.block(block)) else { return Self.lateWork.execute { _ in block(nil) } }
    }

    /// Runs `block` on the loop's thread as ``execute(_:)`` does, and returns what it gives once it has run.
    package func executeAndWait<T: Sendable>(_ block: @escaping @Sendable (LoopContext?) -> T) async -> T {
        await withCheckedContinuation { continuation in
            execute { context in continuation.resume(returning: block(context)) }
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        guard add(.job(job)) else { return Self.lateWork.enqueue(ExecutorJob(job)) }
    }

    /// Runs `block` on the loop's thread at `deadline` (at once if it has passed), unless cancelled first.
    /// - Returns: the timer's ID, for ``cancelTimer(_:)``.
    @discardableResult
    package func schedule(at deadline: ContinuousClock.Instant, _ block: @escaping @Sendable () -> Void) -> UInt64 {
        let (id, ring) = inbox.withLock { inbox -> (UInt64, Bool) in
            let id = inbox.nextTimer
            inbox.nextTimer += 1
            inbox.timers.append(Timer(deadline: deadline, id: id, block: block))
            defer { inbox.asleep = false }
            return (id, inbox.asleep)
        }
        if ring { ringDoorbell() }
        return id
    }

    /// Cancels a timer that has not fired; returns whether it had not.
    @discardableResult
    package func cancelTimer(_ id: UInt64) -> Bool {
        inbox.withLock { inbox in
            guard let index = inbox.timers.firstIndex(where: { $0.id == id }) else { return false }
            inbox.timers.remove(at: index)
            return true
        }
    }

    /// The deadlines of the timers waiting for them, in the order the timers were scheduled.
    package var timerDeadlines: [ContinuousClock.Instant] { inbox.withLock { $0.timers.map(\.deadline) } }

    /// Calls `handler` on the loop's thread whenever `fd` is readable, until the returned closure is called.
    public func watchReadable(_ fd: Int32, _ handler: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let key = Self.nextKey.add(1, ordering: .relaxed).newValue
        execute { context in
            context?.register(key, fd: fd) { readiness, _ in if readiness.readable { handler() } }
            context?.watch(key, readable: true, writable: nil)
        }
        return { [self] in execute { context in context?.remove(key) } }
    }

    private func ringDoorbell() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    /// Tells the handler registered under `key` that its output has something new, after the work queued
    /// before: the turn a readiness from `epoll` would take, with nothing allocated.
    package func requestWrite(_ key: UInt64) -> Bool { add(.write(key)) }

    /// Queues `work`; `false` once the loop has stopped.
    private func add(_ work: Work) -> Bool {
        let ring = inbox.withLock { inbox -> Bool? in
            guard !inbox.exited else { return nil }
            inbox.work.append(work)
            defer { inbox.asleep = false }
            return inbox.asleep
        }
        guard let ring else { return false }
        if ring { ringDoorbell() }
        return true
    }

    /// Stops the loop once the work queued before has run; returns when its thread has ended.
    public func shutDown() async {
        await withCheckedContinuation { continuation in
            let done = finished.withLock { waiters -> Bool in
                guard waiters != nil else { return true }
                waiters!.append(continuation)
                return false
            }
            if done { return continuation.resume() }
            requestStop()
        }
    }

    // MARK: - The thread

    private func perform(_ item: Work, _ context: LoopContext) {
        switch item {
        case .block(let block): block(context)
        case .job(let job):
            job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
        case .write(let key):
            context.tellWritable(key)
        }
    }

    /// The timers whose deadlines have passed, taken out, in the order they are to run: by deadline, and
    /// those due at once in the order they were scheduled.
    private func dueTimers() -> [Timer] {
        let now = ContinuousClock.now
        return inbox.withLock { inbox in
            guard inbox.timers.contains(where: { $0.deadline <= now }) else { return [] }
            let due = inbox.timers.filter { $0.deadline <= now }.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
            inbox.timers.removeAll { $0.deadline <= now }
            return due
        }
    }

    private static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let left = deadline - .now
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        let millis = seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(min(millis, Int64(Int32.max)))
    }

    private func run() {
        pthread_setspecific(currentLoopKey, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(currentLoopKey, nil) }
        // Made here and handed only to the blocks this thread runs: nothing else ever holds it.
        let context = LoopContext(epfd: epfd)
        var masks = [UInt32](repeating: 0, count: 256)
        var keys = [UInt64](repeating: 0, count: 256)
        var drain: UInt64 = 0
        // The round being run, swapped with the inbox's queue: each keeps its storage, so a round allocates
        // nothing (a copy of the queue would have the next arrival allocate the queue's storage afresh). After a
        // burst, both keep the capacity of its largest round for as long as the loop runs.
        var work: [Work] = []
        while true {
            // The work queued, and what it queues in turn (a request's task coming back from the `Home`
            // actor, its reply), runs a few rounds before `epoll` is asked again: a round trip then costs one
            // `epoll_wait`, not one per hop, and sockets still get their look every few rounds.
            var stopping = false
            for _ in 0..<Self.roundsPerPoll {
                stopping = inbox.withLock { inbox in
                    swap(&inbox.work, &work)
                    return inbox.stopping
                }
                for item in work { perform(item, context) }
                let ranNone = work.isEmpty
                work.removeAll(keepingCapacity: true)
                if stopping || ranNone { break }
            }
            if stopping { break }
            for timer in dueTimers() { timer.block() }
            // Wait only when nothing is queued, and until the earliest timer; the mark is made under the lock
            // producers take, so a ring cannot be missed.
            let timeout: Int32 = inbox.withLock { inbox in
                guard inbox.work.isEmpty, !inbox.stopping else { return 0 }
                let earliest = inbox.timers.min { $0.deadline < $1.deadline }?.deadline
                let timeout = earliest.map(Self.milliseconds(until:)) ?? -1
                if timeout != 0 { inbox.asleep = true }
                return timeout
            }
            let count = masks.withUnsafeMutableBufferPointer { masks in
                keys.withUnsafeMutableBufferPointer { keys in
                    lumen_epoll_wait(epfd, masks.baseAddress, keys.baseAddress, 256, timeout)
                }
            }
            if timeout != 0 { inbox.withLock { $0.asleep = false } }
            for index in 0..<max(0, Int(count)) {
                if keys[index] == Self.wakeKey {
                    _ = Glibc.read(wakeFD, &drain, 8)
                } else {
                    context.dispatch(keys[index], masks[index])
                }
            }
        }
        // Whatever raced in after the last look runs now; once none is left, later arrivals go to `lateWork`,
        // which never runs them alongside this thread.
        while true {
            let late = inbox.withLock { inbox -> [Work] in
                guard !inbox.work.isEmpty else {
                    inbox.exited = true
                    hasExited.store(true, ordering: .releasing)
                    return []
                }
                defer { inbox.work = [] }
                return inbox.work
            }
            if late.isEmpty { break }
            for item in late { perform(item, context) }
        }
        // The sockets are their connections' to close (``ConnectionLoop/stop(then:)``), here or later.
        Glibc.close(epfd)
        Glibc.close(wakeFD)
        let waiters = finished.withLock { waiters in
            defer { waiters = nil }
            return waiters ?? []
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// What only an event loop's own thread touches: its sockets' registrations and the one buffer reads go
/// into (connections keep none of their own).
///
/// The loop's thread makes it and hands it to the blocks it runs; it is never stored anywhere else, so it
/// takes no lock and is not `Sendable`.
package final class LoopContext {
    /// A socket's handler and the interest `epoll` has for it.
    private final class Registration {
        let fd: Int32
        let handle: (EventLoop.Readiness, LoopContext) -> Void
        var interest = EventLoop.Readiness(readable: false, writable: false)
        var inEpoll = false
        init(fd: Int32, handle: @escaping (EventLoop.Readiness, LoopContext) -> Void) {
            self.fd = fd
            self.handle = handle
        }
    }

    private let epfd: Int32
    private var registrations: [UInt64: Registration] = [:]
    private var readBuffer = [UInt8](repeating: 0, count: 65_536)

    fileprivate init(epfd: Int32) { self.epfd = epfd }

    /// Registers `fd` under `key` (not ``EventLoop/wakeKey``), wanting nothing yet; `handle` is called on the
    /// loop's thread when it is ready for what is wanted.
    package func register(_ key: UInt64, fd: Int32, _ handle: @escaping (EventLoop.Readiness, LoopContext) -> Void) {
        registrations[key] = Registration(fd: fd, handle: handle)
    }

    /// Sets what a registered socket is watched for; `nil` leaves a side as it is.
    package func watch(_ key: UInt64, readable: Bool?, writable: Bool?) {
        guard let registration = registrations[key] else { return }
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
        } else {
            let operation = registration.inEpoll ? LUMEN_EPOLL_CTL_MOD : LUMEN_EPOLL_CTL_ADD
            _ = lumen_epoll_ctl(epfd, operation, registration.fd, events, key)
            registration.inEpoll = true
        }
    }

    /// Forgets a socket (before it is closed).
    package func remove(_ key: UInt64) {
        guard let registration = registrations.removeValue(forKey: key) else { return }
        if registration.inEpoll { _ = lumen_epoll_ctl(epfd, LUMEN_EPOLL_CTL_DEL, registration.fd, 0, 0) }
    }

    /// Reads once from `fd` into the loop's buffer and hands `body` what was read.
    package func read(_ fd: Int32, _ body: (ArraySlice<UInt8>) -> Void) -> UnixSocket.Transfer {
        let step = readBuffer.withUnsafeMutableBytes { UnixSocket.receive(fd, into: $0) }
        if case .moved(let count) = step { body(readBuffer[0..<count]) }
        return step
    }

    /// Tells a socket's handler that its output has something new.
    fileprivate func tellWritable(_ key: UInt64) {
        registrations[key]?.handle(EventLoop.Readiness(readable: false, writable: false, outputWaiting: true), self)
    }

    /// Tells a socket's handler what `epoll` reported for it.
    fileprivate func dispatch(_ key: UInt64, _ flags: UInt32) {
        // A handler earlier in the same batch may have removed it.
        guard let registration = registrations[key] else { return }
        let failed = flags & (LUMEN_EPOLLHUP | LUMEN_EPOLLERR) != 0
        let readiness = EventLoop.Readiness(
            readable: registration.interest.readable && (failed || flags & (LUMEN_EPOLLIN | LUMEN_EPOLLRDHUP) != 0),
            writable: registration.interest.writable && (failed || flags & LUMEN_EPOLLOUT != 0))
        registration.handle(readiness, self)
    }
}

/// A fixed group of event loops, one per core by default, that connections are spread over in turn.
package final class EventLoopGroup: Sendable {
    package let loops: [EventLoop]
    private let next = Atomic<Int>(0)

    /// `count` loops (at least one).
    package init(count: Int) {
        loops = (0..<max(1, count)).map { EventLoop(name: "lumend.loop-\($0)") }
    }

    /// The loop for the next connection.
    package func nextLoop() -> EventLoop { loops[next.add(1, ordering: .relaxed).oldValue % loops.count] }

    /// Stops every loop; returns when their threads have ended.
    package func shutDown() async {
        for loop in loops { await loop.shutDown() }
    }
}
