import Foundation
import LumenModel
import LumenSimulation

extension Benchmarks {
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
        report(
            "lumend get in a \(count.formatted())-light home vs an 8-light one (≈ 1.00)", bigReads, baseline: smallReads
        )
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

    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
