import LumenLoop
import LumenModel
import LumenProtocol
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps the simulation's state on disk: a snapshot (`state.json`) and a journal of what changed since
/// (`state.journal`), so that a change costs one small append and one `fdatasync`, however big the home.
///
/// The home hands the store the saved form of each entity as it changes (``record(_:)``); a light's comes as a
/// ``PendingLightRecord`` whose state the home keeps up to date in place until a commit takes it, so a light
/// switched many times between two commits is noted once. A commit writes
/// everything noted so far as one journal line, many changes sharing one `fdatasync` (group commit). One
/// writer commits, and owns the journal: an event loop of the store's own, named `lumend.store`.
/// When the journal grows past ``journalLimit`` (or twice the snapshot), after a failed write, and on
/// ``compact()`` and ``close()``, the writer saves a whole snapshot atomically and durably instead and starts
/// a new journal. ``StateLoader`` replays the journal onto the snapshot at start.
///
/// In `full` durability a caller waits with ``waitUntilDurable(_:)`` before acknowledging a write; in
/// `relaxed` durability the writer batches for up to ``relaxedDelay`` and nobody waits.
///
/// ```swift
/// let store = StateStore(directory: stateDir, durability: .full, origin: origin) { await home.snapshot() }
/// await home.setPersistenceSink(store)
/// try await store.compact()                           // the state as loaded, on disk
/// try await store.waitUntilDurable(store.changeMark)  // every change so far is on disk
/// ```
///
/// The writer runs on an event loop of its own rather than as a task: it spends its life blocked in `fsync`,
/// which must not hold one of the few threads Swift concurrency runs every actor on, nor a loop that serves
/// sockets. Its loop owns the disk and nothing else, so blocking there is what it is for: a change or a waiter
/// queues it a step, and its naps (the relaxed delay, a retry's backoff, the wait for the last snapshot at
/// stop) are the loop's timers.
package final class StateStore: StateRecordSink {
    /// Produces the snapshot to write: the simulation's state now.
    package typealias SnapshotProvider = @Sendable () async -> Fixture
    /// Told of persistence health when it changes: `nil` when healthy, else the error.
    package typealias HealthObserver = @Sendable (FileSystemError?) -> Void

    /// The state file's name in the state directory.
    package static let stateFileName = "state.json"
    /// The previous good generation, kept beside it.
    package static let previousFileName = "state.previous.json"
    /// The journal's name in the state directory.
    package static let journalFileName = StateJournal.fileName
    /// The journal that led from the previous generation to the current one, kept beside it.
    package static let previousJournalFileName = "state.previous.journal"
    /// The four files that hold the state.
    static let fileNames = [stateFileName, previousFileName, journalFileName, previousJournalFileName]
    /// What a file being written is called until it is complete: its final name, this, and lumend's PID.
    static let temporarySuffix = ".tmp-"

    /// The directory holding the state.
    let directory: String
    /// How writes are made durable.
    let durability: Durability
    /// How long a relaxed-mode change may wait before it is written.
    let relaxedDelay: Duration
    /// The journal size, in bytes, past which the next commit writes a snapshot instead (or twice the last
    /// snapshot's size, when that is larger).
    let journalLimit: Int
    /// How far ahead of its end the journal is filled, when there is room.
    let preallocation: Int
    /// How long after a failed write the first retry comes (doubling, up to 1 s, while failures go on).
    let retryDelay: Duration
    /// How long the commit at stop waits for the home's last snapshot; then what is pending goes to the
    /// journal without one (``finalSnapshotError``), so a home that never answers cannot hold up the stop.
    package let finalSnapshotTimeout: Duration
    let fileSystem: any FileSystem
    let provider: SnapshotProvider
    /// Where the provider's task runs (`nil`: the shared executor).
    let providerExecutor: (any TaskExecutor)?
    let origin: FixtureOrigin

    let shared: Locked<Shared>
    /// The writer's own state: the journal and its timers. Held on the writer's loop while it commits;
    /// start-up's ``resume(_:)`` and `deinit`, on other threads, take it too.
    let committer: Locked<WriterState>
    /// The mark of the newest change known to be on disk, readable without the lock.
    let durable = Atomic<UInt64>(0)
    /// The writer's loop, `lumend.store`: every step and commit runs on its thread.
    let loop: EventLoop

    /// State shared between callers and the writer.
    struct Shared {
        /// Counts changes noted.
        var mark: UInt64 = 0
        /// What the writer is doing, so that it is queued a step only when it sleeps (it starts with nothing
        /// to do, so the first change or waiter wakes it).
        var writer = WriterPhase.idle
        /// Saved forms not yet committed, one per entity, in the order first noted.
        var pending: [PendingRecord] = []
        var pendingIndex: [StateRecord.Subject: Int] = [:]
        /// When the oldest pending change was noted (relaxed mode waits from then).
        var pendingSince: ContinuousClock.Instant?
        var waiters: [Waiter] = []
        /// Snapshots asked for by ``compact()`` and not yet started.
        var snapshotWanted = false
        /// The writer asked the provider for the home's snapshot and waits for it (committing nothing
        /// meanwhile, so the snapshot holds everything the journal it replaces holds).
        var snapshotRequested = false
        /// The snapshot the provider gave, for the writer's next commit.
        var preparedSnapshot: Fixture?
        var stopping = false
        var stopped = false
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
        var lastError: FileSystemError?
        /// Why the last snapshot failed, while commits go on in the journal instead.
        var snapshotError: FileSystemError?
        /// Why the snapshot at stop failed (or never came, `ETIMEDOUT`), when every change was in the journal
        /// all the same.
        var finalSnapshotError: FileSystemError?
        var retryAt: ContinuousClock.Instant?
        var generation: Int
        var commitCount = 0
        var writerWakeups = 0
        var snapshotCount = 0
        /// Snapshots started, each numbered; the number of the newest one saved.
        var snapshotsStarted = 0
        var lastSnapshotSaved = 0
        var healthObserver: HealthObserver?
        /// Whether the observer has heard the outcome of a commit yet: the first is always told.
        var healthReported = false
    }

    /// Someone waiting for changes up to `mark` to be on disk (and, for ``compact()``, for a snapshot).
    struct Waiter {
        /// What a waiter is resumed through: told its changes are on disk, or why not.
        typealias Continuation = CheckedContinuation<Result<Void, FileSystemError>, Never>
        var mark: UInt64
        /// The number of the snapshot it waits for (one started after it asked), for ``compact()``.
        var snapshot: Int?
        var continuation: Continuation
    }

    /// A store, with its writer's loop running.
    /// - Parameters:
    ///   - directory: the state directory (created if missing).
    ///   - fileSystem: the file system; tests inject faults here.
    ///   - durability: `full` or `relaxed`.
    ///   - origin: the fixture the state comes from, recorded in every snapshot and journal.
    ///   - generation: the generation of the state loaded at start.
    ///   - relaxedDelay: how long relaxed mode lets changes gather before writing them.
    ///   - journalLimit: the journal size that triggers a snapshot.
    ///   - preallocation: how far ahead of its end the journal is filled.
    ///   - retryDelay: how long after a failed write the first retry comes.
    ///   - finalSnapshotTimeout: how long the commit at stop waits for the last snapshot.
    ///   - providerExecutor: where the provider runs (lumend's main event loop).
    ///   - provider: makes a snapshot of the home.
    package init(
        directory: String, fileSystem: any FileSystem = PosixFileSystem(), durability: Durability,
        origin: FixtureOrigin, generation: Int = 0, relaxedDelay: Duration = .milliseconds(200),
        journalLimit: Int = 4 << 20, preallocation: Int = StateJournal.preallocation,
        retryDelay: Duration = .milliseconds(100), finalSnapshotTimeout: Duration = .seconds(10),
        providerExecutor: (any TaskExecutor)? = nil, provider: @escaping SnapshotProvider
    ) {
        self.finalSnapshotTimeout = finalSnapshotTimeout
        self.providerExecutor = providerExecutor
        self.preallocation = preallocation
        self.retryDelay = retryDelay
        self.directory = directory
        self.fileSystem = fileSystem
        self.durability = durability
        self.origin = origin
        self.relaxedDelay = relaxedDelay
        self.journalLimit = journalLimit
        self.provider = provider
        shared = Locked(Shared(generation: generation))
        committer = Locked(WriterState(backoff: retryDelay))
        loop = EventLoop(name: "lumend.store")
    }

    deinit {
        // Released without close(): nothing more can be noted, but the journal must not leak, and the loop's
        // thread, whose steps hold the store only weakly, ends.
        committer.withLock { state in
            if let journal = state.journal { fileSystem.close(journal.fd) }
        }
        loop.stop()
    }

    /// The path of the state file.
    package var statePath: String { "\(directory)/\(Self.stateFileName)" }
    /// The path of the journal.
    package var journalPath: String { "\(directory)/\(Self.journalFileName)" }
    /// The path of the previous generation's snapshot.
    var previousPath: String { "\(directory)/\(Self.previousFileName)" }
    /// The path of the previous generation's journal.
    var previousJournalPath: String { "\(directory)/\(Self.previousJournalFileName)" }

    // MARK: - Noting changes

    /// Notes the saved form of an entity that changed. Call it from the home's persistence sink; it never
    /// blocks on the disk.
    package func record(_ record: StateRecord) {
        note(.record(record), about: record.subject)
    }

    /// Notes a light's saved form that the home updates in place until a commit takes it: its state changes
    /// meanwhile are written with it, and noted nowhere else.
    package func record(_ light: PendingLightRecord) {
        note(.light(light), about: light.subject)
    }

    private func note(_ record: PendingRecord, about subject: StateRecord.Subject) {
        let wake = shared.withLock { shared -> Bool in
            shared.mark += 1
            if let index = shared.pendingIndex[subject] {
                // What it replaces is set aside, so that an update of it fails rather than go unsaved.
                shared.pending[index].setAside()
                shared.pending[index] = record
            } else {
                shared.pendingIndex[subject] = shared.pending.count
                shared.pending.append(record)
            }
            if shared.pendingSince == nil { shared.pendingSince = .now }
            return shared.wakeWriter(for: .change)
        }
        if wake { queueStep() }
    }

    /// A saved form waiting to be committed.
    enum PendingRecord {
        case record(StateRecord)
        /// A light's, which its home may still update: taken (and so frozen) when committed.
        case light(PendingLightRecord)

        /// The record, taken: a light's is frozen as it is now.
        func take() -> StateRecord? {
            switch self {
            case .record(let record): record
            case .light(let light): light.take()
            }
        }

        /// Makes later updates of a light's record fail: it was replaced, or will not be written.
        func setAside() {
            if case .light(let light) = self { _ = light.take() }
        }
    }

    /// A mark covering every change noted so far.
    package var changeMark: UInt64 { shared.withLock { $0.mark } }

    // MARK: - Waiting

    /// Waits until every change up to `mark` is on disk.
    ///
    /// - Throws: ``LumenError`` `notPersisted` when the write that should have saved it failed, and at once
    ///   while the last commit has failed and no retry has succeeded since: a full disk does not make every
    ///   write wait for the retry.
    package func waitUntilDurable(_ mark: UInt64) async throws(LumenError) {
        if mark <= durable.load(ordering: .acquiring) { return }
        if case .failure(let error) = await wait(for: mark, snapshot: false, failingFast: true) {
            throw LumenError(
                .notPersisted,
                "the change was applied but could not be saved (\(error)); \(Self.advice(for: error, in: directory))",
                data: ["stateFile": .string(statePath), "errno": .int(Int(error.errno))])
        }
    }

    /// Writes everything noted so far now, without waiting for the relaxed delay or a retry's backoff.
    /// - Throws: ``FileSystemError`` when the write fails; what was on disk is left intact.
    package func flush() async throws(FileSystemError) {
        try await wait(for: changeMark, snapshot: false).get()
    }

    /// Writes a whole snapshot now and starts a new journal.
    /// - Throws: ``FileSystemError`` when the write fails; what was on disk is left intact.
    package func compact() async throws(FileSystemError) {
        try await wait(for: changeMark, snapshot: true).get()
    }

    /// Waits for a commit covering `mark` (and a snapshot, if asked).
    /// - Parameter failingFast: answer at once with the last commit's error while it stands, rather than wait
    ///   for the retry (which goes on regardless).
    private func wait(for mark: UInt64, snapshot: Bool, failingFast: Bool = false) async
        -> Result<Void, FileSystemError>
    {
        await withCheckedContinuation { continuation in
            let (stopped, wake) = shared.withLock { shared -> (Bool, Bool) in
                guard !shared.stopped else { return (true, false) }
                if failingFast, let error = shared.lastError {
                    continuation.resume(returning: .failure(error))
                    return (false, false)
                }
                // A flush or a snapshot asked for retries now.
                if !failingFast { shared.retryAt = nil }
                let number = snapshot ? shared.snapshotsStarted + 1 : nil
                if snapshot { shared.snapshotWanted = true }
                shared.waiters.append(Waiter(mark: mark, snapshot: number, continuation: continuation))
                return (false, shared.wakeWriter(for: .due))
            }
            if stopped {
                continuation.resume(returning: .failure(FileSystemError("write", statePath, errno: ESHUTDOWN)))
            }
            if wake { queueStep() }
        }
    }

    /// Goes on appending to the journal start-up loaded, when no snapshot has been written yet (the start-up
    /// snapshot failed, on a full or read-only disk, say): commits then need only their own space on disk.
    /// Returns whether the journal was taken up.
    package func resume(_ journal: StateLoader.ResumableJournal) -> Bool {
        let (resumed, observer) = committer.withLock { state -> (Bool, HealthObserver?) in
            guard state.journal == nil, let fd = try? fileSystem.openExisting(journalPath) else { return (false, nil) }
            state.journal = JournalFile(fd: fd, end: journal.end, allocated: journal.size)
            state.batchesSinceSnapshot = journal.commits
            // A snapshot that failed for want of a journal (the start-up one, on a full disk) is now one that
            // fails while the journal takes commits: every change is on disk, and only the snapshot is retried,
            // later, as when a snapshot fails beside an open journal. Left as the write error, it would have the
            // writer retry a commit with nothing in it.
            let (recovered, observer) = shared.withLock { shared -> (Bool, HealthObserver?) in
                guard let error = shared.lastError, shared.pending.isEmpty else { return (false, nil) }
                shared.snapshotError = error
                shared.lastError = nil
                shared.retryAt = nil
                return (true, shared.healthObserver)
            }
            guard recovered else { return (true, nil) }
            state.backoff = retryDelay
            state.snapshotRetryAt = .now + state.snapshotBackoff
            state.snapshotBackoff = min(state.snapshotBackoff * 2, .seconds(60))
            return (true, observer)
        }
        observer?(nil)
        return resumed
    }

    // MARK: - Running

    /// Runs until cancelled, then saves a last snapshot and stops the writer (``close()``).
    package func run() async {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        await withTaskCancellationHandler {
            for await _ in stream {}
        } onCancel: {
            continuation.finish()
        }
        await close()
    }

    /// Saves a last snapshot if anything changed since the last one, and stops the writer's loop, returning
    /// once its thread has ended. Changes noted afterwards are not saved.
    package func close() async {
        await withCheckedContinuation { continuation in
            let (stopped, wake) = shared.withLock { shared -> (Bool, Bool) in
                guard !shared.stopped else { return (true, false) }
                shared.stopping = true
                shared.stopWaiters.append(continuation)
                return (false, shared.wakeWriter(for: .due))
            }
            if stopped { continuation.resume() }
            if wake { queueStep() }
        }
        await loop.shutDown()
    }

    /// What an operator can do about a failed write, in words.
    static func advice(for error: FileSystemError, in directory: String) -> String {
        switch error.errno {
        case ENOSPC, EDQUOT:
            "the disk holding \(directory) is full: free some space there; lumend retries on its own and saves "
                + "the change then, without a restart"
        case EROFS:
            "\(directory) is on a read-only file system: remount it read-write; lumend retries on its own"
        case EACCES, EPERM:
            "lumend may not write in \(directory): give it back to the user lumend runs as; lumend retries on its own"
        default:
            "lumend keeps retrying; if this goes on, check the disk holding \(directory) (dmesg)"
        }
    }

    // MARK: - Health

    /// Sets a function told of persistence health after each write attempt that changes it: `nil` when
    /// healthy, else the error.
    package func onHealthChange(_ observer: @escaping HealthObserver) {
        shared.withLock { $0.healthObserver = observer }
    }

    /// The last write error, while writes are failing: changes are not reaching the disk.
    package var lastError: FileSystemError? { shared.withLock { $0.lastError } }
    /// Why snapshots are failing, while every change is still saved in the journal (which then grows past
    /// its limit until a snapshot succeeds).
    package var snapshotError: FileSystemError? { shared.withLock { $0.snapshotError } }
    /// Why the snapshot at stop could not be written (`ETIMEDOUT`: the home did not give it in time), when
    /// every change was saved in the journal all the same.
    package var finalSnapshotError: FileSystemError? { shared.withLock { $0.finalSnapshotError } }
    /// The number of commits made: journal appends and snapshots.
    package var commitCount: Int { shared.withLock { $0.commitCount } }
    /// The number of snapshots written.
    package var snapshotCount: Int { shared.withLock { $0.snapshotCount } }
}

/// A digest of a fixture's text, so a state file can tell whether it came from this fixture.
package func fixtureDigest(_ bytes: [UInt8]) -> String {
    "fnv1a64:" + String(hex: bytes.withUnsafeBufferPointer { FNV1a.hash($0) }, digits: 16)
}
