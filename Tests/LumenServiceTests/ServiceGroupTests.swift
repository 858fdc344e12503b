import LumenProtocol
import LumenService
import Testing

/// What the services of a test did, in order.
final class Journal: Sendable {
    private let entries = Locked<[String]>([])
    func note(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

/// A service that serves until asked to stop gracefully, then finishes its work; or stops at once when
/// cancelled.
struct Draining: Service {
    let name: String
    let journal: Journal

    func run() async throws {
        journal.note("\(name) started")
        await gracefulShutdown()
        if Task.isCancelled {
            journal.note("\(name) cancelled")
            return
        }
        // Work that must be finished, with suspension points, as a real drain has.
        for _ in 0..<3 { await Task.yield() }
        journal.note("\(name) drained")
    }
}

struct Failing: Error, Equatable {}

/// A signal watcher for groups that no signal reaches here: these tests end their groups through services.
struct NoSignals: ReadableWatcher {
    func watchReadable(_ fd: Int32, _ handler: @escaping @Sendable () -> Void) -> @Sendable () -> Void { {} }
}

@Suite("Service group", .timeLimit(.minutes(1)))
struct ServiceGroupTests {
    let logger = Logger(level: .critical, handler: StderrLogHandler())

    @Test func servicesAreAskedToShutDownGracefullyInReverseEachAwaitedBeforeTheNext() async throws {
        let journal = Journal()
        let started = AsyncStream.makeStream(of: Void.self)
        let group = ServiceGroup(
            services: [
                Draining(name: "store", journal: journal),
                Draining(name: "server", journal: journal),
                ClosureService(name: "one-shot") {
                    // Ends once the group has started everything and both services are running: that begins
                    // the shutdown. (Started means their tasks are made; their first lines may run later.)
                    for await _ in started.stream { break }
                    while journal.all.count(where: { $0.hasSuffix("started") }) < 2 { await Task.yield() }
                    journal.note("one-shot ended")
                },
            ], logger: logger, signalWatcher: NoSignals(), onStarted: { started.continuation.yield() })
        try await group.run()
        let entries = journal.all
        #expect(entries.suffix(3) == ["one-shot ended", "server drained", "store drained"], "\(entries)")
        #expect(Set(entries.prefix(2)) == ["store started", "server started"])
    }

    @Test func cancellingTheGroupsTaskCancelsEveryServiceInsteadOfDrainingIt() async throws {
        let journal = Journal()
        let ready = AsyncStream.makeStream(of: Void.self)
        let group = ServiceGroup(
            services: [Draining(name: "store", journal: journal), Draining(name: "server", journal: journal)],
            logger: logger, signalWatcher: NoSignals(), onStarted: { ready.continuation.yield() })
        let running = Task { try await group.run() }
        for await _ in ready.stream { break }
        // Each service notes its start before it waits; wait for both notes, then cancel.
        while journal.all.count < 2 { await Task.yield() }
        running.cancel()
        try await running.value
        #expect(Set(journal.all.suffix(2)) == ["store cancelled", "server cancelled"], "\(journal.all)")
    }

    @Test func aFailingServiceStopsTheOthersAndItsErrorIsThrownAfterThey() async throws {
        let journal = Journal()
        let group = ServiceGroup(
            services: [
                Draining(name: "store", journal: journal),
                ClosureService(name: "broken") {
                    // Let the store start first, so that what is checked is its drain, not its start.
                    while journal.all.isEmpty { await Task.yield() }
                    throw Failing()
                },
            ], logger: logger, signalWatcher: NoSignals())
        await #expect(throws: Failing.self) { try await group.run() }
        #expect(journal.all == ["store started", "store drained"])
    }

    @Test func aHandlerAddedAfterTheRequestRunsAtOnceAndOneOutsideAGroupNever() async {
        let shutdown = GracefulShutdown()
        shutdown.trigger()
        let ran = Locked(0)
        await GracefulShutdown.$current.withValue(shutdown) {
            await withGracefulShutdownHandler {
                #expect(ran.withLock { $0 } == 1)
            } onGracefulShutdown: {
                ran.withLock { $0 += 1 }
            }
        }
        await withGracefulShutdownHandler {
        } onGracefulShutdown: {
            ran.withLock { $0 += 1 }
        }
        #expect(ran.withLock { $0 } == 1)
    }
}
