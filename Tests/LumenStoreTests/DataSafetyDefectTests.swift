import Foundation
import LumenModel
import LumenProtocol
import LumenStore
import LumenTestSupport
import Testing

/// Ways the state files were once damaged or misused that lost or changed saved state, each kept as a case.
@Suite("Data safety: damaged and misused state files", .timeLimit(.minutes(2)))
struct DataSafetyDefectTests {
    let directory = TemporaryDirectory()
    let fileSystem = FaultyFileSystem()
    let home = NamedHome()
    let origin = FixtureOrigin(id: "t", digest: "d")

    func makeStore(journalLimit: Int = 4 << 20, generation: Int = 0) -> StateStore {
        let home = home
        return StateStore(
            directory: directory.path, fileSystem: fileSystem, durability: .full, origin: origin,
            generation: generation, journalLimit: journalLimit
        ) { home.fixture }
    }

    /// What lumend would start from, loaded on a thread of its own (slow in a debug build), off the pool that
    /// other tests' tasks need.
    func loaded() async throws -> StateLoader.Outcome {
        let (path, origin) = (directory.path, origin)
        return try await offload {
            try StateLoader(directory: path, now: { 1_700_000_000 }).load(
                fixture: Fixture(id: "t", name: "fixture", rooms: []), origin: origin, fixtureIsExplicit: false,
                reset: false)
        }
    }

