import LumenModel
import LumenStore
import Testing

/// Damage to the journal's last commit, the one place no later commit vouches for: lumend either reads it back
/// from its other copy or refuses to start, and never serves the state from before it as if nothing had happened.
@Suite("Damage to the last commit", .timeLimit(.minutes(2)))
struct LastCommitDamageTests {
    /// A store's files after a few acknowledged commits, the versions they promise, and the last commit's line.
    static func written() async throws -> (files: [String: [UInt8]], promised: [String: Int], last: [UInt8]) {
        let disk = SimulatedDisk(directory: CrashSimulation.directory, recording: false)
        let names = CrashSimulation.Names()
        let store = StateStore(
            directory: CrashSimulation.directory, fileSystem: disk, durability: .full, origin: CrashSimulation.origin
        ) { names.fixture() }
        try await store.compact()
        for version in 1...4 {
            let entity = CrashSimulation.entities[version % CrashSimulation.entities.count]
            names.state.withLock { $0[entity] = version }
            store.record(CrashSimulation.record(entity, version))
            try await store.waitUntilDurable(store.changeMark)
        }
        let journal = try #require(disk.files[StateStore.journalFileName])
        let last = try #require(StateJournal.read(journal).batches.last)
        return (
            disk.files, names.state.withLock { $0 },
            StateJournal.batchLine(generation: last.generation, records: last.records)
        )
    }

    /// Where each copy of `line` starts in `bytes`.
    static func copies(of line: [UInt8], in bytes: [UInt8]) -> [Int] {
        guard let first = line.first else { return [] }
        // Compared only where its first byte is: the journal is a mebibyte, most of it filler, and a slice
        // compared at every offset held a thread of the cooperative pool for seconds in a debug build (two
        // tests at once held both, and every other test in the run stood still).
        var starts: [Int] = []
        var from = bytes.startIndex
        while let start = bytes[from...].firstIndex(of: first), start + line.count <= bytes.count {
            if bytes[start..<(start + line.count)].elementsEqual(line) { starts.append(start) }
            from = start + 1
        }
        return starts
    }

    /// Loads `journal` in place of the store's journal; the outcome, or the refusal's text.
    static func load(_ files: [String: [UInt8]], journal: [UInt8]) -> Result<StateLoader.Outcome, StateLoader.Refusal> {
        var files = files
        files[StateStore.journalFileName] = journal
        let disk = SimulatedDisk(directory: CrashSimulation.directory, files: files)
        do {
            return .success(
                try StateLoader(directory: CrashSimulation.directory, fileSystem: disk, now: { 1 }).load(
                    fixture: CrashSimulation.fixture, origin: CrashSimulation.origin, fixtureIsExplicit: false,
                    reset: false))
        } catch {
            return .failure(error)
        }
    }

    /// Every version promised is there after loading, or what is not.
    static func check(_ outcome: StateLoader.Outcome, _ promised: [String: Int]) -> String? {
        var all: [String: Set<Int>] = [:]
        for (entity, version) in promised { all[entity] = Set(0...version) }
        return CrashSimulation(seed: 0).verify(outcome.fixture, required: promised, written: all)
    }

    /// The search the tests below lean on finds every copy: overlapping ones, and one that ends the bytes.
    @Test func copiesAreFoundWhereverTheyStart() {
        #expect(Self.copies(of: [7, 7, 1], in: [7, 7, 7, 1, 0xFF, 7, 7, 1, 7, 7, 1]) == [1, 5, 8])
        #expect(Self.copies(of: [7, 7], in: [7, 7, 7]) == [0, 1])
        #expect(Self.copies(of: [7, 1], in: [7]).isEmpty)
        #expect(Self.copies(of: [1], in: []).isEmpty)
    }

    @Test func theTwoCopiesOfACommitNeverShareASector() async throws {
        let (files, _, last) = try await Self.written()
        let copies = Self.copies(of: last, in: files[StateStore.journalFileName]!)
        try #require(copies.count == 2)
        #expect(
            copies[1] / 4_096 > (copies[0] + last.count - 1) / 4_096, "copies at \(copies), \(last.count) bytes each")
    }

    @Test func aByteChangedInEachCopyOfTheLastCommitStopsStartUp() async throws {
        let (files, _, last) = try await Self.written()
        var journal = files[StateStore.journalFileName]!
        for start in Self.copies(of: last, in: journal) { journal[start + 20] ^= 0x01 }
        switch Self.load(files, journal: journal) {
        case .success(let outcome): Issue.record("started without the last commit; warnings: \(outcome.warnings)")
        case .failure(let refusal):
            #expect(refusal.description.contains(StateStore.journalFileName))
            #expect(refusal.description.contains("--accept-loss"))
        }
    }

    @Test func bothCopiesOfTheLastCommitZeroedStopsStartUp() async throws {
        let (files, _, last) = try await Self.written()
        var journal = files[StateStore.journalFileName]!
        for start in Self.copies(of: last, in: journal) {
            journal.replaceSubrange(start..<(start + last.count), with: [UInt8](repeating: 0, count: last.count))
        }
        switch Self.load(files, journal: journal) {
        case .success(let outcome): Issue.record("started without the last commit; warnings: \(outcome.warnings)")
        case .failure(let refusal): #expect(refusal.description.contains(StateStore.journalFileName))
        }
    }

    /// Two bad blocks in a row (or one larger flash page) take the first copy, the filler and the second.
    @Test func zerosFromTheFirstCopyToTheEndOfTheSecondStopStartUp() async throws {
        let (files, _, last) = try await Self.written()
        var journal = files[StateStore.journalFileName]!
        let copies = Self.copies(of: last, in: journal)
        try #require(copies.count == 2)
        let end = copies[1] + last.count
        journal.replaceSubrange(copies[0]..<end, with: [UInt8](repeating: 0, count: end - copies[0]))
        switch Self.load(files, journal: journal) {
        case .success(let outcome): Issue.record("started without the last commit; warnings: \(outcome.warnings)")
        case .failure(let refusal): #expect(refusal.description.contains(StateStore.journalFileName))
        }
    }

    @Test(arguments: [512, 4_096])
    func theSectorHoldingTheLastCommitZeroedLosesNothing(sector: Int) async throws {
        let (files, promised, last) = try await Self.written()
        var journal = files[StateStore.journalFileName]!
        let first = try #require(Self.copies(of: last, in: journal).first)
        let start = first / sector * sector
        journal.replaceSubrange(
            start..<min(start + sector, journal.count),
            with: [UInt8](repeating: 0, count: min(sector, journal.count - start)))
        switch Self.load(files, journal: journal) {
        case .success(let outcome):
            #expect(Self.check(outcome, promised) == nil, "warnings: \(outcome.warnings)")
            #expect(
                outcome.warnings.contains { $0.contains(StateStore.journalFileName) && $0.contains("nothing is lost") })
        case .failure(let refusal): Issue.record("refused: \(refusal)")
        }
    }
}
