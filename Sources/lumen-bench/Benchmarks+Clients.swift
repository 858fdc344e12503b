import Foundation
import Synchronization

extension Benchmarks {
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
}

/// A duration set by one thread and read by another.
final class LockedDuration: Sendable {
    private let stored = Mutex<Duration>(.zero)
    func set(_ value: Duration) { stored.withLock { $0 = value } }
    var value: Duration { stored.withLock { $0 } }
}