    func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: directory.file(name))))
    }
    func write(_ bytes: [UInt8], _ name: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: directory.file(name)))
    }
    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: directory.file(name)) }
    func names() -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] }

    /// A store that saved a snapshot, then `commits` confirmed changes, then stopped without a last snapshot
    /// (as `kill -9` would leave it).
    func confirmedChanges(_ commits: Int, rotations: Int = 0) async throws {
        let store = makeStore()
        try await store.compact()
        for round in 0...rotations {
            if round > 0 { try await store.compact() }
            for _ in 0..<commits {
                home.change(store)
                try await store.waitUntilDurable(store.changeMark)
            }
        }
        // Released without close(), as `kill -9` would leave it: no last snapshot.
    }

    @Test func aNulByteWhereACommitStartsIsDamageNotTheEndOfTheJournal() async throws {
        try await confirmedChanges(6)
        var journal = try bytes("state.journal")
        let lineStarts = journal.indices.filter { $0 == 0 || journal[$0 - 1] == UInt8(ascii: "\n") }
        // Zero the first byte of the first commit line after the header.
        let target = lineStarts.first { $0 > 0 && journal[$0] != 0 }!
        journal[target] = 0
        try write(journal, "state.journal")
        let outcome = try await loaded()
        #expect(outcome.fixture.name == "version 6")
        #expect(outcome.warnings.contains { $0.contains("damaged") })
        #expect(names().contains { $0.hasPrefix("state.journal.damaged-") })
    }

    @Test func aFlippedByteInTheSnapshotIsDetected() async throws {
        try await confirmedChanges(0)
        var state = try bytes("state.json")
        let at = state.firstIndex(of: UInt8(ascii: "0"))!  // inside "version 0"
        state[at] = UInt8(ascii: "9")
        try write(state, "state.json")
        let outcome = try await loaded()
        #expect(outcome.fixture.name != "version 9")
        #expect(outcome.warnings.contains { $0.contains("state.json") && $0.contains("checksum") })
        #expect(names().contains { $0.hasPrefix("state.json.corrupt-") })
    }

    @Test func aDamagedSnapshotLosesNoCommitOfAnIntactJournal() async throws {
        // Two rotations: state.json follows state.previous.json, and each has its journal.
        try await confirmedChanges(5, rotations: 2)
        var state = try bytes("state.json")
        state[state.count / 2] ^= 0x20
        try write(state, "state.json")
        let outcome = try await loaded()
        #expect(outcome.fixture.name == "version 15")
        #expect(outcome.source == .previous)
    }

    @Test func aStateThatCannotBeReadStopsStartUpAndIsLeftAlone() async throws {
        try await confirmedChanges(2)
        let before = try bytes("state.json")
        fileSystem.inject(.fail(operation: "read", errno: EACCES))
        #expect(throws: StateLoader.Refusal.self) {
            try StateLoader(directory: directory.path, fileSystem: fileSystem).load(
                fixture: Fixture(id: "t", name: "fixture", rooms: []), origin: origin, fixtureIsExplicit: false,
                reset: false)
        }
        fileSystem.heal()
        #expect(try bytes("state.json") == before)
    }

    /// Each reason a state file cannot be read gets its own advice: ownership only when the error is one of
    /// permission, the size bound when the file is too large, and otherwise what the error says.
    @Test(arguments: [
        (EFBIG, "larger than the 1 GiB lumend reads"), (EACCES, "give the files in"), (EPERM, "give the files in"),
        (EIO, "Input/output error"),
    ])
    func aStateThatCannotBeReadIsRefusedWithAdviceForItsError(_ code: Int32, _ advice: String) async throws {
        try await confirmedChanges(1)
        fileSystem.inject(.fail(operation: "read", errno: code))
        let refusal = try #require(throws: StateLoader.Refusal.self) {
            try StateLoader(directory: directory.path, fileSystem: fileSystem).load(
                fixture: Fixture(id: "t", name: "fixture", rooms: []), origin: origin, fixtureIsExplicit: false,
                reset: false)
        }
        fileSystem.heal()
        #expect(refusal.description.contains(directory.file("state.json")), "\(refusal)")
        #expect(refusal.description.contains(advice), "\(refusal)")
        let isPermission = code == EACCES || code == EPERM
        #expect(refusal.description.contains("give the files in") == isPermission, "\(refusal)")
    }

    /// A state file too large is refused quoting the bound of the file system that read it, not lumend's default.
    @Test func aStateTooLargeIsRefusedQuotingTheBoundOfTheFileSystemThatReadIt() async throws {
        try write([UInt8](repeating: 0x20, count: 2_048), "state.json")
        let refusal = try #require(throws: StateLoader.Refusal.self) {
            try StateLoader(directory: directory.path, fileSystem: PosixFileSystem(maxReadBytes: 1_024)).load(
                fixture: Fixture(id: "t", name: "fixture", rooms: []), origin: origin, fixtureIsExplicit: false,
                reset: false)
        }
        #expect(refusal.description.contains("larger than the 1 KiB lumend reads"), "\(refusal)")
    }

    @Test func temporaryFilesOfAKilledSnapshotAreRemovedAtStart() async throws {
        try await confirmedChanges(1)
        for name in ["state.json.tmp-99999", "state.journal.tmp-12345", "state.json.tmp-1"] {
            try write(Array("partial".utf8), name)
        }
        let outcome = try await loaded()
        #expect(outcome.fixture.name == "version 1")
        #expect(!names().contains { $0.contains(".tmp-") })
    }

    @Test func withTooLittleSpaceToPreallocateCommitsStillAppendToTheJournal() async throws {
        let store = makeStore()
        // Less than a preallocation's worth of space is free: large writes fail, small ones succeed.
        fileSystem.inject(.failWritesLargerThan(64 << 10, errno: ENOSPC))
        try await store.compact()
        let snapshots = store.snapshotCount
        for _ in 0..<5 {
            home.change(store)
            try await store.waitUntilDurable(store.changeMark)
        }
        #expect(store.snapshotCount == snapshots)
        #expect(store.lastError == nil)
        #expect(try await loaded().fixture.name == "version 5")
        await store.close()
    }

    @Test func afterAFullDiskTheNextCommitNeedsOnlyTheSpaceOfTheChange() async throws {
        let store = makeStore()
        try await store.compact()
        let snapshots = store.snapshotCount
        fileSystem.inject(.fail(operation: "write", errno: ENOSPC))
        home.change(store)
        await #expect(throws: LumenError.self) { try await store.waitUntilDurable(store.changeMark) }
        // Space comes back, but only a little: room for a commit's entry (its two copies a 4 KiB block apart),
        // not for a snapshot's new journal (two such entries).
        fileSystem.heal()
        fileSystem.inject(.failWritesLargerThan(8 << 10, errno: ENOSPC))
        try await store.flush()
        home.change(store)
        try await store.waitUntilDurable(store.changeMark)
        #expect(store.lastError == nil)
        #expect(store.snapshotCount == snapshots)
        #expect(try await loaded().fixture.name == "version 2")
        await store.close()
    }

    /// On a full disk at start, the start-up snapshot fails and the store goes on appending to the journal it
    /// loaded. The failed snapshot once stayed the store's write error with nothing left to retry, and its writer
    /// thread went round and round at full speed, finding nothing to commit, until the next change.
    @Test func aFullDiskAtStartLeavesTheWriterNothingToRetryButTheSnapshot() async throws {
        try await confirmedChanges(2)
        let start = try await loaded()
        let journal = try #require(start.resumableJournal)
        fileSystem.inject(.fail(operation: "write", errno: ENOSPC))
        let health = Locked<[FileSystemError?]>([])
        let store = makeStore(generation: start.generation)
        store.onHealthChange { error in health.withLock { $0.append(error) } }
        await #expect(throws: FileSystemError.self) { try await store.compact() }
        #expect(store.resume(journal))
        // Every change is on disk, in the journal: the store is healthy, and only its snapshot waits.
        #expect(store.lastError == nil)
        #expect(store.snapshotError?.errno == ENOSPC)
        #expect(health.withLock { $0.map { $0?.errno } } == [ENOSPC, nil])
        // And a change still needs only the journal: it is refused while the disk is full, saved once it is not.
        home.change(store)
        await #expect(throws: LumenError.self) { try await store.waitUntilDurable(store.changeMark) }
        fileSystem.heal()
        try await store.flush()
        try await store.waitUntilDurable(store.changeMark)
        let outcome = try await loaded()
        #expect(outcome.fixture.name == "version 3", "\(outcome.warnings)")
        await store.close()
    }

    @Test func whenASnapshotCannotBeWrittenCommitsGoOnInTheJournal() async throws {
        let store = makeStore(journalLimit: 1)
        try await store.compact()
        let snapshots = store.snapshotCount
        // A snapshot's temporary file cannot be made durable; journal appends (fdatasync) still can.
        fileSystem.inject(.fail(operation: "fsync", errno: ENOSPC))
        for _ in 0..<3 {
            home.change(store)
            try await store.waitUntilDurable(store.changeMark)
        }
        #expect(store.snapshotCount == snapshots)
        #expect(try await loaded().fixture.name == "version 3")
        // At stop the snapshot fails too, but nothing is lost: everything is in the journal.
        await store.close()
        #expect(store.lastError == nil)
        #expect(try await loaded().fixture.name == "version 3")
    }

    @Test func aStopBetweenTheRenamesOfASnapshotIsExplainedAndLosesNothing() async throws {
        try await confirmedChanges(3, rotations: 1)
        // state.json moved to state.previous.json, the new one not yet in place.
        try FileManager.default.removeItem(atPath: directory.file("state.previous.json"))
        try FileManager.default.moveItem(
            atPath: directory.file("state.json"), toPath: directory.file("state.previous.json"))
        try? FileManager.default.removeItem(atPath: directory.file("state.previous.journal"))
        let outcome = try await loaded()
        #expect(outcome.fixture.name == "version 6")
        #expect(!outcome.warnings.contains { $0.contains("unusable") })
        #expect(outcome.warnings.contains { $0.contains("while replacing") })
    }
}

@Suite("Data safety: one daemon per state directory")
struct StateDirectoryLockTests {
    @Test func aSecondHolderIsRefusedWithTheFirstHoldersPID() throws {
        let directory = TemporaryDirectory()
        let first = try StateDirectoryLock.acquire(directory.path)
        #expect(throws: StateDirectoryLock.InUse.self) { try StateDirectoryLock.acquire(directory.path) }
        do {
            _ = try StateDirectoryLock.acquire(directory.path)
        } catch let error as StateDirectoryLock.InUse {
            #expect(error.holder == getpid())
            #expect(error.description.contains("\(getpid())"))
        }
        first.release()
        let again = try StateDirectoryLock.acquire(directory.path)
        again.release()
    }
}
