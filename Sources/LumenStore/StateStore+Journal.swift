import LumenModel

#if canImport(Glibc)
    import Glibc
#endif

/// The journal's side of the writer: the open file, one commit appended and synced, and what a failure
/// leaves of it.
extension StateStore {
    /// The journal being appended to.
    struct JournalFile {
        let fd: Int32
        /// Where the next commit goes.
        var end: Int
        /// How far the file is filled with ``StateJournal/filler``.
        var allocated: Int
        /// How far a failed write may have left bytes of an entry never committed; the next entry covers them.
        var dirtyEnd = 0
    }

    /// Takes every change noted so far, with the mark that covers them.
    static func take(_ shared: inout Shared) -> (records: [StateRecord], mark: UInt64) {
        defer {
            shared.pending = []
            shared.pendingIndex = [:]
            shared.pendingSince = nil
        }
        return (shared.pending.compactMap { $0.take() }, shared.mark)
    }

    /// Whether a failed write leaves the file as it was before the call, apart from bytes past its committed
    /// end: the disk was full, not broken. A journal may be appended to again after such a failure (the next
    /// entry overwrites what the failed one left); after any other failure, or any failed `fdatasync`, never.
    static func isOutOfSpace(_ error: FileSystemError) -> Bool {
        error.errno == ENOSPC || error.errno == EDQUOT || error.errno == EFBIG
    }

    /// Appends one commit to the journal and `fdatasync`s it.
    func append(_ records: [StateRecord], _ state: inout WriterState) -> CommitResult {
        guard var journal = state.journal else { return .failed(FileSystemError("write", journalPath, errno: EBADF)) }
        let generation = shared.withLock { $0.generation } + 1
        var entry = StateJournal.entry(
            StateJournal.batchLine(generation: generation, records: records), at: journal.end)
        if journal.dirtyEnd > journal.end + entry.count {
            entry += [UInt8](repeating: StateJournal.filler, count: journal.dirtyEnd - journal.end - entry.count)
        }
        if journal.end + entry.count >= journal.allocated {
            // Fill ahead, so most commits rewrite blocks the file already has and fdatasync need not also write
            // the file's size. The filler is synced before a commit is written over it: a journal then always
            // ends in filler, which is how a reader tells one cut short from one whose last write was
            // interrupted, and a crash in mid-write leaves filler, never zeros, where the write did not land,
            // which is how a reader tells an interrupted write from a damaged one. With no room to fill ahead,
            // just enough for this entry and one byte after it will do.
            let needed = journal.end + entry.count + 1 - journal.allocated
            do throws(FileSystemError) {
                journal.allocated += try fill(journal, growths: [max(preallocation, needed), needed])
            } catch  where Self.isOutOfSpace(error) {
                state.journal = journal
                return .failed(error)
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
        if journal.dirtyEnd <= journal.end { journal.dirtyEnd = 0 }
        state.journal = journal
        state.batchesSinceSnapshot += 1
        shared.withLock { $0.generation = generation }
        return .written
    }

    /// Writes filler after the journal's filled part, the first of `growths` bytes that there is room for, and
    /// syncs it; returns how many bytes were written.
    private func fill(_ journal: JournalFile, growths: [Int]) throws(FileSystemError) -> Int {
        var written: Int?
        var outOfSpace: FileSystemError?
        for growth in growths where written == nil {
            do throws(FileSystemError) {
                try fileSystem.writeAll(
                    journal.fd, [UInt8](repeating: StateJournal.filler, count: growth), at: journal.allocated,
                    path: journalPath)
                written = growth
            } catch  where Self.isOutOfSpace(error) {
                // Whatever part of it was written is harmless: past the end, where no commit was yet.
                outOfSpace = error
            }
        }
        guard let written else { throw outOfSpace ?? FileSystemError("write", journalPath, errno: ENOSPC) }
        try fileSystem.syncData(journal.fd, path: journalPath)
        return written
    }

    /// After a failed `fdatasync` (or a write that failed for another reason than space) the file's contents
    /// are unknown, and Linux may already have dropped the dirty pages: the journal is never appended to again,
    /// and the next commit is a whole snapshot.
    func poison(_ state: inout WriterState, _ error: FileSystemError) -> CommitResult {
        if let journal = state.journal { fileSystem.close(journal.fd) }
        state.journal = nil
        return .failed(error)
    }
}
