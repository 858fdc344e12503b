import Dispatch
import LumenModel
import LumenProtocol

#if canImport(Glibc)
    import Glibc
#endif

extension StateStore {
    /// The writer thread: takes what was noted, commits it, tells the waiters.
    enum Writer {
        /// Starts the writer for `store` on a thread of its own, named `lumend.store`. The thread holds the
        /// store through each step (a nap of up to a second too) and only weakly between steps, so it ends once
        /// the store is closed, or at the end of the step during which the store was released.
        static func start(for store: StateStore) {
            let delay = store.retryDelay
            store.committer.withLock { $0.backoff = delay }
            // A thread of its own rather than one of Dispatch's: it blocks on the disk for as long as the store
            // lives, and shows under its name.
            DetachedThread.start(name: "lumend.store") { [weak store] in
                while let store, store.step() {}
            }
        }
    }

    /// What whoever commits touches, under ``StateStore/committer``: the open journal and its bookkeeping.
    struct WriterState {
        var journal: JournalFile?
        /// Commits appended since the last snapshot.
        var batchesSinceSnapshot = 0
        var lastSnapshotSize = 0
        var backoff = Duration.milliseconds(100)
        /// After a snapshot failed while the journal could still take commits: not before this is another
        /// tried, unless one is asked for. Commits go on in the journal meanwhile.
        var snapshotRetryAt: ContinuousClock.Instant?
        var snapshotBackoff = Duration.seconds(1)

        /// Whether the next commit must be a snapshot: no journal is open, or it has grown past `limit` (or
        /// twice the last snapshot, when that is larger) and no failed snapshot is backing off.
        func needsSnapshot(limit: Int, now: ContinuousClock.Instant = .now) -> Bool {
            guard let journal else { return true }
            guard journal.end > max(limit, 2 * lastSnapshotSize) else { return false }
            return snapshotRetryAt.map { now >= $0 } ?? true
        }
    }

    /// How a commit went.
    enum CommitResult {
        case written
        /// Nothing reached the disk.
        case failed(FileSystemError)
        /// The snapshot was saved, but the new journal could not be opened: the changes are safe, and the
        /// next commit is a snapshot again.
        case savedButNoJournal(FileSystemError)
        /// The snapshot failed, but the changes were appended to the journal instead: they are safe, and the
        /// snapshot is tried again later.
        case journalOnly(FileSystemError)

        /// Whether the changes reached the disk.
        var isSaved: Bool {
            if case .failed = self { false } else { true }
        }

        /// What went wrong with the commit itself: the writer retries after it.
        var commitError: FileSystemError? {
            switch self {
            case .failed(let error), .savedButNoJournal(let error): error
            case .written, .journalOnly: nil
            }
        }

        /// Why the snapshot failed, when the changes went to the journal instead.
        var snapshotFailure: FileSystemError? {
            if case .journalOnly(let error) = self { error } else { nil }
        }
    }

    /// One step of the writer: a nap until it is rung (at most a second) when nothing is due yet or a snapshot
    /// it asked for has not come, or one commit; once the store is stopping, the last commit, after which it
    /// returns `false`.
    func step() -> Bool {
        // A snapshot asked of the provider: nothing is committed until it comes (its delivery rings), unless
        // the store is stopping, whose last commit waits for it only so long.
        if shared.withLock({ $0.snapshotRequested && !$0.stopping }) {
            _ = doorbell.wait(timeout: .now() + .seconds(1))
            return true
        }
        var satisfied: [CheckedContinuation<Result<Void, FileSystemError>, Never>] = []
        let next = shared.withLock { shared -> Next in
            satisfied = resolveWaiters(&shared, durableMark: durable.load(ordering: .acquiring))
            return shared.nextStep(now: .now, durability: durability, relaxedDelay: relaxedDelay)
        }
        for waiter in satisfied { waiter.resume(returning: .success(())) }
        switch next {
        case .wait(let duration):
            // At most a second, so a stop or a retry due is never missed for long.
            _ = doorbell.wait(timeout: .now() + Self.dispatchInterval(min(max(duration, .nanoseconds(1)), .seconds(1))))
            shared.withLock { $0.writer = .working }
            return true
        case .commit:
            commitNext()
            return true
        case .stop:
            commitLast()
            return false
        }
    }

    /// What one commit writes: the records taken, the mark they reach, and the home's snapshot if this
    /// commit is one.
    private typealias Job = (records: [StateRecord], mark: UInt64, snapshot: Fixture?)

    /// Commits what is pending, as a snapshot when one is due and the provider has made it.
    private func commitNext() {
        var request = false
        committer.withLock { state in
            guard let job = shared.withLock({ takeJob(&$0, state, request: &request) }) else { return }
            let result =
                if let fixture = job.snapshot {
                    snapshotOrAppend(job.records, snapshot: fixture, &state)
                } else {
                    append(job.records, &state)
                }
            finish(result, mark: job.mark, records: job.records, snapshot: job.snapshot != nil, &state)
        }
        if request { requestSnapshot() }
    }

