import Foundation
import LumenModel

extension Benchmarks {
    /// Writes: instant latency, real clock; full and relaxed durability.
    ///
    /// A client that waits for each durable write cannot beat one append + `fdatasync` plus one round trip
    /// per write, so full durability is also reported against that bound, from the disk's own latency
    /// measured between the runs.
    static func benchmarkWrites(_ baseline: Baseline) async {
        let probeCount = baseline.quick ? 100 : 500
        var probes: [DiskProbe] = []
        let windowed = 8
        var disk: DiskProbe?
        var oneWaiting: Measurement?
        var echoEightWaiting: Measurement?
        for durability in [Durability.full, .relaxed] {
            let writer = await serve(
                fixture: instantHome(lights: 8), directory: "\(baseline.directory)/w-\(durability.rawValue)",
                durability: durability)
            for (clients, window) in [(1, 1), (8, 1), (8, windowed)] {
                let rounds = (baseline.quick ? 600 : 6_000) / clients * (window > 1 ? 2 : 1)
                let before = writer.store.commitCount
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
                    let median = probes.sorted { $0.latency < $1.latency }[probes.count / 2]
                    disk = median
                    print(
                        "  " + pad("this disk: append + fdatasync (median of 5 probes between runs)")
                            + String(format: "%9.0f µs  of it CPU %.0f µs", median.latency * 1e6, median.cpu * 1e6))
                }
                report("lumend \(durability.rawValue) set, \(shape)", rate, baseline: echo)
                if clients == 8, window == 1 { echoEightWaiting = echo }
                if durability == .full, window > 1, let echoEightWaiting {
                    print(
                        "    " + pad("against echo answering 8 waiting clients (target ≥ 0.40)")
                            + String(
                                format: "%7.0f/s  ratio %.2f", echoEightWaiting.rate, rate.rate / echoEightWaiting.rate)
                    )
                }
                if durability == .relaxed, window == 1 {
                    // The same clients reading instead, in turn with the writes: what a write costs beyond a read.
                    // Many short phases rather than a few long ones: how busy the machine is drifts over seconds,
                    // and a read and a write run close together see the same drift. Reads and writes take turns on
                    // the same connections: a connection's CPU depends on whether its client thread shares a core
                    // with the loop serving it, which runs on different connections would not share. Each pair of
                    // phases goes the other way round from the last.
                    let (pairs, requests) = baseline.quick ? (10, 2_000) : (20, 6_000)
                    // Read then write, write then read, and so on.
                    @Sendable func reads(_ phase: Int) -> Bool { phase % 4 == 0 || phase % 4 == 3 }
                    let phases = inPhases(2 * pairs, clients: clients, rounds: requests / clients, path: writer.path) {
                        client, index in
                        let write = openLightForWrites(client, index)
                        return { phase, round in reads(phase) ? getName : write(round) }
                    }
                    let (readPhases, writePhases) = (
                        phases.indices.filter(reads).map { phases[$0] },
                        phases.indices.filter { !reads($0) }.map { phases[$0] }
                    )
                    // The phases of median CPU time, not of median rate: the CPU time is the figure.
                    let (read, write) = (medianCPU(readPhases), medianCPU(writePhases))
                    print(
                        "    " + pad("CPU a relaxed set against a get, \(shape) (target ≤ 2.00)")
                            + String(
                                format: "%7.0f µs  ratio %.2f (of %.0f µs)", write.cpuPerOperation,
                                write.cpuPerOperation / read.cpuPerOperation, read.cpuPerOperation))
                }
                if durability == .full, window == 1, let disk {
                    // Clients that each wait for their confirmation cannot beat one fdatasync plus one round trip
                    // apiece, even if every commit served them all at once.
                    let bound = Double(clients) / (disk.latency + Double(clients) / echo.rate)
                    let target = clients == 1 ? " (target ≥ 0.50)" : ""
                    print(
                        "    " + pad("disk's bound \(clients)/(fdatasync + echo round trip)\(target)")
                            + String(format: "%7.0f/s  ratio %.2f of it", bound, rate.rate / bound))
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
                                "    %d writes × 5 runs shared %d disk commits (%.1f a commit)",
                            clients * rounds, commits, Double(5 * clients * rounds) / Double(max(1, commits))))
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

    /// Writes: each client toggles its own light, with `window` requests in flight (1: each confirmation
    /// awaited before the next write).
    static func measureWrites(clients: Int, window: Int = 1, rounds: Int, path: String) -> Measurement {
        pipelined(clients: clients, window: window, rounds: rounds, path: path, setup: openLightForWrites)
    }

    /// Opens the light `light-index` on `client`'s connection and returns the write for each round, turning it
    /// off and on in turn.
    @Sendable static func openLightForWrites(_ client: BlockingLineClient, _ index: Int) -> @Sendable (Int) -> [UInt8] {
        client.send(openRoomLine)
        client.readLine()
        client.send(openLightLine(index))
        let opened = client.readLine(containing: Array(#""id":"l""#.utf8))
        let reply = String(decoding: opened, as: UTF8.self)
        let scope = String(reply.split(separator: "\"scope\":").last?.prefix { $0.isNumber } ?? "2")
        let (on, off) = (setIsOnLine(scope: scope, true), setIsOnLine(scope: scope, false))
        return { round in round % 2 == 0 ? off : on }
    }

    /// The line that opens the bench home's room (scope 1 in a fresh session).
    static let openRoomLine =
        Array(
            #"{"jsonrpc":"2.0","id":"r","method":"open","params":{"scope":0,"connection":"room","configuration":"room"}}"#
                .utf8)
        + [0x0A]

    /// The line that opens the light `light-index` of the bench home's room, answered with `"id":"l"`.
    static func openLightLine(_ index: Int) -> [UInt8] {
        Array(
            #"{"jsonrpc":"2.0","id":"l","method":"open","params":{"scope":1,"connection":"light","configuration":"light-\#(index)"}}"#
                .utf8) + [0x0A]
    }

    /// A `set` of `isOn` to `value` on the light scope `scope`.
    static func setIsOnLine(scope: String, _ value: Bool) -> [UInt8] {
        Array(
            #"{"jsonrpc":"2.0","id":1,"method":"set","params":{"scope":\#(scope),"connection":"isOn","value":\#(value)}}"#
                .utf8)
            + [0x0A]
    }
}
