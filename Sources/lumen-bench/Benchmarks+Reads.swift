extension Benchmarks {
    static let getName =
        Array(#"{"jsonrpc":"2.0","id":1,"method":"get","params":{"scope":0,"connection":"name"}}"#.utf8) + [0x0A]

    /// Reads: `get` round trips from 1 and 8 clients, and on an old connection against a new one.
    static func benchmarkReads(_ baseline: Baseline) async {
        let served = await serve(fixture: .demoHome(), directory: "\(baseline.directory)/demo", durability: .full)
        let (echo1, reads1) = againstEcho(baseline, served.path) { path, echoLine in
            roundTrips(clients: 1, rounds: baseline.rounds, path: path, line: echoLine ?? getName)
        }
        report("lumend get, 1 client (target ≥ 0.85)", reads1, baseline: echo1)
        // A connection must not slow down as it ages.
        let (fresh, old) = aging(path: served.path, request: getName, total: baseline.quick ? 20_000 : 100_000)
        report("lumend get on an old connection vs a new one (≈ 1.00)", old, baseline: fresh)
        let (echo8, reads8) = againstEcho(baseline, served.path) { path, echoLine in
            roundTrips(clients: 8, rounds: baseline.rounds / 4, path: path, line: echoLine ?? getName)
        }
        report("lumend get, 8 clients (target ≥ 0.85)", reads8, baseline: echo8)
        await served.stop()
    }

    /// `rounds` round trips of `line` on each of `clients` connections, `window` in flight on each.
    static func roundTrips(clients: Int, window: Int = 1, rounds: Int, path: String, line: [UInt8]) -> Measurement {
        pipelined(clients: clients, window: window, rounds: rounds, path: path) { _, _ in { _ in line } }
    }

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
}
