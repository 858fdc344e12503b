import Foundation
import LumenModel
import LumenStore
import LumenTestSupport
import Testing

/// Damage to the state files at rest, one file at a time, as a failing disk, a stray `dd` or an editor would
/// do it: every byte changed, a NUL at every byte, every sector zeroed, and truncation at every length. Each
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
        /// The damaged file, or `nil` when it is deleted.
        var bytes: [UInt8]?
        /// Whether start-up must stop: the current journal cut short, emptied or deleted may have taken
        /// acknowledged commits with it, and nothing else holds them.
        var mayHaveLostCommits = false
        /// Whether the file is still one lumend could have written (a journal cut inside its zeros, or a file
        /// deleted that another holds): nothing need be reported or kept.
        var isHarmless = false
        var description: String { "\(file): \(what)" }
    }

    /// Every damage of `bytes`: each byte changed (and zeroed), a NUL at each line start, truncation at every
    /// length, the file emptied and the file deleted. In a journal's filler (between the copies of a line,
    /// and after the last) every byte next to a line is damaged and every 97th other, since the rest are alike.
    /// Damage after a journal's last entry is where a crash in mid-commit leaves its torn write, and no reader
    /// can tell the two apart; nothing acknowledged is there, so nothing need be reported.
    static func cases(of file: String, _ bytes: [UInt8]) -> [Case] {
        let isJournal = file.hasSuffix(".journal")
        let written = isJournal ? StateJournal.read(bytes).end : bytes.count
        let isCurrentJournal = file == StateStore.journalFileName
        func sampled(_ offset: Int) -> Bool {
            guard isJournal, bytes[offset] == StateJournal.filler else { return true }
            let nextToLine = [offset - 1, offset + 1].contains {
                bytes.indices.contains($0) && bytes[$0] != StateJournal.filler
            }
            return nextToLine || offset % 97 == 0
        }
        var cases: [Case] = []
        for offset in bytes.indices where offset < written + 64 && sampled(offset) {
            var flipped = bytes
            flipped[offset] ^= 0x20
            let startsLine = offset == 0 || bytes[offset - 1] == UInt8(ascii: "\n")
            let afterLast = offset >= written
            cases.append(
                Case(
                    file: file, what: "byte \(offset) changed\(startsLine ? " (a line start)" : "")", bytes: flipped,
                    isHarmless: afterLast))
            if bytes[offset] != 0 {
                var zeroed = bytes
                zeroed[offset] = 0
                cases.append(Case(file: file, what: "NUL at byte \(offset)", bytes: zeroed, isHarmless: afterLast))
            }
        }
        // Every cut of the written part (the filler after a journal's last entry is part of it), and one inside
        // that filler, which loses nothing.
        let cuts =
            isJournal
            ? (1...written).filter { sampled($0 - 1) } + (bytes.count > written + 1 ? [written + 1] : [])
            : Array(1..<written)
        for length in cuts {
            cases.append(
                Case(
                    file: file, what: "cut at byte \(length)", bytes: Array(bytes[..<length]),
                    mayHaveLostCommits: isCurrentJournal && length <= written, isHarmless: length > written))
        }
        // A disk that fails loses a whole sector: each 512-byte sector and each 4 KiB block read back as zeros.
        for size in [512, 4_096] {
            for start in stride(from: 0, to: min(bytes.count, written + size), by: size) {
                var zeroed = bytes
                let end = min(start + size, bytes.count)
                zeroed.replaceSubrange(start..<end, with: repeatElement(0, count: end - start))
                cases.append(
                    Case(
                        file: file, what: "bytes \(start)..<\(end) zeroed", bytes: zeroed,
                        isHarmless: start >= written))
            }
        }
        cases.append(Case(file: file, what: "emptied", bytes: [], mayHaveLostCommits: isCurrentJournal))
        cases.append(
            Case(file: file, what: "deleted", bytes: nil, mayHaveLostCommits: isCurrentJournal, isHarmless: true))
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
        // Seconds of work: on a thread of its own, it holds none of the pool that other tests' tasks need.
        let (counts, failures) = await offload { [self] in
            var counts: [String: Int] = [:]
            var failures: [String] = []
            for (file, bytes) in baseline.files.sorted(by: { $0.key < $1.key }) where !file.contains(".tmp-") {
                for damage in Self.cases(of: file, bytes) {
                    counts[file, default: 0] += 1
                    var files = baseline.files
                    files[file] = damage.bytes
                    if let failure = check(
                        damage, files: files, required: baseline.promised, written: baseline.promised)
                    {
                        failures.append("\(damage): \(failure)")
                    }
                }
            }
            return (counts, failures)
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
        func load(acceptingLoss: Bool) throws(StateLoader.Refusal) -> StateLoader.Outcome {
            try StateLoader(directory: CrashSimulation.directory, fileSystem: disk, now: { 1 }).load(
                fixture: CrashSimulation.fixture, origin: CrashSimulation.origin, fixtureIsExplicit: false,
                reset: false, acceptingLoss: acceptingLoss)
        }
        var all: [String: Set<Int>] = [:]
        for (entity, version) in written { all[entity] = Set(0...version) }
        if damage.mayHaveLostCommits {
            // Refused, naming the journal, with every file as it was; then started when the loss is accepted.
            do {
                let outcome = try load(acceptingLoss: false)
                return "started although commits may be lost (warnings: \(outcome.warnings))"
            } catch {
                if !error.description.contains(damage.file) { return "the refusal does not name it: \(error)" }
            }
            if disk.files != files { return "the refusal changed the files: \(disk.files.keys.sorted())" }
            do {
                let outcome = try load(acceptingLoss: true)
                if let wrong = CrashSimulation(seed: 0).verify(outcome.fixture, required: [:], written: all) {
                    return "with the loss accepted: \(wrong)"
                }
                if !outcome.warnings.contains(where: { $0.contains("--accept-loss") && $0.contains(damage.file) }) {
                    return "with the loss accepted, the loss is not reported (warnings: \(outcome.warnings))"
                }
            } catch {
                return "refused although the loss was accepted: \(error)"
            }
            return nil
        }
        let outcome: StateLoader.Outcome
        do { outcome = try load(acceptingLoss: false) } catch { return "start-up refused: \(error)" }
        if let wrong = CrashSimulation(seed: 0).verify(outcome.fixture, required: required, written: all) {
            return "\(wrong); warnings: \(outcome.warnings)"
        }
        let mentioned = outcome.warnings.contains { $0.contains(damage.file) }
        let keptAside = disk.files.keys.contains {
            $0.hasPrefix(damage.file + ".corrupt-") || $0.hasPrefix(damage.file + ".damaged-")
                || $0.hasPrefix(damage.file + ".cut-")
        }
        if damage.isHarmless { return nil }
        if !mentioned { return "not reported (warnings: \(outcome.warnings))" }
        if !keptAside { return "not kept aside (files: \(disk.files.keys.sorted()))" }
        return nil
    }
}
