import Foundation
import LumenModel
import LumenProtocol
import LumenTestSupport
import Synchronization
import Testing

@testable import LumenStore

/// A stand-in for the home: a fixture whose name changes, telling the store each time, as the home does.
final class NamedHome: Sendable {
    private let state = Locked(Fixture(id: "t", name: "version 0", rooms: []))
    let version = Atomic<Int>(0)

    var fixture: Fixture { state.withLock { $0 } }

    /// Renames the home and hands the store the new saved form.
    func change(_ store: StateStore) {
        let version = version.add(1, ordering: .relaxed).newValue
        let record = state.withLock { fixture -> StateRecord in
            fixture.name = "version \(version)"
            return .home(name: fixture.name, roomIDs: [])
        }
        store.record(record)
    }
}

@Suite("State store", .timeLimit(.minutes(2)))
struct StateStoreTests {
    let directory = TemporaryDirectory()
    let fileSystem = FaultyFileSystem()
    let home = NamedHome()
    let origin = FixtureOrigin(id: "t", digest: "d")

    func makeStore(
        durability: Durability = .full, journalLimit: Int = 4 << 20, retryDelay: Duration = .milliseconds(100),
        relaxedDelay: Duration = .milliseconds(200)
    ) -> StateStore {
        let home = home
        return StateStore(
            directory: directory.path, fileSystem: fileSystem, durability: durability, origin: origin,
            relaxedDelay: relaxedDelay, journalLimit: journalLimit, retryDelay: retryDelay
        ) { home.fixture }
    }

    func saved(_ name: String = "state.json") throws -> Fixture {
        try Fixture(json: Array(try Data(contentsOf: URL(fileURLWithPath: directory.file(name)))))
    }

    /// What lumend would start from: the snapshot with the journal replayed. A load reads the whole journal, 1 MiB
    /// preallocated, which in a debug build is slow enough to run on a thread of its own, off the pool that other
    /// tests' tasks need.
    func loaded() async throws -> StateLoader.Outcome {
        let (path, origin) = (directory.path, origin)
        return try await offload {
            try StateLoader(directory: path).load(
                fixture: Fixture(id: "t", name: "fixture", rooms: []), origin: origin, fixtureIsExplicit: false,
                reset: false)
        }
    }

    /// Waits (watching the directory) until the journal holds `commits` commits; `false` if it never does.
    func journalReaches(commits: Int) async -> Bool {
        let path = directory.file("state.journal")
        return await waitForCondition(in: directory.path) {
            guard let bytes = FileManager.default.contents(atPath: path) else { return false }
            return StateJournal.read(Array(bytes)).batches.count == commits
        }
    }

