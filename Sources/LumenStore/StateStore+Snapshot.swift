import LumenModel
import LumenProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// The snapshot's side of the writer: a whole state written atomically and durably, with a new journal after
/// it, and the fallback to the journal when it cannot be.
extension StateStore {
    /// `snapshot`, or, when it cannot be written but the journal is open, an append of the same records.
    ///
    /// The snapshot was made before `records` were taken, so it may lack the last of them: they are applied
    /// to it (``writeSnapshot(_:snapshot:_:)``) and carried, even when they were appended to the old journal
    /// first.
    func snapshotOrAppend(
        _ records: [StateRecord], snapshot: Fixture, _ state: inout WriterState, appendFirst: Bool = false
    ) -> CommitResult {
        var journaled = false
        if appendFirst, !records.isEmpty, state.journal != nil, case .written = append(records, &state) {
            journaled = true
        }
        let result = writeSnapshot(records, snapshot: snapshot, &state)
        guard case .failed(let error) = result, state.journal != nil else {
            if case .written = result {
                state.snapshotRetryAt = nil
                state.snapshotBackoff = .seconds(1)
            }
            return result
        }
        if !records.isEmpty, !journaled, case .failed = append(records, &state) { return result }
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
    ///
    /// The home's `snapshot` was made before `carry` was taken: what was noted since is applied to it, so the
    /// snapshot written holds every change this commit confirms (a pending record is its entity's latest
    /// saved form, so applying one the snapshot already holds changes nothing), and the carry stays what the
    /// snapshot saved.
    func writeSnapshot(_ carry: [StateRecord], snapshot made: Fixture, _ state: inout WriterState) -> CommitResult {
        var snapshot: Fixture
        do throws(JSONShapeError) { snapshot = try made.applying(carry) } catch {
            // Records that do not fit the home's own snapshot: keep them in the journal, try a snapshot later.
            return .failed(FileSystemError("snapshot", statePath, errno: EINVAL))
        }
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
                    start + [UInt8](repeating: StateJournal.filler, count: preallocation), to: journalTemporary)
            } catch  where Self.isOutOfSpace(error) {
                // The filler after the start marks where the journal ends (a journal never ends without it).
                allocated = start.count + 1
                try fileSystem.writeDurably(start + [StateJournal.filler], to: journalTemporary)
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
}
