import Foundation

extension Benchmarks {
    /// Runs `rounds` requests on each of `clients` connections, each on its own thread, keeping `window`
    /// requests in flight. `setup` prepares a connection and returns the request for each round; the clock
    /// starts once every connection is ready.
    static func pipelined(
        clients: Int, window: Int, rounds: Int, path: String,
        setup: @escaping @Sendable (BlockingLineClient, Int) -> @Sendable (Int) -> [UInt8]
    ) -> Measurement {
        inPhases(1, clients: clients, window: window, rounds: rounds, path: path) { client, index in
            let request = setup(client, index)
            return { _, round in request(round) }
        }[0]
    }

    /// Runs `phases` phases of `rounds` requests on each of `clients` connections, each on its own thread,
    /// keeping `window` requests in flight, and measures each phase: every connection ends a phase before
    /// any begins the next. `setup` prepares a connection and returns the request for each phase and round.
    /// The same connections, served by the same threads, carry every phase, so two kinds of request made in
    /// turn are compared where they ran alike.
    static func inPhases(
        _ phases: Int, clients: Int, window: Int = 1, rounds: Int, path: String,
        setup: @escaping @Sendable (BlockingLineClient, Int) -> @Sendable (_ phase: Int, _ round: Int) -> [UInt8]
    ) -> [Measurement] {
        let ready = DispatchGroup()
        // One gate a phase: a client quick to end a phase must not take a start meant for a slower one.
        let gates = (0..<phases).map { _ in DispatchSemaphore(value: 0) }
        let ended = DispatchSemaphore(value: 0)
        for index in 0..<clients {
            ready.enter()
            Thread {
                let client = BlockingLineClient(path: path)
                let request = setup(client, index)
                ready.leave()
                for phase in 0..<phases {
                    gates[phase].wait()
                    var sent = 0
                    while sent < min(window, rounds) {
                        client.send(request(phase, sent))
                        sent += 1
                    }
                    for _ in 0..<rounds {
                        client.readLine()
                        if sent < rounds {
                            client.send(request(phase, sent))
                            sent += 1
                        }
                    }
                    ended.signal()
                }
            }.start()
        }
        ready.wait()
        return gates.map { gate in
            let cpu = processCPU()
            let start = ContinuousClock.now
            for _ in 0..<clients { gate.signal() }
            for _ in 0..<clients { ended.wait() }
            let elapsed = ContinuousClock.now - start
            return Measurement(operations: clients * rounds, seconds: seconds(elapsed), cpu: processCPU() - cpu)
        }
    }
}