    func journal() throws -> StateJournal.Contents {
        StateJournal.read(Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("state.journal")))))
    }

    @Test func aSnapshotGoesTempFileWriteFsyncRenameFsyncDirectoryThenANewJournal() async throws {
        let store = makeStore()
        try await store.compact()
        let calls = fileSystem.calls.filter { !$0.hasPrefix("read") }
        let pid = getpid()
        let directoryName = (directory.path as NSString).lastPathComponent
        #expect(
            calls == [
                // Both new files are complete and durable before the first rename; one directory fsync covers
                // all the renames.
                "open state.json.tmp-\(pid)", "write state.json.tmp-\(pid)", "fsync state.json.tmp-\(pid)",
                "open state.journal.tmp-\(pid)", "write state.journal.tmp-\(pid)", "fsync state.journal.tmp-\(pid)",
                "rename state.json.tmp-\(pid)", "rename state.journal.tmp-\(pid)", "fsync-dir \(directoryName)",
                "open state.journal",
            ])
        let state = try saved()
        #expect(state.name == "version 0")
        #expect(state.generation == 1)
        #expect(state.origin == origin)
        #expect(try journal().header == StateJournal.Header(base: 1, origin: origin))
        // The next snapshot keeps this one as the previous generation.
        home.change(store)
        try await store.compact()
        #expect(try saved("state.previous.json").generation == 1)
        #expect(try saved().name == "version 1")
        #expect(try saved().generation ?? 0 > 1)
        await store.close()
    }

    @Test func aChangeIsOneJournalAppendAndOneFdatasyncWithNoRename() async throws {
        let store = makeStore()
        try await store.compact()
        fileSystem.clearCalls()
        home.change(store)
        try await store.flush()
        #expect(fileSystem.calls == ["write state.journal", "fdatasync state.journal"])
        let contents = try journal()
        #expect(
            contents.batches == [StateJournal.Batch(generation: 2, records: [.home(name: "version 1", roomIDs: [])])])
        #expect(contents.damage == nil)
        #expect(try saved().name == "version 0")
        let outcome = try await loaded()
        #expect(outcome.fixture.name == "version 1")
        #expect(outcome.generation == 2)
        #expect(outcome.replayedCommits == 1)
        await store.close()
    }

    @Test func whatWasConfirmedIsWhatLoads() async throws {
        let store = makeStore(journalLimit: 600)
        try await store.compact()
        for _ in 0..<40 {
            home.change(store)
            try await store.waitUntilDurable(store.changeMark)
            // Each confirmed change is what a restart right now would load, whether or not a snapshot
            // (the journal limit is small, so there are several) happened in between.
            #expect(try await loaded().fixture.name == home.fixture.name)
        }
        #expect(store.snapshotCount > 2)
        #expect(store.commitCount > 40)
        await store.close()
    }

    @Test(arguments: [ENOSPC, EIO])
    func aFailedWriteIsReportedAndWhatWasConfirmedStillLoads(_ code: Int32) async throws {
        let store = makeStore()
        try await store.compact()
        home.change(store)
        try await store.flush()
        // Writes fail, for the journal and for snapshots alike.
        fileSystem.inject(.fail(operation: "write", errno: code))
        home.change(store)
        await #expect(throws: FileSystemError.self) { try await store.flush() }
        #expect(store.lastError != nil)
        #expect(try await loaded().fixture.name == "version 1")
        #expect(try saved().name == "version 0")
        fileSystem.heal()
        try await store.flush()
        #expect(try await loaded().fixture.name == "version 2")
        #expect(store.lastError == nil)
        await store.close()
    }

    @Test func aJournalWhoseFdatasyncFailedIsNeverAppendedToAgain() async throws {
        let store = makeStore()
        try await store.compact()
        fileSystem.clearCalls()
        fileSystem.inject(.fail(operation: "fdatasync", errno: EIO))
        home.change(store)
        // Whether this flush sees the failure or the snapshot retried after it depends on timing; what
        // follows the failure does not.
        try? await store.flush()
        fileSystem.heal()
        home.change(store)
        try await store.flush()
        let calls = fileSystem.calls
        let failed = try #require(calls.firstIndex(of: "fdatasync state.journal"))
        let snapshot = try #require(calls[failed...].firstIndex(of: "rename state.json.tmp-\(getpid())"))
        // After Linux reports a failed fdatasync the file's pages may be dropped or marked clean: the
        // journal cannot be trusted, so the next commit is a whole snapshot and a new journal.
        #expect(!calls[failed..<snapshot].contains("write state.journal"))
        #expect(try await loaded().fixture.name == "version 2")
        await store.close()
    }

    @Test(arguments: [
        FaultyFileSystem.Fault.fail(operation: "open", errno: EACCES),
        .fail(operation: "write", errno: ENOSPC),
        .fail(operation: "fsync", errno: EIO),
        .fail(operation: "rename", errno: EIO),
    ])
    func everyInjectedSnapshotFaultLeavesTheStateIntact(_ fault: FaultyFileSystem.Fault) async throws {
        let store = makeStore()
        home.change(store)
        try await store.compact()
        home.change(store)
        try await store.flush()
        fileSystem.inject(fault)
        await #expect(throws: FileSystemError.self) { try await store.compact() }
        #expect(try saved().name == "version 1", "\(fileSystem.calls)")
        #expect(try await loaded().fixture.name == "version 2")
        // Reported: as a failed write when the renames had begun, else as a failed snapshot whose changes the
        // journal still holds.
        #expect((store.lastError ?? store.snapshotError) != nil)
        // The writer retries on its own; once it has stopped, no attempt has left a temporary file behind.
        await store.close()
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.contains(".tmp-")
        }
        #expect(leftovers.isEmpty)
    }

    @Test func aFailedDirectoryFsyncIsReportedAndTheFilesAreStillWhole() async throws {
        let store = makeStore()
        home.change(store)
        try await store.compact()
        fileSystem.inject(.fail(operation: "fsync-dir", errno: EIO))
        home.change(store)
        await #expect(throws: FileSystemError.self) { try await store.compact() }
        // The renames happened but are not known to be durable: whichever files are there are complete.
        #expect(["version 1", "version 2"].contains(try saved().name))
        #expect(["version 1", "version 2"].contains(try saved("state.previous.json").name))
        #expect(try await loaded().fixture.name == "version 2")
        await store.close()
    }

    @Test func shortWritesAreResumedNotCorrupting() async throws {
        fileSystem.inject(.shortWrites(7))
        let store = makeStore()
        try await store.compact()
        home.change(store)
        try await store.flush()
        #expect(try await loaded().fixture.name == "version 1")
        #expect(fileSystem.calls.filter { $0.hasPrefix("write") }.count > 10)
        await store.close()
    }

    @Test func fullDurabilityWaitersFailWithNotPersistedAndNeverHearSaved() async throws {
        let store = makeStore()
        try await store.compact()
        fileSystem.inject(.fail(operation: "write", errno: EIO))
        home.change(store)
        do {
            try await store.waitUntilDurable(store.changeMark)
            Issue.record("a write that failed was reported as saved")
        } catch {
            #expect(error.code == .notPersisted)
            #expect(error.message.contains("could not be saved"))
        }
        fileSystem.heal()
        // The writer retries with backoff (a flush retries at once); the next wait succeeds once it caught up.
        try await store.flush()
        home.change(store)
        try await store.waitUntilDurable(store.changeMark)
        #expect(try await loaded().fixture.name == "version 2")
        await store.close()
    }

    @Test(arguments: [ENOSPC, EIO])
    func onceACommitHasFailedLaterWritesFailAtOnceUntilARetrySucceeds(errno code: Int32) async throws {
        // No retry comes during the test: a write that waited for one would wait out the time limit.
        let store = makeStore(retryDelay: .seconds(3_600))
        try await store.compact()
        fileSystem.inject(.fail(operation: code == ENOSPC ? "write" : "fdatasync", errno: code))
        home.change(store)
        await #expect(throws: LumenError.self) { try await store.waitUntilDurable(store.changeMark) }
        for _ in 0..<3 {
            home.change(store)
            let error = await #expect(throws: LumenError.self) { try await store.waitUntilDurable(store.changeMark) }
            #expect(error?.code == .notPersisted)
        }
        fileSystem.heal()
        try await store.flush()
        home.change(store)
        try await store.waitUntilDurable(store.changeMark)
        #expect(try await loaded().fixture.name == "version 5")
        await store.close()
    }

    @Test func retriesComeAtLeastOnceASecond() {
        var backoff = Duration.milliseconds(100)
        for _ in 0..<20 { backoff = StateStore.nextRetryDelay(after: backoff) }
        #expect(backoff == .seconds(1))
    }

    @Test func healthIsReportedWhenWritesFailAndWhenTheyRecover() async throws {
        let store = makeStore()
        let reports = Locked<[String?]>([])
        store.onHealthChange { error in reports.withLock { $0.append(error.map { "\($0.operation)" }) } }
        try await store.compact()
        fileSystem.inject(.fail(operation: "write", errno: ENOSPC))
        home.change(store)
        await #expect(throws: FileSystemError.self) { try await store.flush() }
        fileSystem.heal()
        try await store.flush()
        // Healthy after the first write, degraded on the failure, healthy again once it catches up.
        #expect(reports.withLock { $0 } == [nil, "write", nil])
        await store.close()
    }

    /// Before any commit has succeeded, a retry that fails as the last one did is no change of health: told
    /// again, a daemon starting on a full disk reported its failure once per retry.
    @Test func aRetryThatFailsAgainBeforeTheFirstCommitIsNotReportedAgain() async throws {
        let store = makeStore()
        let reports = Locked<[String?]>([])
        store.onHealthChange { error in reports.withLock { $0.append(error.map { "\($0.operation)" }) } }
        fileSystem.inject(.fail(operation: "write", errno: ENOSPC))
        await #expect(throws: FileSystemError.self) { try await store.compact() }
        await #expect(throws: FileSystemError.self) { try await store.compact() }
        fileSystem.heal()
        try await store.compact()
        #expect(reports.withLock { $0 } == ["write", nil])
        await store.close()
    }

    @Test func concurrentFlushesAllSeeTheirChangesSaved() async throws {
        let store = makeStore()
        try await store.compact()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                home.change(store)
                group.addTask { try await store.flush() }
            }
            try await group.waitForAll()
        }
        #expect(try await loaded().fixture.name == "version 20")
        await store.close()
    }

    @Test func manyChangesShareOneCommit() async throws {
        let store = makeStore()
        try await store.compact()
        let before = store.commitCount
        for _ in 0..<100 { home.change(store) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<100 { group.addTask { try await store.waitUntilDurable(store.changeMark) } }
            try await group.waitForAll()
        }
        // The writer commits as changes come, so a few commits share them, never one each.
        let commits = store.commitCount - before
        #expect(commits < 20)
        // One entity changed many times before a commit is one record in it, not many.
        #expect(try journal().batches.flatMap(\.records).count == commits)
        #expect(try await loaded().fixture.name == "version 100")
        await store.close()
    }

    @Test func closingSavesALastSnapshotAndAFreshJournal() async throws {
        let store = makeStore()
        try await store.compact()
        home.change(store)
        try await store.flush()
        home.change(store)
        await store.close()
        #expect(try saved().name == "version 2")
        #expect(try journal().batches.isEmpty)
        // Once closed, waiting fails rather than hanging.
        await #expect(throws: FileSystemError.self) { try await store.flush() }
    }

    /// The home's snapshot is made before the writer takes what is pending: a change noted while it is being
    /// made is carried into the journal after it, and is on disk once confirmed, the store still open.
    @Test func aChangeNotedWhileTheSnapshotIsMadeIsCarried() async throws {
        let home = home
        let box = Locked<StateStore?>(nil)
        let store = StateStore(directory: directory.path, fileSystem: fileSystem, durability: .full, origin: origin) {
            let fixture = home.fixture
            if home.version.load(ordering: .relaxed) == 1, let store = box.withLock({ $0 }) { home.change(store) }
            return fixture
        }
        box.withLock { $0 = store }
        home.change(store)
        try await store.compact()
        try await store.waitUntilDurable(store.changeMark)
        #expect(home.version.load(ordering: .relaxed) == 2)
        let outcome = try await loaded()
        #expect(outcome.fixture.name == "version 2", "warnings: \(outcome.warnings)")
        await store.close()
        #expect(try await loaded().fixture.name == "version 2")
    }

    @Test func aCommitIsOneAppendAndOneFdatasyncOnTheWritersThread() async throws {
        let store = makeStore()
        try await store.compact()
        let commits = store.commitCount
        fileSystem.clearCalls()
        home.change(store)
        try await store.waitUntilDurable(store.changeMark)
        #expect(fileSystem.calls == ["write state.journal", "fdatasync state.journal"])
        #expect(store.commitCount == commits + 1)
        #expect(try await loaded().fixture.name == "version 1")
        await store.close()
    }

    @Test func aWaiterHearsOfAFailedFdatasyncAndTheRetryIsASnapshot() async throws {
        let store = makeStore()
        try await store.compact()
        let snapshots = store.snapshotCount
        fileSystem.inject(.fail(operation: "fdatasync", errno: EIO))
        home.change(store)
        do {
            try await store.waitUntilDurable(store.changeMark)
            Issue.record("a commit that failed was reported as saved")
        } catch {
            #expect(error.code == .notPersisted)
        }
        fileSystem.heal()
        // The retry is a snapshot: the failed journal is not appended to again. Until it succeeds, writes fail
        // at once.
        try await store.flush()
        #expect(store.snapshotCount == snapshots + 1)
        home.change(store)
        try await store.waitUntilDurable(store.changeMark)
        #expect(try await loaded().fixture.name == "version 2")
        await store.close()
    }

    @Test func manyWaitersShareCommits() async throws {
        let store = makeStore()
        try await store.compact()
        for _ in 0..<50 { home.change(store) }
        // Taken once every change is noted: the writer may be committing the first of them already.
        let before = store.commitCount
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask { try await store.waitUntilDurable(store.changeMark) }
            }
            try await group.waitForAll()
        }
        // Fifty waiters, and at most two commits: the one under way when they came, and the next, which takes
        // everything noted by then.
        #expect(store.commitCount - before <= 2)
        #expect(try await loaded().fixture.name == "version 50")
        await store.close()
    }

    @Test func inFullDurabilityAChangeNobodyWaitsForIsStillWritten() async throws {
        let store = makeStore()
        try await store.compact()
        home.change(store)
        #expect(await journalReaches(commits: 1))
        await store.close()
    }

    @Test func relaxedDurabilityWritesWithoutAnyoneWaiting() async throws {
        let store = makeStore(durability: .relaxed)
        try await store.compact()
        home.change(store)
        // Nobody waits: the writer gets to it after the relaxed delay. Watch the journal grow.
        #expect(await journalReaches(commits: 1))
        #expect(try await loaded().fixture.name == "version 1")
        await store.close()
    }

    @Test func aFullDurabilityFlushLeavesTheWriterNoTimer() async throws {
        let store = makeStore()
        try await store.compact()
        home.change(store)
        try await store.flush()
        #expect(store.loop.timerDeadlines.isEmpty)
        await store.close()
    }

    @Test func aRelaxedFlushCancelsTheWritersNap() async throws {
        // A delay no run reaches, so that the nap is still set when the flush comes.
        let store = makeStore(durability: .relaxed, relaxedDelay: .seconds(600))
        try await store.compact()
        home.change(store)
        var napping = false
        for _ in 0..<200_000 where !napping {
            napping = store.loop.timerDeadlines.count == 1
            await Task.yield()
        }
        #expect(napping, "the writer naps until the relaxed delay ends")
        try await store.flush()
        #expect(store.loop.timerDeadlines.isEmpty)
        await store.close()
    }

    /// The thread of the store's loop, which every step and commit of its writer runs on.
    func writerThread(_ store: StateStore) async throws -> Int32 {
        let thread = await store.loop.executeAndWait { _ in currentThreadID() }
        try #require(thread > 0)
        return thread
    }

    /// The journal's descriptor is open in this process.
    func journalIsOpen() -> Bool {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.contains {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)"))
                == directory.file("state.journal")
        }
    }

    @Test func closingEndsTheWritersLoop() async throws {
        let store = makeStore()
        try await store.compact()
        let thread = try await writerThread(store)
        #expect(journalIsOpen())
        await store.close()
        #expect(!journalIsOpen())
        #expect(await waitForThreadExit(thread))
    }

    /// A store that saved a snapshot and then noted a change, released without close() on return; the thread
    /// its loop ran on, asked for after the change, so a commit of it at once comes first.
    func releasedStore(_ durability: Durability) async throws -> Int32 {
        let store = makeStore(durability: durability)
        try await store.compact()
        home.change(store)
        return try await writerThread(store)
    }

    /// Released without close() (as when lumend's start fails after the store was made): no last snapshot, but
    /// the journal is closed and the loop's thread ends, though its queued steps and a nap's timer (relaxed
    /// durability) hold the store only weakly.
    @Test(arguments: [Durability.full, .relaxed])
    func aStoreReleasedWithoutCloseEndsItsLoopAndClosesItsJournal(_ durability: Durability) async throws {
        let thread = try await releasedStore(durability)
        #expect(await waitForThreadExit(thread))
        #expect(!journalIsOpen())
        // Full durability committed the change at once; relaxed may have let it wait past the release, and lose
        // it as a kill would.
        let name = try await loaded().fixture.name
        #expect(name == "version 1" || (durability == .relaxed && name == "version 0"))
    }

    /// A store whose home stops giving snapshots once `stalled` is set: each one asked for then waits until
    /// the test ends, and `asked` hears of it.
    final class StallingProvider: Sendable {
        let stalled = Atomic<Bool>(false)
        let parked = Locked<[CheckedContinuation<Void, Never>]>([])
        let (asked, askedContinuation) = AsyncStream.makeStream(of: Void.self)

        func snapshot(of home: NamedHome) async -> Fixture {
            if stalled.load(ordering: .acquiring) {
                askedContinuation.yield()
                await withCheckedContinuation { continuation in parked.withLock { $0.append(continuation) } }
            }
            return home.fixture
        }

        func release() {
            for continuation in parked.withLock({ parked in
                defer { parked = [] }; return parked
            }) {
                continuation.resume()
            }
        }
    }

    func makeStallingStore(_ provider: StallingProvider) -> StateStore {
        let home = home
        return StateStore(
            directory: directory.path, fileSystem: fileSystem, durability: .full, origin: origin,
            finalSnapshotTimeout: .milliseconds(200)
        ) { await provider.snapshot(of: home) }
    }

    /// The last snapshot never comes: the store stops all the same once its time is up, with the changes
    /// still pending in the journal, and says why there is no snapshot.
    @Test func aLastSnapshotThatNeverComesDoesNotHoldUpTheStop() async throws {
        let provider = StallingProvider()
        defer { provider.release() }
        let store = makeStallingStore(provider)
        try await store.compact()
        provider.stalled.store(true, ordering: .releasing)
        home.change(store)
        await store.close()
        #expect(store.lastError == nil)
        #expect(store.finalSnapshotError?.errno == ETIMEDOUT)
        #expect(try await loaded().fixture.name == "version 1")
    }

    /// A stop asked for while the writer waits for a snapshot it asked for itself is not held up either.
    @Test func aStopWhileTheWriterWaitsForASnapshotIsNotHeldUp() async throws {
        let provider = StallingProvider()
        defer { provider.release() }
        let store = makeStallingStore(provider)
        try await store.compact()
        provider.stalled.store(true, ordering: .releasing)
        home.change(store)
        let compacting = Task { try await store.compact() }
        var asked = provider.asked.makeAsyncIterator()
        await asked.next()
        await store.close()
        #expect((try? await compacting.value) == nil)
        #expect(store.finalSnapshotError?.errno == ETIMEDOUT)
        #expect(try await loaded().fixture.name == "version 1")
    }
}