    /// Takes the next commit's records, or nothing: when nothing is pending, or when a snapshot is due and
    /// must first be asked of the provider (`request` is then set).
    private func takeJob(_ shared: inout Shared, _ state: WriterState, request: inout Bool) -> Job? {
        let snapshot = shared.snapshotWanted || state.needsSnapshot(limit: journalLimit)
        guard snapshot || !shared.pending.isEmpty else {
            // A write error with nothing left to write: look again after the retry's backoff, not at once and
            // over and over.
            if shared.lastError != nil { shared.retryAt = .now + state.backoff }
            return nil
        }
        guard snapshot else {
            let taken = Self.take(&shared)
            return (taken.records, taken.mark, nil)
        }
        // The home's snapshot is made by the provider, on its own executor: asked for here, it comes back as a
        // message, and the commit is made then.
        guard let fixture = shared.preparedSnapshot else {
            shared.snapshotRequested = true
            request = true
            return nil
        }
        shared.preparedSnapshot = nil
        shared.snapshotWanted = false
        shared.snapshotsStarted += 1
        let taken = Self.take(&shared)
        return (taken.records, taken.mark, fixture)
    }

    /// The commit at stop: a last snapshot when anything changed since the one before, then the journal
    /// closed and every waiter told.
    private func commitLast() {
        let wanted = committer.withLock { state in
            state.batchesSinceSnapshot > 0 || shared.withLock { !$0.pending.isEmpty }
        }
        // The last snapshot, made before what is pending is taken: whatever is noted after it is carried.
        let fixture = wanted ? waitForSnapshot(until: .now + finalSnapshotTimeout) : nil
        let late = FileSystemError("snapshot", statePath, errno: ETIMEDOUT)
        committer.withLock { state in
            let (records, mark) = shared.withLock { Self.take(&$0) }
            if wanted, fixture == nil {
                // The home did not give its snapshot in time: what is pending goes to the journal without one.
                shared.withLock { $0.finalSnapshotError = late }
                if !records.isEmpty {
                    let result = state.journal == nil ? .failed(late) : append(records, &state)
                    finish(result, mark: mark, records: records, snapshot: false, &state)
                }
            } else if let fixture, !records.isEmpty || state.batchesSinceSnapshot > 0 {
                shared.withLock { $0.snapshotsStarted += 1 }
                // Anything still pending goes to the journal first: if the last snapshot then fails, every
                // change is still on disk.
                let result = snapshotOrAppend(records, snapshot: fixture, &state, appendFirst: true)
                if case .journalOnly(let error) = result { shared.withLock { $0.finalSnapshotError = error } }
                finish(result, mark: mark, records: records, snapshot: true, &state)
            } else if !records.isEmpty {
                // Noted after it looked as if no snapshot were wanted: journaled, not lost.
                finish(append(records, &state), mark: mark, records: records, snapshot: false, &state)
            }
            if let journal = state.journal { fileSystem.close(journal.fd) }
            state.journal = nil
        }
        let (waiters, stopWaiters) = shared.withLock { shared in
            shared.stopped = true
            defer {
                shared.waiters = []
                shared.stopWaiters = []
            }
            return (shared.waiters, shared.stopWaiters)
        }
        let closed = FileSystemError("write", statePath, errno: ESHUTDOWN)
        for waiter in waiters { waiter.continuation.resume(returning: .failure(closed)) }
        for waiter in stopWaiters { waiter.resume() }
    }

    /// Asks the provider for the home's snapshot, on the provider's executor; it is handed back to the
    /// writer as ``Shared/preparedSnapshot``, with a ring.
    func requestSnapshot() {
        let provider = provider
        Task(executorPreference: providerExecutor) { [self] in
            let fixture = await provider()
            shared.withLock { shared in
                shared.preparedSnapshot = fixture
                shared.snapshotRequested = false
            }
            doorbell.signal()
        }
    }

