import Dispatch
import Foundation
import LumenModel
import LumenScopes
import LumenServer
import LumenSimulation
import LumenStore
import Synchronization

/// `make bench`: every figure is reported as a ratio against a baseline measured in the same run, because
/// these machines are noisy.
enum Benchmarks {
    /// The parts of the run; `--only` picks some.
    enum Section: String, CaseIterable {
        case reads, writes, size, memory
    }

    static let usage = """
        usage: lumen-bench [--quick] [--only SECTION[,SECTION…]]

        Measures lumend and prints each figure as a ratio against a baseline measured in turn with it, five
        runs each (medians): a raw Unix-socket echo server of the same shape for throughput, a fresh
        connection for aging, an 8-light home for home size.
          --quick          fewer rounds (a smoke run, figures are rougher)
          --only SECTIONS  run only these: reads, writes, size, memory (default: all)
        """

    static func main(arguments: [String]) async {
        var quick = false
        var sections = Set(Section.allCases)
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--quick": quick = true
            case "--only":
                let names = (rest.popFirst() ?? "").split(separator: ",").map(String.init)
                let chosen = names.compactMap(Section.init(rawValue:))
                guard !chosen.isEmpty, chosen.count == names.count else {
                    print("lumen-bench: --only takes sections from: reads, writes, size, memory\n\n" + usage)
                    exit(2)
                }
                sections = Set(chosen)
            case "-h", "--help":
                print(usage)
                return
            default:
                print("lumen-bench: unknown argument '\(argument)'\n\n" + usage)
                exit(2)
            }
        }
        let rounds = quick ? 2_000 : 20_000
        print("Lumen benchmarks (\(quick ? "quick" : "full") run; release build recommended: make bench)\n")
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }

        // The baseline: a plain echo server over a Unix socket, a thread per connection, no JSON. Every ratio
        // below is against echo runs of the same shape, interleaved with lumend's.
        let echoPath = "\(directory)/echo.sock"
        EchoServer.start(path: echoPath)
        let baseline = Baseline(quick: quick, rounds: rounds, directory: directory, echoPath: echoPath)

        // Memory first: memory the other sections freed would be reused and hide the growth.
        if sections.contains(.memory) { await benchmarkMemory(baseline) }
        if sections.contains(.reads) { await benchmarkReads(baseline) }
        if sections.contains(.writes) { await benchmarkWrites(baseline) }
        if sections.contains(.size) { await benchmarkHomeSize(baseline) }
    }

    /// What every section compares against.
    struct Baseline {
        var quick: Bool
        var rounds: Int
        var directory: String
        var echoPath: String
    }

    static let getName =
        Array(#"{"jsonrpc":"2.0","id":1,"method":"get","params":{"scope":0,"connection":"name"}}"#.utf8) + [0x0A]

    /// Reads: `get` round trips from 1 and 8 clients, and on an old connection against a new one.
    static func benchmarkReads(_ baseline: Baseline) async {
        let served = await serve(fixture: .demoHome(), directory: "\(baseline.directory)/demo", durability: .full)
        let (echo1, reads1) = againstEcho(baseline, served.path) { path, echoLine in
            roundTrips(clients: 1, rounds: baseline.rounds, path: path, line: echoLine ?? getName)
        }
        report("lumend get, 1 client (target ≥ 0.50)", reads1, baseline: echo1)
        // A connection must not slow down as it ages.
        let (fresh, old) = aging(path: served.path, request: getName, total: baseline.quick ? 20_000 : 100_000)
        report("lumend get on an old connection vs a new one (≈ 1.00)", old, baseline: fresh)
        let (echo8, reads8) = againstEcho(baseline, served.path) { path, echoLine in
            roundTrips(clients: 8, rounds: baseline.rounds / 4, path: path, line: echoLine ?? getName)
        }
        report("lumend get, 8 clients (target ≥ 0.50)", reads8, baseline: echo8)
        await served.stop()
    }

    /// Measures the echo server and lumend in turn, five runs each, so that drift in the machine's speed hits
    /// both; `run` gets the path and, for the echo server, the line to send (`nil` for lumend).
    static func againstEcho(
        _ baseline: Baseline, _ path: String, _ run: (_ path: String, _ echoLine: [UInt8]?) -> Measurement
    ) -> (echo: Measurement, lumend: Measurement) {
        alternate(baseline.echoPath, path) { target in run(target, target == baseline.echoPath ? ping : nil) }
    }

    static let ping = Array(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.utf8) + [0x0A]

    /// Writes: instant latency, real clock; full and relaxed durability.
    ///
    /// A client that waits for each durable write cannot beat one append + `fdatasync` plus one round trip
    /// per write, so full durability is also reported against that bound, from the disk's own latency
    /// measured between the runs.
    static func benchmarkWrites(_ baseline: Baseline) async {
        let probeCount = baseline.quick ? 100 : 500
        var probes: [DiskProbe] = []
        let windowed = 8
        var oneWaiting: Measurement?
        for durability in [Durability.full, .relaxed] {
            let writer = await serve(
                fixture: instantHome(lights: 8), directory: "\(baseline.directory)/w-\(durability.rawValue)",
                durability: durability)
            for (clients, window) in [(1, 1), (8, 1), (8, windowed)] {
                let rounds = (baseline.quick ? 600 : 6_000) / clients * (window > 1 ? 2 : 1)
                let before = writer.store.commitCount
                let byWaitersBefore = writer.store.commitsByWaiters
                let (echo, rate) = againstEcho(baseline, writer.path) { path, echoLine in
                    if let echoLine {
                        return roundTrips(
                            clients: clients, window: window, rounds: rounds * 4, path: path, line: echoLine)
                    }
                    if durability == .full, clients == 1 {
                        probes.append(DiskProbe.measure(directory: baseline.directory, count: probeCount))
                    }
                    return measureWrites(clients: clients, window: window, rounds: rounds, path: path)
                }
                let commits = writer.store.commitCount - before
                let shape =
                    window > 1
                    ? "\(clients) clients × \(window) in flight" : "\(clients) client\(clients == 1 ? "" : "s")"
                if durability == .full, clients == 1 {
                    let disk = probes.sorted { $0.latency < $1.latency }[probes.count / 2]
                    print(
                        "  " + pad("this disk: append + fdatasync (median of 5 probes between runs)")
                            + String(format: "%9.0f µs  of it CPU %.0f µs", disk.latency * 1e6, disk.cpu * 1e6))
                }
                report("lumend \(durability.rawValue) set, \(shape)", rate, baseline: echo)
                if durability == .full, window == 1 {
                    // Clients that each wait for their confirmation cannot beat one fdatasync plus one round trip
                    // apiece, even if every commit served them all at once.
                    let disk = probes.sorted { $0.latency < $1.latency }[probes.count / 2]
                    let bound = Double(clients) / (disk.latency + Double(clients) / echo.rate)
                    let target = clients == 1 ? " (target ≥ 0.50)" : ""
                    print(
                        "    " + pad("share of the disk's bound \(clients)/(fdatasync + echo round trip)\(target)")
                            + String(format: "%7.0f/s  ratio %.2f of it", bound, rate.rate / bound))
                }
                if durability == .full, window == 1 {
                    if let one = oneWaiting {
                        print(
                            "    " + pad("group commit: 8 waiting clients vs 1 (target ≥ 2.5)")
                                + String(repeating: " ", count: 11) + String(format: "ratio %.2f", rate.rate / one.rate)
                        )
                    } else {
                        oneWaiting = rate
                    }
                }
                if durability == .full {
                    print(
                        String(
                            format:
                                "    %d writes × 5 runs shared %d disk commits (%.1f a commit, %d%% by waiting clients)",
                            clients * rounds, commits, Double(5 * clients * rounds) / Double(max(1, commits)),
                            100 * (writer.store.commitsByWaiters - byWaitersBefore) / max(1, commits)))
                }
            }
            await writer.stop()
        }
    }

    /// The disk's own cost of what a journal commit does: a small append and an `fdatasync`.
    struct DiskProbe {
        /// Mean wall time of one append + `fdatasync`, in seconds.
        var latency: Double
        /// Mean CPU time (this process's, mostly the kernel's) of one, in seconds.
        var cpu: Double

        static func measure(directory: String, count: Int) -> DiskProbe {
            let path = "\(directory)/sync-probe"
            let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
            defer {
                close(fd)
                unlink(path)
            }
            let zeros = [UInt8](repeating: 0, count: 1 << 20)
            _ = zeros.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            fsync(fd)
            let line = [UInt8](repeating: UInt8(ascii: "x"), count: 300)
            let cpuBefore = processCPU()
            let start = ContinuousClock.now
            for index in 0..<count {
                _ = line.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(index * 300 % (1 << 20 - 300))) }
                fdatasync(fd)
            }
            let elapsed = seconds(ContinuousClock.now - start)
            return DiskProbe(latency: elapsed / Double(count), cpu: (processCPU() - cpuBefore) / Double(count))
        }
    }

    /// A session's cost must not grow with the size of the home: an 8-light and a big home served side by
    /// side, measured in turn (small, big, small, big, …) so that drift in the machine's speed hits both.
    static func benchmarkHomeSize(_ baseline: Baseline) async {
        let count = baseline.quick ? 10_000 : 100_000
        // Full durability: a write appends to the journal whatever the home's size (snapshots are written at
        // start, at stop and when the journal outgrows twice the snapshot).
        let small = await serve(
            fixture: instantHome(lights: 8), directory: "\(baseline.directory)/small", durability: .full)
        let big = await serve(
            fixture: instantHome(lights: count), directory: "\(baseline.directory)/big", durability: .full)
        let (smallReads, bigReads) = alternate(small.path, big.path) { path in
            roundTrips(clients: 1, rounds: baseline.rounds, path: path, line: getName)
        }
        report("lumend get in a \(count.formatted())-light home vs an 8-light one", bigReads, baseline: smallReads)
        let writes = baseline.quick ? 300 : 3_000
        let (smallWrites, bigWrites) = alternate(small.path, big.path) { path in
            measureWrites(clients: 1, rounds: writes, path: path)
        }
        report(
            "lumend full set in a \(count.formatted())-light home vs an 8-light one", bigWrites, baseline: smallWrites)
        await small.stop()
        await big.stop()
        // Start-up after a crash replays the journal: a long one over the big home.
        let commits = baseline.quick ? 2_000 : 20_000
        let home = instantHome(lights: count)
        let lights = home.rooms[0].lights
        let batches = (0..<commits).map { index -> [StateRecord] in
            var light = lights[index % lights.count]
            light.state.isOn.toggle()
            return [.light(light, room: home.rooms[0].id)]
        }
        let start = ContinuousClock.now
        _ = try? home.applying(batches: batches)
        print(
            "  " + pad("replaying \(commits.formatted()) journal commits onto a \(count.formatted())-light home")
                + String(format: "%9.2f s", seconds(ContinuousClock.now - start)))
    }

    /// Measures `first` and `second` in turn, five times each, and returns each one's median.
    static func alternate(_ first: String, _ second: String, _ run: (String) -> Measurement) -> (
        Measurement, Measurement
    ) {
        var runs: ([Measurement], [Measurement]) = ([], [])
        for _ in 0..<5 {
            runs.0.append(run(first))
            runs.1.append(run(second))
        }
        return (median(runs.0), median(runs.1))
    }

    /// Memory per light.
    static func benchmarkMemory(_ baseline: Baseline) async {
        let count = baseline.quick ? 10_000 : 100_000
        // The fixture is built first and kept, so the difference is what the simulation itself holds.
        let fixture = instantHome(lights: count)
        let before = residentBytes()
        let home = Home(fixture: fixture, clock: .virtual)
        let lightCount = await home.lightCount
        let after = residentBytes()
        let perLight = Double(after - before) / Double(lightCount)
        print(
            "  " + pad("memory, \(count) lights, resident growth per light")
                + String(format: "%9.0f B   (target < 1024)", perLight))
        withExtendedLifetime((home, fixture)) {}
    }

    struct Measurement {
        var operations: Int
        var seconds: Double
        /// The CPU time this whole process (clients and server) spent meanwhile, in seconds.
        var cpu: Double
        var rate: Double { Double(operations) / seconds }
        /// CPU time per operation, both ends together, in microseconds.
        var cpuPerOperation: Double { cpu / Double(operations) * 1e6 }
    }

    /// Prints a figure as a ratio against its baseline, with the CPU each operation cost both (on these
    /// 2-core machines, clients and server share the CPU, so a costlier operation also means fewer).
    static func report(_ name: String, _ measurement: Measurement, baseline: Measurement) {
        let ratio = measurement.rate / baseline.rate
        print(
            "  " + pad(name)
                + String(
                    format: "%9.0f/s  ratio %.2f (of %.0f/s)  CPU %.0f µs/op (of %.0f)", measurement.rate, ratio,
                    baseline.rate, measurement.cpuPerOperation, baseline.cpuPerOperation))
    }

    /// The CPU time this process has used, user and system, in seconds.
    static func processCPU() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// `rounds` round trips of `line` on each of `clients` connections, `window` in flight on each.
    static func roundTrips(clients: Int, window: Int = 1, rounds: Int, path: String, line: [UInt8]) -> Measurement {
        pipelined(clients: clients, window: window, rounds: rounds, path: path) { _, _ in { _ in line } }
    }

    /// The run with the median rate: single runs on these machines vary by a factor of two.
    static func median(_ runs: [Measurement]) -> Measurement { runs.sorted { $0.rate < $1.rate }[runs.count / 2] }

    /// An old connection (one that has served `total` requests) against a fresh one, measured in turn with
    /// 5,000 requests at a time; the medians of five turns each, as (fresh, old).
    static func aging(path: String, request: [UInt8], total: Int) -> (Measurement, Measurement) {
        func run(_ client: BlockingLineClient, _ count: Int) -> Measurement {
            let cpu = processCPU()
            let start = ContinuousClock.now
            for _ in 0..<count {
                client.send(request)
                client.readLine()
            }
            return Measurement(
                operations: count, seconds: seconds(ContinuousClock.now - start), cpu: processCPU() - cpu)
        }
        let old = BlockingLineClient(path: path)
        _ = run(old, total)
        var turns: (fresh: [Measurement], old: [Measurement]) = ([], [])
        for _ in 0..<5 {
            turns.fresh.append(run(BlockingLineClient(path: path), 5_000))
            turns.old.append(run(old, 5_000))
        }
        return (median(turns.fresh), median(turns.old))
    }

    /// Writes: each client toggles its own light, with `window` requests in flight (1: each confirmation
    /// awaited before the next write).
    static func measureWrites(clients: Int, window: Int = 1, rounds: Int, path: String) -> Measurement {
        pipelined(clients: clients, window: window, rounds: rounds, path: path) { client, index in
            client.send(
                Array(
                    #"{"jsonrpc":"2.0","id":"r","method":"open","params":{"scope":0,"connection":"room","configuration":"room"}}"#
                        .utf8) + [0x0A])
            client.readLine()
            client.send(
                Array(
                    #"{"jsonrpc":"2.0","id":"l","method":"open","params":{"scope":1,"connection":"light","configuration":"light-\#(index)"}}"#
                        .utf8) + [0x0A])
            let opened = client.readLine(containing: Array(#""id":"l""#.utf8))
            let scope = String(decoding: opened, as: UTF8.self).split(separator: "\"scope\":").last?.prefix {
                $0.isNumber
            }
            let on =
                Array(
                    #"{"jsonrpc":"2.0","id":1,"method":"set","params":{"scope":\#(scope ?? "2"),"connection":"isOn","value":true}}"#
                        .utf8) + [0x0A]
            let off =
                Array(
                    #"{"jsonrpc":"2.0","id":1,"method":"set","params":{"scope":\#(scope ?? "2"),"connection":"isOn","value":false}}"#
                        .utf8) + [0x0A]
            return { round in round % 2 == 0 ? off : on }
        }
    }

    /// Runs `rounds` requests on each of `clients` connections, each on its own thread, keeping `window`
    /// requests in flight. `setup` prepares a connection and returns the request for each round; the clock
    /// starts once every connection is ready.
    static func pipelined(
        clients: Int, window: Int, rounds: Int, path: String,
        setup: @escaping @Sendable (BlockingLineClient, Int) -> @Sendable (Int) -> [UInt8]
    ) -> Measurement {
        let group = DispatchGroup()
        let ready = DispatchGroup()
        let go = DispatchSemaphore(value: 0)
        let elapsed = LockedDuration()
        for index in 0..<clients {
            group.enter()
            ready.enter()
            Thread {
                let client = BlockingLineClient(path: path)
                let request = setup(client, index)
                ready.leave()
                go.wait()
                var sent = 0
                while sent < min(window, rounds) {
                    client.send(request(sent))
                    sent += 1
                }
                for _ in 0..<rounds {
                    client.readLine()
                    if sent < rounds {
                        client.send(request(sent))
                        sent += 1
                    }
                }
                group.leave()
            }.start()
        }
        ready.wait()
        let cpu = processCPU()
        let start = ContinuousClock.now
        for _ in 0..<clients { go.signal() }
        group.wait()
        elapsed.set(ContinuousClock.now - start)
        return Measurement(operations: clients * rounds, seconds: seconds(elapsed.value), cpu: processCPU() - cpu)
    }

    static func pad(_ text: String) -> String {
        text.count >= 64 ? text + " " : text + String(repeating: " ", count: 64 - text.count)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    struct Served {
        let path: String
        let store: StateStore
        let tasks: [Task<Void, Never>]
        /// Stops serving and waits until the store has saved its last snapshot, so nothing of this server
        /// runs on into the next measurement.
        func stop() async {
            tasks.forEach { $0.cancel() }
            for task in tasks { await task.value }
        }
    }

    /// A real-clock lumend server in this process, with a state store, as the daemon wires them.
    static func serve(fixture: Fixture, directory: String, durability: Durability) async -> Served {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let home = Home(fixture: fixture, clock: .real)
        let store = StateStore(
            directory: directory, durability: durability, origin: FixtureOrigin(id: fixture.id, digest: "bench")
        ) { await home.snapshot() }
        let container = ScopeContainer(home: home) { () async throws(LumenError) in
            guard durability == .full else { return }
            do { try await store.waitUntilDurable(store.changeMark, committingHere: true) } catch {
                throw LumenError(.notPersisted, "\(error)")
            }
        }
        let path = "\(directory)/s.sock"
        let fd = try! UnixSocket.listen(at: path)
        let server = SocketServer(
            listenFD: fd, ownedPath: path, container: container,
            logger: Logger(level: .critical, handler: StderrLogHandler()))
        await home.addObserver { server.publish($0) }
        await home.setPersistenceSink { store.record($0) }
        try? await store.compact()
        let serverTask = Task { _ = try? await server.run() }
        let storeTask = Task { await store.run() }
        return Served(path: path, store: store, tasks: [serverTask, storeTask])
    }

    /// One room of `lights` instant colour lights, `light-0` …
    static func instantHome(lights: Int) -> Fixture {
        var fixture = Fixture(
            id: "bench", name: "Bench",
            rooms: [
                RoomFixture(
                    id: "room", name: "Room",
                    lights: (0..<lights).map {
                        LightFixture(
                            id: LightID("light-\($0)"), name: "Light \($0)",
                            model: DeviceModel(kind: .color, manufacturer: "Lumen", product: "Bench bulb"))
                    })
            ])
        fixture.defaults.latency = .preset(.instant)
        return fixture
    }

    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    static func makeTemporaryDirectory() -> String {
        var template = Array("/tmp/lumen-bench-XXXXXX".utf8CString)
        return String(cString: template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!)! })
    }
}

/// A duration set by one thread and read by another.
final class LockedDuration: Sendable {
    private let stored = Mutex<Duration>(.zero)
    func set(_ value: Duration) { stored.withLock { $0 = value } }
    var value: Duration { stored.withLock { $0 } }
}

/// The baseline: echoes each line back, one thread per connection.
enum EchoServer {
    static func start(path: String) {
        let fd = try! UnixSocket.listen(at: path)
        Thread {
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { continue }
                Thread {
                    var buffer = [UInt8](repeating: 0, count: 65_536)
                    while true {
                        let count = buffer.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
                        if count <= 0 { break }
                        var offset = 0
                        while offset < count {
                            let written = buffer[offset..<count].withUnsafeBytes {
                                write(client, $0.baseAddress, $0.count)
                            }
                            if written <= 0 { break }
                            offset += written
                        }
                    }
                    close(client)
                }.start()
            }
        }.start()
    }
}
