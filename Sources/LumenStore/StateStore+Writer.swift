import Dispatch
import LumenModel
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

extension StateStore {
    /// The writer thread: takes what was noted, commits it, tells the waiters.
    enum Writer {
        /// Starts the writer for `store`. It holds the store only while working, and ends when the store is
        /// closed or released.
        static func start(for store: StateStore) {
            let delay = store.retryDelay
            store.committer.withLock { $0.backoff = delay }
            DispatchQueue(label: "lumen.state-store.writer").async { [weak store] in
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

    /// The journal being appended to.
    struct JournalFile {
        let fd: Int32
        /// Where the next commit goes.
        var end: Int
        /// How far the file is zero-filled.
        var allocated: Int
        /// How far a failed write may have left bytes of an entry never committed; the next entry covers them.
        var dirtyEnd = 0
        /// Whether to zero-fill ahead; off once the disk had no room for it, until the next journal.
        var preallocating = true
    }

    /// What the writer does next.
    enum Next: Equatable {
        /// Sleeps this long, unless rung.
        case wait(Duration)
        case commit
        case stop
    }

    /// What the writer thread is doing, for those who would ring its doorbell: ringing only a writer that
    /// listens keeps it from being woken once per change, and its doorbell from counting rings nobody heard.
    enum WriterPhase {
        case working
        /// Asleep until a deadline of its own (a grace period, the relaxed delay, a retry): only someone
        /// waiting for a commit wakes it sooner.
        case napping
        /// Asleep for want of work: any change wakes it.
        case idle
    }

    /// Why someone would wake the writer.
    enum WakeReason {
        /// A change was noted.
        case change
        /// Something to see to at once: someone waits for a commit, a snapshot or the stop, or a failed
        /// commit needs its retry scheduled.
        case due
    }

    /// How long, in full durability, a change nobody waits for yet is left for a waiter to commit itself.
    public static let leaderGrace = Duration.milliseconds(2)

    /// Waits for work and does one commit. Returns `false` once the store is stopped.
    func step() -> Bool {
        var satisfied: [CheckedContinuation<Result<Void, FileSystemError>, Never>] = []
        let next = shared.withLock { shared -> Next in
            satisfied = resolveWaiters(&shared, durableMark: durable.load(ordering: .acquiring))
            return shared.nextStep(now: .now, durability: durability, relaxedDelay: relaxedDelay, grace: leaderGrace)
        }
        for waiter in satisfied { waiter.resume(returning: .success(())) }
        switch next {
        case .wait(let duration):
            let nanoseconds = max(
                1,
                Int(duration.components.seconds) * 1_000_000_000 + Int(duration.components.attoseconds / 1_000_000_000))
            _ = doorbell.wait(timeout: .now() + .nanoseconds(min(nanoseconds, 1_000_000_000)))
            shared.withLock { $0.writer = .working }
            return true
        case .commit:
            committer.withLock { state in
                let job = shared.withLock { shared -> (records: [StateRecord], mark: UInt64, snapshot: Bool)? in
                    let snapshot = shared.snapshotWanted || state.needsSnapshot(limit: journalLimit)
                    // Someone may have committed it all while this thread waited for the committer.
                    guard snapshot || !shared.pending.isEmpty else { return nil }
                    if snapshot {
                        shared.snapshotWanted = false
                        shared.snapshotsStarted += 1
                    }
                    let taken = Self.take(&shared)
                    return (taken.records, taken.mark, snapshot)
                }
                guard let job else { return }
                let result = job.snapshot ? snapshotOrAppend(job.records, &state) : append(job.records, &state)
                finish(result, mark: job.mark, records: job.records, snapshot: job.snapshot, &state)
            }
            return true
        case .stop:
            committer.withLock { state in
                let (records, mark) = shared.withLock { Self.take(&$0) }
                if !records.isEmpty || state.batchesSinceSnapshot > 0 {
                    shared.withLock { $0.snapshotsStarted += 1 }
                    // Anything still pending goes to the journal first: if the last snapshot then fails, every
                    // change is still on disk.
                    let result = snapshotOrAppend(records, &state, appendFirst: true)
                    if case .journalOnly(let error) = result { shared.withLock { $0.finalSnapshotError = error } }
                    finish(result, mark: mark, records: records, snapshot: true, &state)
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
            return false
        }
    }

    /// Commits what is pending on the calling thread, if nobody else is committing and a plain journal
    /// append will do. Returns whether changes up to `mark` are now on disk, or `nil` when it did not try.
    ///
    /// It only *tries* the committer lock, and never writes a snapshot: a connection's thread must not wait
    /// behind a snapshot, whose provider needs the home actor, which may itself be waiting to run on that
    /// very thread (a session's task executor also runs the actors it calls). Waiting on the lock instead
    /// deadlocked the benchmark.
    func commitHere(upTo mark: UInt64) -> Result<Void, FileSystemError>? {
        let outcome = committer.withLockIfAvailable { state -> Result<Void, FileSystemError>? in
            let job = shared.withLock { shared -> (records: [StateRecord], mark: UInt64)? in
                guard !shared.stopping, shared.lastError == nil, !shared.snapshotWanted, !shared.pending.isEmpty,
                    !state.needsSnapshot(limit: journalLimit)
                else { return nil }
                return Self.take(&shared)
            }
            guard let job else { return nil }
            let result = append(job.records, &state)
            if case .written = result { shared.withLock { $0.commitsByWaiters += 1 } }
            finish(result, mark: job.mark, records: job.records, snapshot: false, &state)
            if case .failed(let error) = result { return .failure(error) }
            return .success(())
        }
        guard let outcome = outcome ?? nil else { return nil }
        if case .failure = outcome { return outcome }
        return mark <= durable.load(ordering: .acquiring) ? .success(()) : nil
    }

    private static func take(_ shared: inout Shared) -> (records: [StateRecord], mark: UInt64) {
        defer {
            shared.pending = []
            shared.pendingIndex = [:]
            shared.pendingSince = nil
        }
        return (shared.pending, shared.mark)
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
    }

    /// Whether a failed write leaves the file as it was before the call, apart from bytes past its committed
    /// end: the disk was full, not broken. A journal may be appended to again after such a failure (the next
    /// entry overwrites what the failed one left); after any other failure, or any failed `fdatasync`, never.
    static func isOutOfSpace(_ error: FileSystemError) -> Bool {
        error.errno == ENOSPC || error.errno == EDQUOT || error.errno == EFBIG
    }

    /// A snapshot, or, when one cannot be written but the journal is open, an append of the same records.
    private func snapshotOrAppend(_ records: [StateRecord], _ state: inout WriterState, appendFirst: Bool = false)
        -> CommitResult
    {
        var carry = records
        if appendFirst, !records.isEmpty, state.journal != nil, case .written = append(records, &state) {
            carry = []
        }
        let result = writeSnapshot(carry, &state)
        guard case .failed(let error) = result, state.journal != nil else {
            if case .written = result {
                state.snapshotRetryAt = nil
                state.snapshotBackoff = .seconds(1)
            }
            return result
        }
        if !carry.isEmpty, case .failed = append(carry, &state) { return result }
        state.snapshotRetryAt = .now + state.snapshotBackoff
        state.snapshotBackoff = min(state.snapshotBackoff * 2, .seconds(60))
        return .journalOnly(error)
    }

    /// Appends one commit to the journal and `fdatasync`s it.
    private func append(_ records: [StateRecord], _ state: inout WriterState) -> CommitResult {
        guard var journal = state.journal else { return .failed(FileSystemError("write", journalPath, errno: EBADF)) }
        let generation = shared.withLock { $0.generation } + 1
        var entry = StateJournal.entry(StateJournal.batchLine(generation: generation, records: records))
        if journal.dirtyEnd > journal.end + entry.count {
            entry += [UInt8](repeating: 0, count: journal.dirtyEnd - journal.end - entry.count)
        }
        if journal.end + entry.count > journal.allocated, journal.preallocating {
            // Zero-fill ahead, so most commits rewrite blocks the file already has and fdatasync need not also
            // write the file's size. With no room for that, the entry alone will do.
            let growth = max(preallocation, entry.count)
            do throws(FileSystemError) {
                try fileSystem.writeAll(
                    journal.fd, [UInt8](repeating: 0, count: growth), at: journal.allocated, path: journalPath)
                journal.allocated += growth
            } catch  where Self.isOutOfSpace(error) {
                // Whatever part of the zeros was written is harmless; until the next journal, commits are
                // written alone.
                journal.preallocating = false
            } catch {
                return poison(&state, error)
            }
        }
        do throws(FileSystemError) {
            try fileSystem.writeAll(journal.fd, entry, at: journal.end, path: journalPath)
        } catch  where Self.isOutOfSpace(error) {
            journal.dirtyEnd = max(journal.dirtyEnd, journal.end + entry.count)
            state.journal = journal
            return .failed(error)
        } catch {
            return poison(&state, error)
        }
        do throws(FileSystemError) {
            try fileSystem.syncData(journal.fd, path: journalPath)
        } catch {
            return poison(&state, error)
        }
        journal.end += entry.count
        journal.allocated = max(journal.allocated, journal.end)
        if journal.dirtyEnd <= journal.end { journal.dirtyEnd = 0 }
        state.journal = journal
        state.batchesSinceSnapshot += 1
        shared.withLock { $0.generation = generation }
        return .written
    }

    /// After a failed `fdatasync` (or a write that failed for another reason than space) the file's contents
    /// are unknown, and Linux may already have dropped the dirty pages: the journal is never appended to again,
    /// and the next commit is a whole snapshot.
    private func poison(_ state: inout WriterState, _ error: FileSystemError) -> CommitResult {
        if let journal = state.journal { fileSystem.close(journal.fd) }
        state.journal = nil
        return .failed(error)
    }

    /// Saves a whole snapshot atomically and durably, with a new journal after it whose carry holds `carry`.
    ///
    /// Both new files are written and synced under temporary names first; only then do the renames begin:
    /// `state.json` becomes `state.previous.json`, `state.journal` becomes `state.previous.journal`, and the new
    /// files take their places; one directory `fsync` makes it all durable. Until the renames, the open journal
    /// is untouched, so a failed snapshot leaves it usable.
    private func writeSnapshot(_ carry: [StateRecord], _ state: inout WriterState) -> CommitResult {
        var snapshot = blockingSnapshot()
        let generation = shared.withLock { $0.generation } + 1
        snapshot.generation = generation
        snapshot.origin = origin
        let bytes = StateSnapshot.encode(snapshot)
        let pid = getpid()
        let snapshotTemporary = "\(statePath)\(Self.temporarySuffix)\(pid)"
        let journalTemporary = "\(journalPath)\(Self.temporarySuffix)\(pid)"
        let start = StateJournal.start(base: generation, origin: origin, carry: carry)
        var allocated = start.count + preallocation
        do throws(FileSystemError) {
            try fileSystem.createDirectory(directory)
            try fileSystem.writeDurably(bytes, to: snapshotTemporary)
            do throws(FileSystemError) {
                try fileSystem.writeDurably(
                    start + [UInt8](repeating: 0, count: preallocation), to: journalTemporary)
            } catch  where Self.isOutOfSpace(error) {
                allocated = start.count
                try fileSystem.writeDurably(start, to: journalTemporary)
            }
        } catch {
            try? fileSystem.remove(snapshotTemporary)
            return .failed(error)
        }
        // From the first rename on, the old journal is the previous generation's: never appended to again.
        if let journal = state.journal { fileSystem.close(journal.fd) }
        state.journal = nil
        do throws(FileSystemError) {
            if fileSystem.fileExists(statePath) { try fileSystem.rename(statePath, to: previousPath) }
            if fileSystem.fileExists(journalPath) {
                try fileSystem.rename(journalPath, to: previousJournalPath)
            } else {
                try fileSystem.remove(previousJournalPath)
            }
            try fileSystem.rename(snapshotTemporary, to: statePath)
            try fileSystem.rename(journalTemporary, to: journalPath)
            try fileSystem.fsyncDirectory(directory)
        } catch {
            try? fileSystem.remove(snapshotTemporary)
            try? fileSystem.remove(journalTemporary)
            return .failed(error)
        }
        shared.withLock { $0.generation = generation }
        state.lastSnapshotSize = bytes.count
        state.batchesSinceSnapshot = 0
        do throws(FileSystemError) {
            let fd = try fileSystem.openExisting(journalPath)
            state.journal = JournalFile(fd: fd, end: start.count, allocated: allocated)
        } catch {
            return .savedButNoJournal(error)
        }
        return .written
    }

    /// The home's snapshot, from this plain thread: the provider runs as a task while the writer waits.
    private func blockingSnapshot() -> Fixture {
        let result = Mutex<Fixture?>(nil)
        let done = DispatchSemaphore(value: 0)
        let provider = provider
        Task {
            let fixture = await provider()
            result.withLock { $0 = fixture }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }

    /// Tells waiters and the health observer how a commit went.
    private func finish(
        _ result: CommitResult, mark: UInt64, records: [StateRecord], snapshot: Bool, _ state: inout WriterState
    ) {
        var error: FileSystemError?
        var failedSnapshot: FileSystemError?
        var saved = true
        switch result {
        case .written: break
        case .failed(let failure):
            error = failure
            saved = false
        case .savedButNoJournal(let failure): error = failure
        case .journalOnly(let failure):
            // The changes are safe; only those who asked for a snapshot hear that it failed.
            shared.withLock { $0.snapshotError = failure }
            failedSnapshot = failure
        }
        if saved { durable.store(max(durable.load(ordering: .acquiring), mark), ordering: .releasing) }
        typealias Continuation = CheckedContinuation<Result<Void, FileSystemError>, Never>
        var ring = false
        var snapshotFailed: [Continuation] = []
        let (failed, succeeded, observer, report) = shared.withLock {
            shared -> ([Continuation], [Continuation], (@Sendable (FileSystemError?) -> Void)?, Bool) in
            let previousError = shared.lastError
            let firstCommit = shared.commitCount == 0
            var failed: [Continuation] = []
            if saved {
                shared.commitCount += 1
                if snapshot, failedSnapshot == nil {
                    shared.snapshotCount += 1
                    shared.lastSnapshotSaved = shared.snapshotsStarted
                    shared.snapshotError = nil
                } else if failedSnapshot != nil {
                    let started = shared.snapshotsStarted
                    let hit = { (waiter: Waiter) in waiter.snapshot.map { $0 <= started } ?? false }
                    snapshotFailed = shared.waiters.filter(hit).map(\.continuation)
                    shared.waiters.removeAll(where: hit)
                }
            } else {
                // The changes are not lost: put back those not noted again since, for the next attempt.
                for record in records where shared.pendingIndex[record.entity] == nil {
                    shared.pendingIndex[record.entity] = shared.pending.count
                    shared.pending.append(record)
                }
                if !records.isEmpty, shared.pendingSince == nil { shared.pendingSince = .now }
                // Those waiting for these changes, and those waiting for this snapshot, hear it failed.
                let started = shared.snapshotsStarted
                let hit = { (waiter: Waiter) in
                    waiter.mark <= mark || (snapshot && waiter.snapshot.map { $0 <= started } ?? false)
                }
                failed = shared.waiters.filter(hit).map(\.continuation)
                shared.waiters.removeAll(where: hit)
            }
            if let error {
                shared.lastError = error
                shared.retryAt = .now + state.backoff
                state.backoff = min(state.backoff * 2, .seconds(5))
            } else {
                shared.lastError = nil
                shared.retryAt = nil
                state.backoff = retryDelay
            }
            let succeeded = resolveWaiters(&shared, durableMark: durable.load(ordering: .acquiring))
            // Told when health changes, not of every retry that fails again.
            let report = (error == nil) != (previousError == nil) || firstCommit
            // A failed commit (a waiter's, on its own thread) leaves the retry to the writer, which may be asleep.
            if error != nil { ring = shared.wakeWriter(for: .due) }
            return (failed, succeeded, shared.healthObserver, report)
        }
        // Health first, so whoever hears back from a write also finds the health it left behind.
        if ring { doorbell.signal() }
        if report { observer?(error) }
        if let error { for waiter in failed { waiter.resume(returning: .failure(error)) } }
        if let failedSnapshot { for waiter in snapshotFailed { waiter.resume(returning: .failure(failedSnapshot)) } }
        for waiter in succeeded { waiter.resume(returning: .success(())) }
    }

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

extension StateStore.Shared {
    /// The writer's next step, given the work and waiters recorded here, and the phase it sleeps in.
    mutating func nextStep(
        now: ContinuousClock.Instant, durability: Durability, relaxedDelay: Duration,
        grace: Duration = StateStore.leaderGrace
    ) -> StateStore.Next {
        if stopping { return .stop }
        let hasWork = !pending.isEmpty || snapshotWanted || lastError != nil
        guard hasWork else {
            if durability == .full, mark != markSeenByWriter {
                // Changes are coming, and those who wait for them commit them themselves. Rather than be
                // rung for every one, look again after the grace period; sleep for good after a quiet one.
                markSeenByWriter = mark
                writer = .napping
                return .wait(grace)
            }
            writer = .idle
            // Woken by a change; the timeout only lets the thread notice that its store is gone.
            return .wait(.seconds(1))
        }
        if let retryAt, now < retryAt {
            writer = .napping
            return .wait(now.duration(to: retryAt))
        }
        if waiters.isEmpty, !snapshotWanted, lastError == nil, let since = pendingSince {
            // Relaxed: let changes gather. Full: what nobody waits for yet can wait a moment, for the client
            // that will confirm it to ask (which wakes the writer at once) or commit it itself
            // (``waitUntilDurable(_:committingHere:)``), together with others.
            let delay = durability == .relaxed ? relaxedDelay : grace
            if now < since + delay {
                writer = .napping
                return .wait(now.duration(to: since + delay))
            }
        }
        return .commit
    }

    /// Whether the writer must be woken for `reason`; if so it counts as awake from now, so that one ring
    /// serves everyone until it sleeps again.
    mutating func wakeWriter(for reason: StateStore.WakeReason) -> Bool {
        switch (writer, reason) {
        case (.idle, _), (.napping, .due):
            writer = .working
            writerWakeups += 1
            return true
        case (.working, _), (.napping, .change):
            return false
        }
    }
}
