import Foundation

/// `make bench`: every figure is reported as a ratio against a baseline measured in the same run, because
/// these machines are noisy.
enum Benchmarks {
    /// The parts of the run; `--only` picks some.
    enum Section: String, CaseIterable {
        case reads, writes, work, size, memory, startup, sessions, hue, hueV2 = "hue-v2", lifx, streams
        case streamsV2 = "streams-v2"
    }

    static let usage = """
        usage: lumen-bench [--quick] [--only SECTION[,SECTION…]]

        Measures lumend and prints each figure as a ratio against a baseline measured in turn with it, five
        runs each (medians): a raw Unix-socket echo server of the same shape for throughput, a fresh
        connection for aging, an 8-light home for home size. Durable writes are also shown against the
        disk's bound: one append + fdatasync (probed between the runs) plus one echo round trip for each
        waiting client. Beside each rate: the CPU time one operation cost, clients and server together; a
        relaxed set's against a get's comes from twenty pairs of short phases (ten in a quick run) on the same
        connections, each pair the other way round from the last. A request's own work, with no socket, is
        the least CPU it took alone on one thread over several runs.
        docs/benchmarks.md explains every figure and its target.
          --quick          fewer rounds (a smoke run, figures are rougher)
          --only SECTIONS  run only these: reads, writes, work, size, memory, startup, sessions, hue, hue-v2,
                           lifx, streams, streams-v2
                           (default: all)
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
                    print(
                        "lumen-bench: --only takes sections from: reads, writes, work, size, memory, startup, sessions, "
                            + "hue, hue-v2, lifx, streams, streams-v2\n\n"
                            + usage)
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
        if sections.contains(.work) { await benchmarkWork(baseline) }
        if sections.contains(.size) { await benchmarkHomeSize(baseline) }
        if sections.contains(.startup) { await benchmarkStartup(baseline) }
        if sections.contains(.sessions) { await benchmarkSessions(baseline) }
        if sections.contains(.hue) { await benchmarkHue(baseline) }
        if sections.contains(.hueV2) { await benchmarkHueV2(baseline) }
        if sections.contains(.lifx) { await benchmarkLIFX(baseline) }
        if sections.contains(.streams) { await benchmarkEventStreams(baseline) }
        if sections.contains(.streamsV2) { await benchmarkHueEventStreams(baseline) }
    }

    /// What every section compares against.
    struct Baseline {
        var quick: Bool
        var rounds: Int
        var directory: String
        var echoPath: String
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

    /// Measures the echo server and lumend in turn, five runs each, so that drift in the machine's speed hits
    /// both; `run` gets the path and, for the echo server, the line to send (`nil` for lumend).
    static func againstEcho(
        _ baseline: Baseline, _ path: String, _ run: (_ path: String, _ echoLine: [UInt8]?) -> Measurement
    ) -> (echo: Measurement, lumend: Measurement) {
        alternate(baseline.echoPath, path) { target in run(target, target == baseline.echoPath ? ping : nil) }
    }

    static let ping = Array(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.utf8) + [0x0A]

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

    /// The run with the median rate: single runs on these machines vary by a factor of two.
    static func median(_ runs: [Measurement]) -> Measurement { runs.sorted { $0.rate < $1.rate }[runs.count / 2] }

    /// The run with the median CPU time per operation.
    static func medianCPU(_ runs: [Measurement]) -> Measurement {
        runs.sorted { $0.cpuPerOperation < $1.cpuPerOperation }[runs.count / 2]
    }

    static func pad(_ text: String) -> String {
        text.count >= 64 ? text + " " : text + String(repeating: " ", count: 64 - text.count)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func makeTemporaryDirectory() -> String {
        var template = Array("/tmp/lumen-bench-XXXXXX".utf8CString)
        return String(cString: template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!)! })
    }
}
