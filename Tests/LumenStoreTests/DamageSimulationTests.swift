import Foundation
import LumenModel
import LumenStore
import Testing

/// Damage to the state files at rest, one file at a time, as a failing disk, a stray `dd` or an editor would
/// do it: every byte changed, a NUL at every line start, the checksums, and truncation at every length. Each
/// time start-up must notice, keep the damaged file for inspection, say so, and bring back every acknowledged
/// write.
@Suite("Damage simulation", .timeLimit(.minutes(10)))
struct DamageSimulationTests {
    /// The files a store leaves after rotations and commits, every write acknowledged, stopped as by `kill -9`:
    /// state.json, state.previous.json and both journals all hold something, and the snapshots were made by
    /// commits that found the journal full, so the journals' carries hold changes too.
    static func baseline() async throws -> (
        files: [String: [UInt8]], promised: [String: Int], beforeLast: [String: Int]
    ) {
        let disk = SimulatedDisk(directory: CrashSimulation.directory, recording: false)
        let names = CrashSimulation.Names()
        let store = StateStore(
            directory: CrashSimulation.directory, fileSystem: disk, durability: .full, origin: CrashSimulation.origin,
            journalLimit: 700, preallocation: 256
        ) { names.fixture() }
        var version = 0
        var beforeLast: [String: Int] = [:]
        try await store.compact()
        for round in 0..<3 {
            for step in 0..<5 {
                beforeLast = names.state.withLock { $0 }
                let entity = CrashSimulation.entities[(round + step) % CrashSimulation.entities.count]
                version += 1
                names.state.withLock { $0[entity] = version }
                store.record(CrashSimulation.record(entity, version))
                try await store.waitUntilDurable(store.changeMark)
            }
        }
        return (disk.files, names.state.withLock { $0 }, beforeLast)
    }

    struct Case: CustomStringConvertible {
        var file: String
        var what: String
        var bytes: [UInt8]
        /// Whether the last commit may be lost: a cut-off last record was never confirmed.
        var lastCommitMayGo = false
        var description: String { "\(file): \(what)" }
    }

    /// Every damage of `bytes`: each byte changed (and zeroed), a NUL at each line start, truncation at each
    /// length (for a journal, of its last record; for a snapshot, of the whole file).
    static func cases(of file: String, _ bytes: [UInt8]) -> [Case] {
        let isJournal = file.hasSuffix(".journal")
        let written = isJournal ? (bytes.lastIndex { $0 != 0 }.map { $0 + 1 } ?? 0) : bytes.count
        var cases: [Case] = []
        for offset in 0..<written {
            var flipped = bytes
            flipped[offset] ^= 0x20
            let startsLine = offset == 0 || bytes[offset - 1] == UInt8(ascii: "\n")
            cases.append(
                Case(file: file, what: "byte \(offset) changed\(startsLine ? " (a line start)" : "")", bytes: flipped))
            if bytes[offset] != 0 {
                var zeroed = bytes
                zeroed[offset] = 0
                cases.append(Case(file: file, what: "NUL at byte \(offset)", bytes: zeroed))
            }
        }
        if isJournal {
            // The last record: its two copies, from the start of the first to the end of the written part.
            let lineStarts = (0..<written).filter { $0 == 0 || bytes[$0 - 1] == UInt8(ascii: "\n") }
            let lastRecord = lineStarts.count >= 2 ? lineStarts[lineStarts.count - 2] : 0
            for length in lastRecord..<written {
                cases.append(
                    Case(
                        file: file, what: "cut at byte \(length)", bytes: Array(bytes[..<length]), lastCommitMayGo: true
                    ))
            }
        } else {
            for length in 0..<written {
                cases.append(Case(file: file, what: "cut at byte \(length)", bytes: Array(bytes[..<length])))
            }
        }
        return cases
    }

    @Test func everyDamageToOneFileIsFoundKeptAsideReportedAndLosesNoAcknowledgedWrite() async throws {
        let baseline = try await Self.baseline()
        for name in [
            StateStore.stateFileName, StateStore.previousFileName, StateStore.journalFileName,
            StateStore.previousJournalFileName,
        ] {
            #expect(baseline.files[name] != nil, "the baseline has no \(name)")
        }
        var counts: [String: Int] = [:]
        var failures: [String] = []
        for (file, bytes) in baseline.files.sorted(by: { $0.key < $1.key }) where !file.contains(".tmp-") {
            for damage in Self.cases(of: file, bytes) {
                counts[file, default: 0] += 1
                var files = baseline.files
                files[file] = damage.bytes
                if let failure = check(
                    damage, files: files, required: damage.lastCommitMayGo ? baseline.beforeLast : baseline.promised,
                    written: baseline.promised)
                {
                    failures.append("\(damage): \(failure)")
                }
            }
        }
        let total = counts.values.reduce(0, +)
        print(
            "damage simulation: \(total) cases ("
                + counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                + "), \(failures.count) failures")
        var byFile: [String: [String]] = [:]
        for failure in failures { byFile[String(failure.prefix { $0 != ":" }), default: []].append(failure) }
        #expect(
            failures.isEmpty,
            "\(failures.count) of \(total) cases failed; the first of each file: \(byFile.values.map { $0.prefix(2) })")
    }

    /// What is wrong with how start-up met one damaged file, or `nil`.
    func check(_ damage: Case, files: [String: [UInt8]], required: [String: Int], written: [String: Int]) -> String? {
        let disk = SimulatedDisk(directory: CrashSimulation.directory, files: files)
        let outcome: StateLoader.Outcome
        do {
            outcome = try StateLoader(directory: CrashSimulation.directory, fileSystem: disk, now: { 1 }).load(
                fixture: CrashSimulation.fixture, origin: CrashSimulation.origin, fixtureIsExplicit: false,
                reset: false)
        } catch {
            return "start-up refused: \(error)"
        }
        var all: [String: Set<Int>] = [:]
        for (entity, version) in written { all[entity] = Set(0...version) }
        if let wrong = CrashSimulation(seed: 0).verify(outcome.fixture, required: required, written: all) {
            return "\(wrong); warnings: \(outcome.warnings)"
        }
        let mentioned = outcome.warnings.contains { $0.contains(damage.file) }
        let keptAside = disk.files.keys.contains {
            $0.hasPrefix(damage.file + ".corrupt-") || $0.hasPrefix(damage.file + ".damaged-")
        }
        if damage.lastCommitMayGo {
            // A cut inside the last record's first copy is an unfinished commit and is said to be; a cut in its
            // second copy leaves a whole journal whose last line has one copy, which is what a crash between
            // the two would leave.
            return nil
        }
        if !mentioned { return "not reported (warnings: \(outcome.warnings))" }
        if !keptAside { return "not kept aside (files: \(disk.files.keys.sorted()))" }
        return nil
    }
}