    /// The home's snapshot, for the last commit at stop: asked for, then waited for on the writer's own
    /// doorbell (the writer has nothing else to do by then) until `deadline`; `nil` if it has not come by then.
    func waitForSnapshot(until deadline: ContinuousClock.Instant) -> Fixture? {
        let ask = shared.withLock { shared -> Bool in
            guard shared.preparedSnapshot == nil, !shared.snapshotRequested else { return false }
            shared.snapshotRequested = true
            return true
        }
        if ask { requestSnapshot() }
        while true {
            let fixture = shared.withLock { shared -> Fixture? in
                let fixture = shared.preparedSnapshot
                shared.preparedSnapshot = nil
                return fixture
            }
            if let fixture { return fixture }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return nil }
            _ = doorbell.wait(timeout: .now() + Self.dispatchInterval(min(left, .seconds(1))))
        }
    }

    /// Tells waiters and the health observer how a commit went.
    func finish(
        _ result: CommitResult, mark: UInt64, records: [StateRecord], snapshot: Bool, _ state: inout WriterState
    ) {
        let error = result.commitError
        if result.isSaved { durable.store(max(durable.load(ordering: .acquiring), mark), ordering: .releasing) }
        let (settled, ring, observer, report) = shared.withLock { shared in
            // Told when health changes, not of every retry that fails again.
            let report = (error == nil) != (shared.lastError == nil) || shared.commitCount == 0
            let settled = settleWaiters(&shared, result, mark: mark, records: records, snapshot: snapshot)
            let ring = scheduleRetry(&shared, after: error, &state)
            return (settled, ring, shared.healthObserver, report)
        }
        // Health first, so whoever hears back from a write also finds the health it left behind.
        if ring { doorbell.signal() }
        if report { observer?(error) }
        settled.resume()
    }

    /// The waiters a commit settles, and what each hears.
    struct SettledWaiters {
        typealias Continuation = CheckedContinuation<Result<Void, FileSystemError>, Never>
        /// Those whose changes (or snapshot) the commit failed to save, and why.
        var failed: [Continuation] = []
        var failure: FileSystemError?
        /// Those whose snapshot failed though their changes are safe in the journal, and why.
        var snapshotFailed: [Continuation] = []
        var snapshotFailure: FileSystemError?
        /// Those whose changes (and snapshot) are on disk.
        var succeeded: [Continuation] = []

        func resume() {
            if let failure { for waiter in failed { waiter.resume(returning: .failure(failure)) } }
            if let snapshotFailure {
                for waiter in snapshotFailed { waiter.resume(returning: .failure(snapshotFailure)) }
            }
            for waiter in succeeded { waiter.resume(returning: .success(())) }
        }
    }

    /// Books a commit's outcome: counts it, puts back the changes of one that failed for the next attempt,
    /// and takes out the waiters it settles, to be resumed once the lock is let go.
    private func settleWaiters(
        _ shared: inout Shared, _ result: CommitResult, mark: UInt64, records: [StateRecord], snapshot: Bool
    ) -> SettledWaiters {
        var settled = SettledWaiters(failure: result.commitError, snapshotFailure: result.snapshotFailure)
        let started = shared.snapshotsStarted
        let forThisSnapshot = { (waiter: Waiter) in waiter.snapshot.map { $0 <= started } ?? false }
        if !result.isSaved {
            // The changes are not lost: put back those not noted again since, for the next attempt.
            for record in records where shared.pendingIndex[record.subject] == nil {
                shared.pendingIndex[record.subject] = shared.pending.count
                shared.pending.append(.record(record))
            }
            if !records.isEmpty, shared.pendingSince == nil { shared.pendingSince = .now }
            // Those waiting for these changes, and those waiting for this snapshot, hear it failed.
            let hit = { (waiter: Waiter) in waiter.mark <= mark || (snapshot && forThisSnapshot(waiter)) }
            settled.failed = shared.waiters.filter(hit).map(\.continuation)
            shared.waiters.removeAll(where: hit)
        } else if let failure = result.snapshotFailure {
            // The changes are safe; only those who asked for a snapshot hear that it failed.
            shared.commitCount += 1
            shared.snapshotError = failure
            settled.snapshotFailed = shared.waiters.filter(forThisSnapshot).map(\.continuation)
            shared.waiters.removeAll(where: forThisSnapshot)
        } else {
            shared.commitCount += 1
            if snapshot {
                shared.snapshotCount += 1
                shared.lastSnapshotSaved = started
                shared.snapshotError = nil
            }
        }
        settled.succeeded = resolveWaiters(&shared, durableMark: durable.load(ordering: .acquiring))
        return settled
    }

    /// After a commit that failed, the retry's time and the backoff after it; after one that did not, none.
    /// Returns whether to ring the writer: a failed commit (a waiter's, on its own thread) leaves the retry to
    /// the writer, which may be asleep.
    private func scheduleRetry(_ shared: inout Shared, after error: FileSystemError?, _ state: inout WriterState)
        -> Bool
    {
        guard let error else {
            shared.lastError = nil
            shared.retryAt = nil
            state.backoff = retryDelay
            return false
        }
        shared.lastError = error
        shared.retryAt = .now + state.backoff
        state.backoff = Self.nextRetryDelay(after: state.backoff)
        return shared.wakeWriter(for: .due)
    }

    /// `duration` as Dispatch counts time, for the doorbell's timeouts.
    static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(Int(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }

    /// The wait before the retry after next: doubling, up to a second, so that the disk's recovery (space freed,
    /// a remount) is noticed within a second.
    static func nextRetryDelay(after delay: Duration) -> Duration { min(delay * 2, .seconds(1)) }

    /// Removes and returns the waiters whose changes (and snapshot, for ``compact()``) are on disk.
    func resolveWaiters(_ shared: inout Shared, durableMark: UInt64)
        -> [CheckedContinuation<Result<Void, FileSystemError>, Never>]
    {
        guard !shared.waiters.isEmpty else { return [] }
        let saved = shared.lastSnapshotSaved
        var done: [CheckedContinuation<Result<Void, FileSystemError>, Never>] = []
        var remaining: [Waiter] = []
        for waiter in shared.waiters {
            if waiter.mark <= durableMark, waiter.snapshot.map({ saved >= $0 }) ?? true {
                done.append(waiter.continuation)
            } else {
                remaining.append(waiter)
            }
        }
        shared.waiters = remaining
        return done
    }
}
