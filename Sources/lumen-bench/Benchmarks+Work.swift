import Foundation
import LumenLoop
import LumenModel
import LumenScopes
import LumenServer
import LumenSimulation
import LumenStore

extension Benchmarks {
    /// A request's own work, with no socket: one in-process session fed lines as a connection feeds them, a
    /// hundred at a time,
    /// `get`s and relaxed `set`s in turn, on a home wired to its store and on a loop of its own as lumend wires
    /// them (a `set` takes the hop to the home's loop and back). Each figure is the least CPU a request took over several runs: what else the machine does only
    /// ever adds to it, so the least is the run the machine left alone. The kernel's and the scheduler's
    /// part of a request, which the socket figures carry, is not in it.
    ///
    /// Beside them, the hop alone: a task on a loop of its own that calls the home with nothing to do there,
    /// as a `set`'s task calls it, measured the same way. It is the floor under a `set`'s figure that no work
    /// of the request's own can lower: the task's switch to the home's executor and back, and the wake-up of
    /// each loop's sleeping thread when it has nothing else queued.
    static func benchmarkWork(_ baseline: Baseline) async {
        let fixture = instantHome(lights: 8)
        let directory = "\(baseline.directory)/work"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let mainLoop = EventLoop(name: "bench.main")
        let home = Home(fixture: fixture, clock: .real, wakeExecutor: mainLoop, executor: mainLoop)
        let store = StateStore(
            directory: directory, durability: .relaxed, origin: FixtureOrigin(id: fixture.id, digest: "bench")
        ) { await home.snapshot() }
        await home.setPersistenceSink(store)
        let storeTask = Task { await store.run() }
        let session = InProcessSession(scopeContext: ScopeContext(home: home))
        // A fresh session: the room opens as scope 1, its light as scope 2.
        for line in [openRoomLine, openLightLine(0)] { _ = await session.feed(line) }
        let (on, off) = (setIsOnLine(scope: "2", true), setIsOnLine(scope: "2", false))
        // The first read of a value publishes it; later ones are answered at once, as in a long session.
        _ = await session.feed(getName)

        // Fed a hundred lines at a time, as a connection's read hands them over: the hop onto the session's
        // loop and back, which a connection does not take, is then a hundredth of a request's figure.
        let gets = Array(Array(repeating: getName, count: 100).joined())
        let sets = Array(Array(repeating: off + on, count: 50).joined())
        let (runs, requests) = baseline.quick ? (5, 20_000) : (11, 100_000)
        var least = (get: Double.infinity, set: Double.infinity, hop: Double.infinity)
        let hopLoop = EventLoop(name: "bench.hop")
        for _ in 0..<runs {
            var start = processCPU()
            for _ in 0..<requests / 100 { _ = await session.feed(gets) }
            least.get = min(least.get, (processCPU() - start) / Double(requests) * 1e6)
            start = processCPU()
            for _ in 0..<requests / 100 { _ = await session.feed(sets) }
            least.set = min(least.set, (processCPU() - start) / Double(requests) * 1e6)
            start = processCPU()
            await Task(executorPreference: hopLoop) {
                // The home's own state is read, and the task is back on its loop after, as a `set`'s is to
                // answer: each read is stored off the task's stack, which needs the loop's executor, so that the
                // hop back is not optimized away, as a hop with nothing after it would be.
                let read = UnsafeMutablePointer<Int>.allocate(capacity: 1)
                defer { read.deallocate() }
                for _ in 0..<requests {
                    read.pointee = await home.scheduledEventCount
                }
                precondition(hopLoop.isCurrent)
            }.value
            least.hop = min(least.hop, (processCPU() - start) / Double(requests) * 1e6)
        }
        let label = "a get's own work, no socket (least of \(runs) runs)"
        print("  " + pad(label) + String(format: "%6.2f µs", least.get))
        print(
            "  " + pad("a relaxed set's own work, against a get's (target ≤ 5×)")
                + String(format: "%6.2f µs  ratio %.2f", least.set, least.set / least.get))
        print(
            "  " + pad("of it, an empty hop to the home's loop and back")
                + String(format: "%6.2f µs  ratio %.2f", least.hop, least.hop / least.get))

        await session.close()
        await hopLoop.shutDown()
        await home.shutDown()
        storeTask.cancel()
        await storeTask.value
    }
}
