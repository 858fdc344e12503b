import LumenModel
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps the simulation's state on disk: every change event marks the state dirty, and a writer saves a
/// snapshot of the whole home atomically and durably, many changes sharing one `fsync` (group commit).
///
/// In `full` durability a caller waits with ``waitUntilDurable(_:)`` before acknowledging a write; in
/// `relaxed` durability the writer batches for up to ``relaxedDelay`` and nobody waits.
///
/// ```swift
/// let store = StateStore(directory: stateDir, durability: .full) { await home.snapshot() }
/// await home.addObserver { store.noteChange($0) }
/// let mark = store.changeMark
/// try await store.waitUntilDurable(mark)   // the change is on disk
/// ```
public actor StateStore {
    /// Produces the snapshot to write: the simulation's state now.
    public typealias SnapshotProvider = @Sendable () async -> Fixture

    /// The state file's name in the state directory.
    public static let stateFileName = "state.json"
    /// The previous good generation, kept beside it.
    public static let previousFileName = "state.previous.json"

    /// The directory holding the state.
    public nonisolated let directory: String
    /// How writes are made durable.
    public nonisolated let durability: Durability
    /// How long a relaxed-mode change may wait before it is written.
    public nonisolated let relaxedDelay: Duration
    let fileSystem: any FileSystem
    let provider: SnapshotProvider
    let origin: FixtureOrigin
    var generation: Int

    /// Counts changes seen; written from the simulation's observer without an actor hop.
    private nonisolated let changes = Atomic<UInt64>(0)
    /// The mark of the newest change known to be on disk.
    private(set) var durableMark: UInt64 = 0
    private var waiters: [(mark: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    private var writing = false
    /// Callers of `flush()` waiting for a write in flight to finish.
    private var writeFinished: [CheckedContinuation<Void, Never>] = []
    private let doorbell: AsyncStream<Void>
    private let ring: AsyncStream<Void>.Continuation
    /// The last write error, while writes are failing.
    public private(set) var lastError: FileSystemError?
    /// The number of snapshots written.
    public private(set) var writeCount = 0
    /// Called with the health after every write attempt: `nil` when healthy, else the error.
    private var healthObserver: (@Sendable (FileSystemError?) -> Void)?

    /// A store.
    /// - Parameters:
    ///   - directory: the state directory (created if missing).
    ///   - fileSystem: the file system; tests inject faults here.
    ///   - durability: `full` or `relaxed`.
    ///   - origin: the fixture the state comes from, recorded in every snapshot.
    ///   - generation: the generation of the state loaded at start.
    ///   - provider: makes a snapshot of the home.
    public init(
        directory: String, fileSystem: any FileSystem = PosixFileSystem(), durability: Durability,
        origin: FixtureOrigin, generation: Int = 0, relaxedDelay: Duration = .milliseconds(200),
        provider: @escaping SnapshotProvider
    ) {
        self.directory = directory
        self.fileSystem = fileSystem
        self.durability = durability
        self.origin = origin
        self.generation = generation
        self.relaxedDelay = relaxedDelay
        self.provider = provider
        (doorbell, ring) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The path of the state file.
    public nonisolated var statePath: String { "\(directory)/\(Self.stateFileName)" }

    /// Records that the simulation changed. Call it from the simulation's change observer; it never blocks.
    public nonisolated func noteChange(_ event: ChangeEvent? = nil) {
        changes.add(1, ordering: .sequentiallyConsistent)
        ring.yield()
    }

    /// A mark covering every change noted so far.
    public nonisolated var changeMark: UInt64 { changes.load(ordering: .sequentiallyConsistent) }

    /// Sets a function told of persistence health after each write attempt.
    public func onHealthChange(_ observer: @escaping @Sendable (FileSystemError?) -> Void) {
        healthObserver = observer
    }

    /// Waits until every change up to `mark` is on disk.
    /// - Throws: ``LumenError`` `notPersisted` when the write that should have saved it failed.
    public func waitUntilDurable(_ mark: UInt64) async throws {
        if mark <= durableMark { return }
        try await withCheckedThrowingContinuation { continuation in
            waiters.append((mark, continuation))
            ring.yield()
        }
    }

    /// Writes a snapshot now if anything changed since the last one.
    /// - Throws: ``FileSystemError`` when the write fails; the previous state file is left intact.
    public func flush() async throws(FileSystemError) {
        while writing { await withCheckedContinuation { writeFinished.append($0) } }
        let mark = changeMark
        guard mark > durableMark || writeCount == 0 && mark > 0 else { return }
        try await write(through: mark)
    }

    private func write(through mark: UInt64) async throws(FileSystemError) {
        writing = true
        defer {
            writing = false
            let waiting = writeFinished
            writeFinished = []
            for waiter in waiting { waiter.resume() }
        }
        var snapshot = await provider()
        generation += 1
        snapshot.generation = generation
        snapshot.origin = origin
        var bytes: [UInt8] = []
        snapshot.jsonValue.write(to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        do throws(FileSystemError) {
            try fileSystem.createDirectory(directory)
            try fileSystem.writeAtomically(
                bytes, to: statePath, keepPrevious: "\(directory)/\(Self.previousFileName)")
        } catch {
            generation -= 1
            lastError = error
            let failed = waiters.filter { $0.mark <= mark }
            waiters.removeAll { $0.mark <= mark }
            let lumenError = LumenError(
                .notPersisted,
                "the change was applied but could not be saved (\(error)); lumend keeps retrying",
                data: ["stateFile": .string(statePath)])
            for waiter in failed { waiter.continuation.resume(throwing: lumenError) }
            healthObserver?(error)
            throw error
        }
        writeCount += 1
        durableMark = max(durableMark, mark)
        let wasFailing = lastError != nil
        lastError = nil
        let done = waiters.filter { $0.mark <= durableMark }
        waiters.removeAll { $0.mark <= durableMark }
        for waiter in done { waiter.continuation.resume() }
        if wasFailing || writeCount == 1 { healthObserver?(nil) }
    }

    /// Writes snapshots as changes arrive until cancelled, then writes a last one.
    ///
    /// After a failure it retries with backoff (100 ms doubling to 5 s), and the first write that succeeds
    /// catches up with everything.
    public func run() async {
        var backoff = Duration.milliseconds(100)
        var bell = doorbell.makeAsyncIterator()
        while !Task.isCancelled {
            if changeMark <= durableMark && lastError == nil {
                guard await bell.next() != nil else { break }
                continue
            }
            if durability == .relaxed && lastError == nil && waiters.isEmpty {
                try? await Task.sleep(for: relaxedDelay)
            }
            do {
                try await write(through: changeMark)
                backoff = .milliseconds(100)
            } catch {
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
        try? await flush()
    }
}

/// A digest of a fixture's text, so a state file can tell whether it came from this fixture.
public func fixtureDigest(_ bytes: some Sequence<UInt8>) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
        hash ^= UInt64(byte)
        hash &*= 0x100_0000_01b3
    }
    let hex = String(hash, radix: 16)
    return "fnv1a64:" + String(repeating: "0", count: 16 - hex.count) + hex
}
