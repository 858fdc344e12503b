import LumenModel
import LumenProtocol

#if canImport(Glibc)
    import Glibc
#endif

extension StateStore {
    /// What the writer touches, under ``StateStore/committer``: the open journal and its bookkeeping, and the
    /// timers it set on its loop.
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
        /// The timer that ends the writer's nap (the relaxed delay, a retry's backoff), while it naps.
        var napTimer: UInt64?
        /// The timer that ends the wait for the home's last snapshot at stop, once set.
        var lastSnapshotDeadline: UInt64?

        /// Whether the next commit must be a snapshot: no journal is open, or it has grown past `limit` (or
        /// twice the last snapshot, when that is larger) and no failed snapshot is backing off.
        func needsSnapshot(limit: Int) -> Bool {
            guard let journal else { return true }
            guard journal.end > max(limit, 2 * lastSnapshotSize) else { return false }
            return snapshotRetryAt.map { ContinuousClock.now >= $0 } ?? true
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

    /// Queues the writer a step on its loop: how it is woken when ``Shared/wakeWriter(for:)`` says so, and
    /// when the home's snapshot comes back.
    func queueStep() {
        loop.execute { [weak self] _ in self?.step() }
    }

    /// One step of the writer, on its loop: commits for as long as something is due, then sleeps, until a
    /// timer of its own when it waits for a deadline (the relaxed delay, a retry), else until it is woken. Once
    /// the store is stopping, the last commit instead.
    ///
    /// The loop owns the disk and nothing else, so the commits block its thread in `write` and `fdatasync`:
    /// nothing else waits behind them.
    func step() {
        cancelNap()
        while true {
            var satisfied: [Waiter.Continuation] = []
            let next = shared.withLock { shared -> Next? in
                guard !shared.stopped else { return nil }
                shared.writer = .working
                // A snapshot asked of the provider: nothing is committed until it comes (its hand-back queues a
                // step), unless the store is stopping, whose last commit waits for it only so long. Meanwhile
                // only a waiter or the stop wakes the writer.
                if shared.snapshotRequested, !shared.stopping {
                    shared.writer = .napping
                    return nil
                }
                satisfied = resolveWaiters(&shared, durableMark: durable.load(ordering: .acquiring))
                return shared.nextStep(now: .now, durability: durability, relaxedDelay: relaxedDelay)
            }
            for waiter in satisfied { waiter.resume(returning: .success(())) }
            switch next {
            case nil, .idle:
                return
            case .wait(let duration):
                nap(until: .now + duration)
                return
            case .commit:
                commitNext()
            case .stop:
                stopStep()
                return
            }
        }
    }

    /// Sets the timer that runs the writer's next step at `deadline`, on its loop.
    private func nap(until deadline: ContinuousClock.Instant) {
        let timer = loop.schedule(at: deadline) { [weak self] in self?.step() }
        committer.withLock { $0.napTimer = timer }
    }

    /// Cancels the nap's timer, if one is set: the writer is awake.
    private func cancelNap() {
        if let timer = committer.withLock({ $0.napTimer.take() }) { loop.cancelTimer(timer) }
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

    /// The stop: the last commit at once when nothing changed since the last snapshot or the home's snapshot
    /// is in hand; else the snapshot is asked for (unless it was already) and a deadline set, and whichever
    /// comes first, the snapshot (its hand-back queues a step, which comes back here) or the deadline, makes
    /// the last commit.
    private func stopStep() {
        let wanted = committer.withLock { state in
            state.batchesSinceSnapshot > 0 || shared.withLock { !$0.pending.isEmpty }
        }
        guard wanted else { return commitLast(wanted: false, snapshot: nil) }
        let (fixture, ask) = shared.withLock { shared -> (Fixture?, Bool) in
            if let fixture = shared.preparedSnapshot {
                shared.preparedSnapshot = nil
                return (fixture, false)
            }
            guard !shared.snapshotRequested else { return (nil, false) }
            shared.snapshotRequested = true
            return (nil, true)
        }
        if let fixture { return commitLast(wanted: true, snapshot: fixture) }
        if ask { requestSnapshot() }
        committer.withLock { state in
            guard state.lastSnapshotDeadline == nil else { return }
            state.lastSnapshotDeadline = loop.schedule(at: .now + finalSnapshotTimeout) { [weak self] in
                self?.commitLast(wanted: true, snapshot: nil)
            }
        }
    }

    /// The commit at stop, made once: a last snapshot when anything changed since the one before (`nil` when
    /// the home did not give it in time), then the journal closed and every waiter told.
    private func commitLast(wanted: Bool, snapshot fixture: Fixture?) {
        guard !shared.withLock({ $0.stopped }) else { return }
        let late = FileSystemError("snapshot", statePath, errno: ETIMEDOUT)
        committer.withLock { state in
            if let deadline = state.lastSnapshotDeadline.take() { loop.cancelTimer(deadline) }
            // The snapshot was made before what is pending is taken: whatever was noted after it is carried.
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
            // Marked working, the writer is never woken again: a change or a waiter after the stop queues no
            // step on the loop, which is about to end.
            shared.writer = .working
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
    /// writer as ``Shared/preparedSnapshot``, with a step queued on the writer's loop.
    func requestSnapshot() {
        let provider = provider
        Task(executorPreference: providerExecutor) { [self] in
            let fixture = await provider()
            let wanted = shared.withLock { shared -> Bool in
                guard !shared.stopped else { return false }
                shared.preparedSnapshot = fixture
                shared.snapshotRequested = false
                // The step queued here looks at everything: nothing need wake the writer until it sleeps again.
                shared.writer = .working
                return true
            }
            if wanted { queueStep() }
        }
    }

    /// Tells waiters and the health observer how a commit went.
    func finish(
        _ result: CommitResult, mark: UInt64, records: [StateRecord], snapshot: Bool, _ state: inout WriterState
    ) {
        let error = result.commitError
        if result.isSaved { durable.store(max(durable.load(ordering: .acquiring), mark), ordering: .releasing) }
        let (settled, observer, report) = shared.withLock { shared in
            // Told when health changes, not of every retry that fails again.
            let report = (error == nil) != (shared.lastError == nil) || !shared.healthReported
            shared.healthReported = true
            let settled = settleWaiters(&shared, result, mark: mark, records: records, snapshot: snapshot)
            scheduleRetry(&shared, after: error, &state)
            return (settled, shared.healthObserver, report)
        }
        // Health first, so whoever hears back from a write also finds the health it left behind.
        if report { observer?(error) }
        settled.resume()
    }

    /// The waiters a commit settles, and what each hears.
    struct SettledWaiters {
        /// Those whose changes (or snapshot) the commit failed to save, and why.
        var failed: [Waiter.Continuation] = []
        var failure: FileSystemError?
        /// Those whose snapshot failed though their changes are safe in the journal, and why.
        var snapshotFailed: [Waiter.Continuation] = []
        var snapshotFailure: FileSystemError?
        /// Those whose changes (and snapshot) are on disk.
        var succeeded: [Waiter.Continuation] = []

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
    /// The writer's next step naps until the retry.
    private func scheduleRetry(_ shared: inout Shared, after error: FileSystemError?, _ state: inout WriterState) {
        guard let error else {
            shared.lastError = nil
            shared.retryAt = nil
            state.backoff = retryDelay
            return
        }
        shared.lastError = error
        shared.retryAt = .now + state.backoff
        state.backoff = Self.nextRetryDelay(after: state.backoff)
    }

    /// The wait before the retry after next: doubling, up to a second, so that the disk's recovery (space freed,
    /// a remount) is noticed within a second.
    static func nextRetryDelay(after delay: Duration) -> Duration { min(delay * 2, .seconds(1)) }

    /// Removes and returns the waiters whose changes (and snapshot, for ``compact()``) are on disk.
    func resolveWaiters(_ shared: inout Shared, durableMark: UInt64) -> [Waiter.Continuation] {
        guard !shared.waiters.isEmpty else { return [] }
        let saved = shared.lastSnapshotSaved
        var done: [Waiter.Continuation] = []
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
