import Foundation
import LumenLoop
import LumenModel
import LumenProtocol
import LumenScopes
import LumenServer
import LumenService
import LumenSimulation
import LumenStore

extension Benchmarks {
    struct Served {
        let path: String
        let scopeContext: ScopeContext
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
        // As lumend's: the home on a loop of its own, its main loop.
        let mainLoop = EventLoop(name: "bench.main")
        let home = Home(fixture: fixture, clock: .real, wakeExecutor: mainLoop, executor: mainLoop)
        let store = StateStore(
            directory: directory, durability: durability, origin: FixtureOrigin(id: fixture.id, digest: "bench")
        ) { await home.snapshot() }
        // As lumend does: under full durability a write waits for the store's thread to have it on disk.
        let waitForDisk: @Sendable () async throws(LumenError) -> Void = { () async throws(LumenError) in
            do { try await store.waitUntilDurable(store.changeMark) } catch {
                throw LumenError(.notPersisted, "\(error)")
            }
        }
        let scopeContext = ScopeContext(home: home, durable: durability == .full ? waitForDisk : nil)
        let path = "\(directory)/s.sock"
        let fd = try! UnixSocket.listen(at: path)
        let server = SocketServer(
            listenFD: fd, ownedPath: path, scopeContext: scopeContext,
            logger: Logger(level: .critical, handler: StderrLogHandler()))
        await home.addWatcher { server.publish($0) }
        await home.setPersistenceSink(store)
        try? await store.compact()
        let serverTask = Task { _ = try? await server.run() }
        let storeTask = Task { await store.run() }
        return Served(path: path, scopeContext: scopeContext, store: store, tasks: [serverTask, storeTask])
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
}
