import Dispatch
import LumenModel
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The snapshot's side of the writer: a whole state written atomically and durably, with a new journal after
/// it, and the fallback to the journal when it cannot be.
extension StateStore {
    /// A snapshot, or, when one cannot be written but the journal is open, an append of the same records.
    func snapshotOrAppend(_ records: [StateRecord], _ state: inout WriterState, appendFirst: Bool = false)
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

    /// Saves a whole snapshot atomically and durably, with a new journal after it whose carry holds `carry`.
    ///
    /// Both new files are written and synced under temporary names first; only then do the renames begin:
    /// `state.json` becomes `state.previous.json`, `state.journal` becomes `state.previous.journal`, and the new
    /// files take their places; one directory `fsync` makes it all durable. Until the renames, the open journal
    /// is untouched, so a failed snapshot leaves it usable.
    func writeSnapshot(_ carry: [StateRecord], _ state: inout WriterState) -> CommitResult {
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
    func blockingSnapshot() -> Fixture {
        let result = Mutex<Fixture?>(nil)
        let done = DispatchSemaphore(value: 0)
        let provider = provider
        Task(executorPreference: providerExecutor) {
            let fixture = await provider()
            result.withLock { $0 = fixture }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }
}
