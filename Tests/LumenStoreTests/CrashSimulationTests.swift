import Foundation
import LumenModel
import LumenProtocol
import LumenSimulation
import LumenStore
import LumenTestSupport
import Testing

/// Random workloads against the real store on a ``SimulatedDisk``; at every call that changed the disk, the
/// disks a power cut could leave are started from with the real loader, which must bring back every write
/// acknowledged before the cut and nothing that was never written.
///
/// `make test` runs 200 workloads; `make crashsim` runs 10,000 (`LUMEN_CRASHSIM_WORKLOADS`), from
/// `LUMEN_CRASHSIM_SEED` on.
@Suite("Crash-point simulation", .serialized)
struct CrashSimulationTests {
    static let workloads = ProcessInfo.processInfo.environment["LUMEN_CRASHSIM_WORKLOADS"].flatMap(Int.init) ?? 200
    static let firstSeed = ProcessInfo.processInfo.environment["LUMEN_CRASHSIM_SEED"].flatMap(UInt64.init) ?? 1

    /// Its time limit grows with the workloads: 10,000 took 131 minutes of a debug build on a loaded machine.
    @Test(.timeLimit(.minutes(max(30, CrashSimulationTests.workloads / 30))))
    func everyCrashPointRestartsWithEveryAcknowledgedWrite() async throws {
        var totals = CrashSimulation.Totals()
        for seed in Self.firstSeed..<(Self.firstSeed + UInt64(Self.workloads)) {
            let result = try await CrashSimulation(seed: seed).run()
            totals.add(result)
            if let failure = result.failures.first {
                Issue.record("seed \(seed): \(failure)")
                break
            }
        }
        print(
            "crash simulation: \(totals.workloads) workloads, \(totals.crashPoints) crash points, "
                + "\(totals.images) disk images started from, \(totals.acknowledged) acknowledged writes, "
                + "\(totals.failures) failures")
        #expect(totals.crashPoints >= Self.workloads * 10)
    }

    /// The simulation can fail: a store whose file syncs kept nothing (as if it never called `fdatasync`, which
    /// `kill -9` alone would not show, the page cache surviving it) loses acknowledged writes at a power cut.
    @Test(.timeLimit(.minutes(30))) func aStoreThatNeverSyncedWouldBeCaught() async throws {
        var caught = 0
        for seed in UInt64(1)...10 {
            let result = try await CrashSimulation(seed: seed, syncsKeepNothing: true).run()
            // Caught either way: a restart that lacks an acknowledged write, or one that refuses to start.
            if !result.failures.isEmpty { caught += 1 }
        }
        #expect(caught > 0, "a store that never synced passed the crash simulation")
    }
}

/// One workload and the checks of its crash points.
struct CrashSimulation {
    struct Totals {
        var workloads = 0
        var crashPoints = 0
        var images = 0
        var acknowledged = 0
        var failures = 0

        mutating func add(_ result: Result) {
            workloads += 1
            crashPoints += result.crashPoints
            images += result.images
            acknowledged += result.acknowledged
            failures += result.failures.count
        }
    }

    struct Result {
        var crashPoints = 0
        var images = 0
        var acknowledged = 0
        var failures: [String] = []
    }

    static let directory = "/simulated/state"
    static let entities = ["home", "r0", "r1", "r2"]
    static let origin = FixtureOrigin(id: "sim", digest: "fnv1a64:0")
    static let fixture = Fixture(
        id: "sim", name: "initial",
        rooms: ["r0", "r1", "r2"].map { RoomFixture(id: RoomID($0), name: "initial", lights: []) })

    let seed: UInt64
    /// Whether the disk's file syncs keep nothing (to show the simulation catches a store that never synced).
    var syncsKeepNothing = false

    /// The home the store saves: each entity's name, changed to `v<n>` with a number that only grows.
    final class Names: Sendable {
        let state = Locked<[String: Int]>([:])

        func fixture() -> Fixture {
            let names = state.withLock { $0 }
            var fixture = CrashSimulation.fixture
            if let home = names["home"] { fixture.name = "v\(home)" }
            for index in fixture.rooms.indices {
                if let version = names[fixture.rooms[index].id.rawValue] { fixture.rooms[index].name = "v\(version)" }
            }
            return fixture
        }
    }

    static func record(_ entity: String, _ version: Int) -> StateRecord {
        entity == "home"
            ? .home(name: "v\(version)", roomIDs: ["r0", "r1", "r2"])
            : .room(RoomFixture(id: RoomID(entity), name: "v\(version)", lights: []), lightIDs: [])
    }

