import LumenProtocol
import LumenServer
import LumenService
import LumenSimulation

/// Sends `STATUS=` whenever what it says changes: lights simulated, clients connected, persistence health.
struct StatusReporter: Service {
    var name: String { "status" }
    let home: Home
    let server: SocketServer
    let health: PersistenceHealth
    let notifier: any ServiceNotifier
    let clock: any Clock<Duration>

    func run() async throws {
        try await cancelWhenGracefulShutdown { [self] in await report() }
    }

    private func report() async {
        var last = ""
        while !Task.isCancelled {
            let lights = await home.lightCount
            let clients = server.sessionCount
            let status =
                "Simulating \(lights) light\(lights == 1 ? "" : "s"); \(clients) client\(clients == 1 ? "" : "s") "
                + "connected; \(health.summary)"
            if status != last {
                notifier.notify("STATUS=\(status)")
                last = status
            }
            try? await clock.sleep(for: .milliseconds(500))
        }
    }
}

/// What `STATUS=` says about persistence, updated by the store and read by the status reporter.
final class PersistenceHealth: Sendable {
    private let state = Locked<(failure: String?, warnings: [String])>((nil, []))
    private let snapshotProblem = Locked<(@Sendable () -> String?)?>(nil)

    /// Sets where to ask whether snapshots are failing while the journal still takes every change.
    func watchSnapshots(_ problem: @escaping @Sendable () -> String?) { snapshotProblem.withLock { $0 = problem } }

    func fail(_ why: String) { state.withLock { $0.failure = why } }
    /// Clears a failure; returns whether there was one.
    @discardableResult
    func recover() -> Bool {
        state.withLock { state in
            defer { state.failure = nil }
            return state.failure != nil
        }
    }
    func warn(_ why: String) { state.withLock { $0.warnings.append(why) } }

    var summary: String {
        state.withLock { state in
            if let failure = state.failure { return "persistence DEGRADED (\(failure)); retrying" }
            if let problem = snapshotProblem.withLock({ $0 })?() {
                return "state saved in the journal; snapshots failing (\(problem)); retrying"
            }
            if let warning = state.warnings.last { return "state recovered with warnings: \(warning)" }
            return "state saved"
        }
    }
}
