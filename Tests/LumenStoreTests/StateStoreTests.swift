import Foundation
import LumenModel
import LumenStore
import LumenTestSupport
import Synchronization
import Testing

/// A snapshot source whose home name says which change it includes.
final class Snapshots: Sendable {
    let version = Atomic<Int>(0)
    func bump() -> Int { version.add(1, ordering: .relaxed).newValue }
    var fixture: Fixture {
        Fixture(id: "t", name: "version \(version.load(ordering: .relaxed))", rooms: [])
    }
}

@Suite("State store", .timeLimit(.minutes(2)))
struct StateStoreTests {
    let directory = TemporaryDirectory()
    let fileSystem = FaultyFileSystem()
    let snapshots = Snapshots()
    let origin = FixtureOrigin(id: "t", digest: "d")

    func makeStore(durability: Durability = .full) -> StateStore {
        let snapshots = snapshots
        return StateStore(
            directory: directory.path, fileSystem: fileSystem, durability: durability, origin: origin
        ) { snapshots.fixture }
    }

    func saved(_ name: String = "state.json") throws -> Fixture {
        try Fixture(json: Array(try Data(contentsOf: URL(fileURLWithPath: directory.file(name)))))
    }

    func change(_ store: StateStore) {
        _ = snapshots.bump()
        store.noteChange()
    }

    @Test func aWriteGoesTempFileWriteFsyncRenameFsyncDirectory() async throws {
        let store = makeStore()
        change(store)
        try await store.flush()
        let calls = fileSystem.calls.filter { !$0.hasPrefix("read") }
        let temporary = "state.json.tmp-\(getpid())"
        #expect(
            calls == [
                "open \(temporary)", "write \(temporary)", "fsync \(temporary)", "rename \(temporary)",
                "fsync-dir \((directory.path as NSString).lastPathComponent)",
            ])
        let state = try saved()
        #expect(state.name == "version 1")
        #expect(state.generation == 1)
        #expect(state.origin == origin)
        // The second write keeps the first as the previous generation.
        fileSystem.clearCalls()
        change(store)
        try await store.flush()
        #expect(fileSystem.calls.filter { $0.hasPrefix("rename") } == ["rename state.json", "rename \(temporary)"])
        #expect(try saved("state.previous.json").generation == 1)
        #expect(try saved().generation == 2)
    }

    @Test(arguments: [
        FaultyFileSystem.Fault.fail(operation: "open", errno: EACCES),
        .fail(operation: "write", errno: ENOSPC),
        .fail(operation: "write", errno: EIO),
        .fail(operation: "fsync", errno: EIO),
        .fail(operation: "rename", errno: EIO),
    ])
    func everyInjectedFaultLeavesThePreviousSnapshotIntact(_ fault: FaultyFileSystem.Fault) async throws {
        let store = makeStore()
        change(store)
        try await store.flush()
        fileSystem.inject(fault)
        change(store)
        await #expect(throws: FileSystemError.self) { try await store.flush() }
        #expect(try saved().name == "version 1")
        #expect(await store.lastError != nil)
        // No temporary file is left behind.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.contains(".tmp-")
        }
        #expect(leftovers.isEmpty)
    }

    @Test func aFailedDirectoryFsyncIsReportedAndTheFileIsStillWhole() async throws {
        let store = makeStore()
        change(store)
        try await store.flush()
        fileSystem.inject(.fail(operation: "fsync-dir", errno: EIO))
        change(store)
        await #expect(throws: FileSystemError.self) { try await store.flush() }
        // The rename happened but is not known to be durable: whichever file is there is complete.
        #expect(["version 1", "version 2"].contains(try saved().name))
        #expect(try saved("state.previous.json").name == "version 1")
    }

    @Test func shortWritesAreResumedNotCorrupting() async throws {
        fileSystem.inject(.shortWrites(7))
        let store = makeStore()
        change(store)
        try await store.flush()
        #expect(try saved().name == "version 1")
        #expect(fileSystem.calls.filter { $0.hasPrefix("write") }.count > 10)
    }

    @Test func afterTheDiskRecoversTheNextSnapshotCatchesUpWithEverything() async throws {
        let store = makeStore()
        change(store)
        try await store.flush()
        fileSystem.inject(.fail(operation: "write", errno: ENOSPC))
        change(store)
        change(store)
        await #expect(throws: FileSystemError.self) { try await store.flush() }
        fileSystem.heal()
        try await store.flush()
        #expect(try saved().name == "version 3")
        #expect(await store.lastError == nil)
    }

    @Test func fullDurabilityWaitersFailWithNotPersistedAndNeverHearSaved() async throws {
        let store = makeStore()
        fileSystem.inject(.fail(operation: "fsync", errno: EIO))
        change(store)
        let mark = store.changeMark
        let runner = Task { await store.run() }
        defer { runner.cancel() }
        do {
            try await store.waitUntilDurable(mark)
            Issue.record("a write that failed was reported as saved")
        } catch let error as LumenError {
            #expect(error.code == .notPersisted)
            #expect(error.message.contains("could not be saved"))
        }
        fileSystem.heal()
        // The writer retries with backoff; the next wait succeeds once it catches up.
        change(store)
        try await store.waitUntilDurable(store.changeMark)
        #expect(try saved().name == "version 2")
    }

    @Test func healthIsReportedWhenWritesFailAndWhenTheyRecover() async throws {
        let store = makeStore()
        let reports = Mutex<[String?]>([])
        await store.onHealthChange { error in reports.withLock { $0.append(error.map { "\($0.operation)" }) } }
        change(store)
        try await store.flush()
        fileSystem.inject(.fail(operation: "write", errno: ENOSPC))
        change(store)
        await #expect(throws: FileSystemError.self) { try await store.flush() }
        fileSystem.heal()
        try await store.flush()
        // Healthy after the first write, degraded on the failure, healthy again once it catches up.
        #expect(reports.withLock { $0 } == [nil, "write", nil])
    }

    @Test func flushWaitsForAWriteInFlightAndThenSavesTheRest() async throws {
        let store = makeStore()
        let runner = Task { await store.run() }
        defer { runner.cancel() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                change(store)
                group.addTask { try await store.flush() }
            }
            try await group.waitForAll()
        }
        try await store.flush()
        #expect(try saved().name == "version 20")
    }

    @Test func manyChangesShareOneFsync() async throws {
        let store = makeStore()
        for _ in 0..<100 { change(store) }
        let runner = Task { await store.run() }
        defer { runner.cancel() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<100 { group.addTask { try await store.waitUntilDurable(store.changeMark) } }
            try await group.waitForAll()
        }
        #expect(await store.writeCount <= 2)
        #expect(try saved().name == "version 100")
    }
}
