import Foundation
import LumenModel
import LumenProtocol
import LumenSimulation
import LumenTestSupport
import Synchronization
import Testing

/// A mixed load with faults and `kill -9` at random moments, round after round on one state directory: after
/// every restart each writer's last acknowledged value is there (or a later one it sent), and nothing else.
/// `make test` runs a few rounds; `make soak SOAK_MINUTES=…` runs for that long (`LUMEN_SOAK_MINUTES`).
@Suite("Soak: load, faults and kill -9", .serialized, .timeLimit(.minutes(60)))
struct SoakTests {
    static let minutes = ProcessInfo.processInfo.environment["LUMEN_SOAK_MINUTES"].flatMap(Double.init)

    /// What one writer did: every value is `w<writer>-<n>` with `n` counting up.
    final class Writer: Sendable {
        let index: Int
        let acknowledged = Atomic<Int>(0)
        let sent = Atomic<Int>(0)
        init(index: Int) { self.index = index }
    }

    /// The scope path and connection each writer writes: the home's name, each room's, one light's.
    static let targets: [(open: [(String, String)], connection: String)] = [
        ([], "name"),
        ([("room", "lab")], "name"),
        ([("room", "attic")], "name"),
        ([("room", "lab"), ("light", "lab.dim")], "name"),
    ]

    static func openScope(_ client: LineClient, _ path: [(String, String)]) async throws -> JSONValue {
        var scope: JSONValue = 0
        for (connection, configuration) in path {
            scope = try await client.result(
                "open", ["scope": scope, "connection": .string(connection), "configuration": .string(configuration)]
            )["scope"]!
        }
        return scope
    }

    /// Acknowledgements across all writers in a round, and the moment to kill: once `killAt` have come.
    final class Round: Sendable {
        private let state = Locked<(acknowledged: Int, killAt: Int, waiter: CheckedContinuation<Void, Never>?)>(
            (0, 0, nil))

        init(killAt: Int) { state.withLock { $0.killAt = killAt } }

        func acknowledged() {
            let ready = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.acknowledged += 1
                guard state.acknowledged >= state.killAt else { return nil }
                defer { state.waiter = nil }
                return state.waiter
            }
            ready?.resume()
        }

        /// Returns once `killAt` writes were acknowledged.
        func killMoment() async {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool in
                    if state.acknowledged >= state.killAt { return true }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }

    /// Writes until the daemon goes away.
    static func write(_ writer: Writer, socket: String, round: Round) async {
        guard let client = try? LineClient(path: socket),
            let scope = try? await openScope(client, targets[writer.index].open)
        else { return }
        while true {
            let n = writer.sent.add(1, ordering: .relaxed).newValue
            let params: JSONValue = [
                "scope": scope, "connection": .string(targets[writer.index].connection),
                "value": .string("w\(writer.index)-\(n)"),
            ]
            guard let reply = try? await client.request("set", params, timeout: .seconds(5)) else { return }
            if reply["result"] != nil {
                writer.acknowledged.store(n, ordering: .relaxed)
                round.acknowledged()
            }
        }
    }

    /// Makes a light come and go, and commands it meanwhile, until the daemon goes away.
    static func injectFaults(socket: String, seed: UInt64) async {
        guard let client = try? LineClient(path: socket),
            let simulation = try? await client.result("open", ["scope": 0, "connection": "simulation"])["scope"],
            let light = try? await openScope(client, [("room", "lab"), ("light", "lab.color")])
        else { return }
        var random = SeededRandom(seed: seed)
        while true {
            let reachable = Bool.random(using: &random)
            guard
                (try? await client.request(
                    "call",
                    [
                        "scope": simulation, "connection": "setReachable",
                        "arguments": ["light": "lab.color", "reachable": .bool(reachable)],
                    ], timeout: .seconds(5))) != nil,
                (try? await client.request(
                    "set", ["scope": light, "connection": "isOn", "value": .bool(Bool.random(using: &random))],
                    timeout: .seconds(5))) != nil
            else { return }
        }
    }

    @Test func everyAcknowledgedWriteSurvivesKillNineUnderLoadAndFaults() async throws {
        let directory = TemporaryDirectory()
        let fixture = directory.file("home.json")
        _ = FileManager.default.createFile(atPath: fixture, contents: Data(TestFixtures.instantHome.utf8))
        let arguments = ["--fixture", fixture, "--simulation-access", "any"]
        let writers = (0..<Self.targets.count).map(Writer.init)
        let deadline = ContinuousClock.now + .seconds((Self.minutes ?? 0) * 60)
        var random = SeededRandom(seed: 7)
        var rounds = 0
        var acknowledged = 0
        var losses: [String] = []
        while rounds < 3 || ContinuousClock.now < deadline {
            rounds += 1
            let daemon = try DaemonProcess(arguments: arguments, directory: directory)
            _ = try #require(await daemon.waitUntilReady(), "round \(rounds): no READY=1: \(daemon.stderr)")
            // Every writer's value survived the last kill.
            let reader = try daemon.connect()
            for writer in writers {
                let scope = try await Self.openScope(reader, Self.targets[writer.index].open)
                let value = try await reader.result(
                    "get", ["scope": scope, "connection": .string(Self.targets[writer.index].connection)])["value"]
                let n = value?.stringValue.flatMap { Int($0.split(separator: "-").last ?? "") } ?? 0
                let (acked, sent) = (writer.acknowledged.load(ordering: .relaxed), writer.sent.load(ordering: .relaxed))
                if n < acked || n > sent {
                    losses.append("round \(rounds), writer \(writer.index): \(value ?? .null), acknowledged \(acked)")
                }
                // What the daemon holds is what the next round counts from.
                writer.acknowledged.store(n, ordering: .relaxed)
                writer.sent.store(max(n, sent), ordering: .relaxed)
            }
            let before = writers.map { $0.acknowledged.load(ordering: .relaxed) }
            let socket = daemon.socketPath
            // The kill comes after a random number of acknowledged writes, mid-stream.
            let round = Round(killAt: Int.random(in: 1...400, using: &random))
            let load = writers.map { writer in Task { await Self.write(writer, socket: socket, round: round) } }
            let faults = Task { [seed = random.next()] in await Self.injectFaults(socket: socket, seed: seed) }
            await round.killMoment()
            daemon.signal(SIGKILL)
            _ = await daemon.waitForExit()
            for task in load { await task.value }
            await faults.value
            acknowledged += zip(writers, before).map { $0.acknowledged.load(ordering: .relaxed) - $1 }.reduce(0, +)
        }
        print("soak: \(rounds) kill -9 rounds, \(acknowledged) acknowledged writes, \(losses.count) lost")
        #expect(losses.isEmpty, "\(losses)")
        #expect(acknowledged > 0)
    }
}