    func run() async throws -> Result {
        var random = SeededRandom(seed: seed)
        let disk = SimulatedDisk(directory: Self.directory)
        disk.setFaults { $0.syncsKeepNothing = syncsKeepNothing }
        let names = Names()
        let store = StateStore(
            directory: Self.directory, fileSystem: disk, durability: .full, origin: Self.origin,
            journalLimit: Int.random(in: 300...3_000, using: &random), preallocation: 512,
            retryDelay: .milliseconds(1)
        ) { names.fixture() }
        // What each acknowledgement promised: every entity's version at the moment its mark was taken.
        var promised: [[String: Int]] = []
        var written: [String: Set<Int>] = [:]
        var version = 0
        var faultSteps = 0
        try? await store.compact()
        for _ in 0..<Int.random(in: 8...30, using: &random) {
            if faultSteps > 0 {
                faultSteps -= 1
                if faultSteps == 0 { disk.setFaults { $0 = SimulatedDisk.Faults(syncsKeepNothing: syncsKeepNothing) } }
            }
            func change() {
                let entity = Self.entities.randomElement(using: &random)!
                version += 1
                names.state.withLock { $0[entity] = version }
                written[entity, default: []].insert(version)
                store.record(Self.record(entity, version))
            }
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<45, 80..<88:
                for _ in 0..<(Int.random(in: 0..<100, using: &random) < 80 ? 1 : 3) { change() }
                let now = names.state.withLock { $0 }
                let mark = store.changeMark
                do {
                    try await store.waitUntilDurable(mark)
                    promised.append(now)
                    disk.acknowledge()
                } catch {}
            case 45..<65: change()
            case 65..<73: try? await store.compact()
            case 73..<76:
                disk.setFaults { $0.full = true }
                faultSteps = 3
            case 76..<78:
                disk.setFaults { $0.largestWrite = 200 }
                faultSteps = 3
            default:
                disk.setFaults { $0.failNextSync = true }
            }
        }
        disk.setFaults { $0 = SimulatedDisk.Faults(syncsKeepNothing: syncsKeepNothing) }
        if Bool.random(using: &random) { await store.close() }
        // The checks are seconds of work with a blocking wait inside (the start-up snapshot); on a thread of
        // their own they hold none of the pool that other tests' tasks need.
        let points = disk.crashPoints
        return await offload { [self, random, promised, written] in
            var random = random
            return check(points, promised: promised, written: written, random: &random)
        }
    }

    /// Starts from the disks each crash point could leave and checks what loads.
    func check(
        _ points: [SimulatedDisk.CrashPoint], promised: [[String: Int]], written: [String: Set<Int>],
        random: inout SeededRandom
    ) -> Result {
        var result = Result(crashPoints: points.count, acknowledged: promised.count)
        for (index, point) in points.enumerated() {
            for variant in SimulatedDisk.Variant.allCases {
                let image = SimulatedDisk.crashImage(at: point, variant: variant, random: &random)
                result.images += 1
                let required = point.acknowledged > 0 ? promised[point.acknowledged - 1] : [:]
                // Every seventh image also goes through a whole restart: load, a start-up snapshot, load again.
                if let failure = restart(
                    image, required: required, written: written, again: (index + result.images) % 7 == 0)
                {
                    let calls = points[max(0, index - 3)...index].map(\.call).joined(separator: "; ")
                    result.failures.append(
                        "crash after call \(index) (\(calls)), \(variant) image: \(failure); files: "
                            + image.keys.sorted().joined(separator: ", ") + Self.describe(image))
                    return result
                }
                // And every seventeenth has one file deleted or cut short after the crash, each file in turn.
                if (index + result.images) % 17 == 0,
                    let failure = damagedRestarts(image, required: required, written: written, random: &random)
                {
                    result.failures.append("crash after call \(index), \(variant) image, then \(failure)")
                    return result
                }
            }
        }
        return result
    }

    /// Deletes each file of `image` in turn, then cuts each at a random length, then zeroes a random 512-byte
    /// sector of each, as a failing disk would: start-up must bring back every
    /// acknowledged write, or refuse: for the journal, which nothing else holds, or when a snapshot was being
    /// put in place (its files under temporary names), when the rest no longer hold every commit.
    func damagedRestarts(
        _ image: [String: [UInt8]], required: [String: Int], written: [String: Set<Int>], random: inout SeededRandom
    ) -> String? {
        for file in image.keys.sorted() where !file.contains(".tmp-") {
            let bytes = image[file]!
            let cut = Int.random(in: 0...max(0, bytes.count - 1), using: &random)
            var zeroed = bytes
            let sector = Int.random(in: 0...(max(0, bytes.count - 1) / 512), using: &random) * 512
            zeroed.replaceSubrange(
                min(sector, bytes.count)..<min(sector + 512, bytes.count),
                with: repeatElement(0, count: max(0, min(sector + 512, bytes.count) - sector)))
            for (damaged, what) in [
                (nil, "\(file) deleted"), (Array(bytes.prefix(cut)), "\(file) cut at byte \(cut)"),
                (zeroed, "\(file) with the sector at byte \(sector) zeroed"),
            ] {
                var files = image
                files[file] = damaged
                let disk = SimulatedDisk(directory: Self.directory, files: files)
                do {
                    let outcome = try StateLoader(directory: Self.directory, fileSystem: disk, now: { 1 }).load(
                        fixture: Self.fixture, origin: Self.origin, fixtureIsExplicit: false, reset: false)
                    if let wrong = verify(outcome.fixture, required: required, written: written) {
                        return "\(what): \(wrong) (warnings: \(outcome.warnings)); files: "
                            + files.keys.sorted().joined(separator: ", ") + Self.describe(files)
                    }
                } catch {
                    let rotating = image.keys.contains { $0.contains(".tmp-") }
                    let mayRefuse = file == StateStore.journalFileName || rotating
                    let saysWhatIsGone = error.description.contains("lost") || error.description.contains("gone")
                    if !mayRefuse || !saysWhatIsGone {
                        return "\(what): start-up refused: \(error)"
                    }
                }
            }
        }
        return nil
    }

    static func describe(_ image: [String: [UInt8]]) -> String {
        guard ProcessInfo.processInfo.environment["LUMEN_CRASHSIM_VERBOSE"] != nil else { return "" }
        var text = ""
        for (name, bytes) in image.sorted(by: { $0.key < $1.key }) {
            text += "\n--- \(name)\n" + String(decoding: bytes.filter { $0 != 0 }, as: UTF8.self)
        }
        return text
    }

    /// Loads the image as lumend would; returns what is wrong, or `nil`.
    func restart(_ image: [String: [UInt8]], required: [String: Int], written: [String: Set<Int>], again: Bool)
        -> String?
    {
        let disk = SimulatedDisk(directory: Self.directory, files: image)
        let loader = StateLoader(directory: Self.directory, fileSystem: disk, now: { 1 })
        let outcome: StateLoader.Outcome
        do {
            outcome = try loader.load(
                fixture: Self.fixture, origin: Self.origin, fixtureIsExplicit: false, reset: false)
        } catch {
            return "start-up refused: \(error)"
        }
        if let wrong = verify(outcome.fixture, required: required, written: written) {
            return "\(wrong) (loaded from \(outcome.source), warnings: \(outcome.warnings))"
        }
        // A crash is no damage: what it leaves (a torn write, a rename not yet made) is never reported as such.
        let alarms = ["damaged", "corrupt", "cut short", "kept a copy", "moved it to"]
        if let alarm = outcome.warnings.first(where: { warning in alarms.contains { warning.contains($0) } }) {
            return "a crash reported as damage: \(alarm)"
        }
        guard again else { return nil }
        let loaded = outcome.fixture
        let store = StateStore(
            directory: Self.directory, fileSystem: disk, durability: .full, origin: Self.origin,
            generation: outcome.generation, preallocation: 512
        ) { loaded }
        let saved = Locked(false)
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                try await store.compact()
                saved.withLock { $0 = true }
            } catch {}
            await store.close()
            done.signal()
        }
        done.wait()
        guard saved.withLock({ $0 }) else { return "the start-up snapshot failed" }
        do {
            let second = try StateLoader(directory: Self.directory, fileSystem: disk, now: { 2 }).load(
                fixture: Self.fixture, origin: Self.origin, fixtureIsExplicit: false, reset: false)
            if let wrong = verify(second.fixture, required: required, written: written) {
                return "after a restart and its start-up snapshot: \(wrong)"
            }
        } catch {
            return "the second start-up refused: \(error)"
        }
        return nil
    }

    /// Whether every entity holds a value that was written, no older than what was acknowledged.
    func verify(_ fixture: Fixture, required: [String: Int], written: [String: Set<Int>]) -> String? {
        var names = ["home": fixture.name]
        for room in fixture.rooms { names[room.id.rawValue] = room.name }
        for entity in Self.entities {
            guard let name = names[entity] else { return "\(entity) is missing" }
            let version = name == "initial" ? 0 : Int(name.dropFirst())
            guard let version, version == 0 || written[entity, default: []].contains(version) else {
                return "\(entity) is '\(name)', which was never written"
            }
            if version < required[entity, default: 0] {
                return "\(entity) is '\(name)', but v\(required[entity]!) was acknowledged"
            }
        }
        return nil
    }
}
