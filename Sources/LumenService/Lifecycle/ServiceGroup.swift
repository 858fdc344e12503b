#if canImport(Glibc)
    import Glibc
#endif

/// Runs services started in order and stops them in reverse: on SIGTERM or SIGINT, or when any service ends
/// or fails, each is asked to shut down gracefully and awaited before the one started before it. A second
/// stop signal exits at once: ``StopSignals`` ends the process then, whatever it is doing.
///
/// ```swift
/// let group = ServiceGroup(services: [store, server, watchdog], logger: logger, signalWatcher: mainLoop) {
///     notifier.notify("STOPPING=1")
/// }
/// try await group.run()
/// ```
public final class ServiceGroup: Sendable {
    let services: [any Service]
    let logger: Logger
    let signals: [Int32]
    let ignoredSignals: [(Int32, String)]
    let onShutdown: @Sendable () -> Void
    let onStarted: @Sendable () -> Void
    let signalWatcher: any ReadableWatcher
    private let events: AsyncStream<Event>
    private let post: AsyncStream<Event>.Continuation

    enum Event: Sendable {
        case signal(Int32)
        case serviceEnded(Int, (any Error)?)
    }

    /// A group.
    /// - Parameters:
    ///   - services: started in this order, stopped in reverse.
    ///   - signals: the signals that start a graceful shutdown.
    ///   - ignoredSignals: signals that are only logged, with the message to log (SIGHUP: nothing to reload).
    ///   - onStarted: called once every service is started and signals are watched (the daemon sends
    ///     `READY=1` here).
    ///   - onShutdown: called once when shutdown begins (the daemon sends `STOPPING=1` here).
    ///   - signalWatcher: what watches the signals' pipe (lumend's main event loop).
    ///
    /// The signals must be among ``StopSignals/handled``, caught since the process began
    /// (``StopSignals/install()``).
    public init(
        services: [any Service], logger: Logger, signals: [Int32] = [SIGTERM, SIGINT],
        ignoredSignals: [(Int32, String)] = [], signalWatcher: any ReadableWatcher,
        onStarted: @escaping @Sendable () -> Void = {}, onShutdown: @escaping @Sendable () -> Void = {}
    ) {
        self.onStarted = onStarted
        self.signalWatcher = signalWatcher
        self.services = services
        self.logger = logger
        self.signals = signals
        self.ignoredSignals = ignoredSignals
        self.onShutdown = onShutdown
        (events, post) = AsyncStream.makeStream(of: Event.self)
    }

    /// Runs every service until shutdown.
    ///
    /// The services run as child tasks of one task group. Shutdown begins on a stop signal or when any
    /// service returns or fails; each service still running is then asked to shut down gracefully
    /// (``GracefulShutdown``), last started first, and the next is asked only once it has returned. Cancelling
    /// the task that runs the group cancels every service at once instead.
    /// - Throws: the first error a service failed with, after every service has stopped.
    public func run() async throws {
        let stopWatching = watchSignals()
        defer { stopWatching() }
        let shutdowns = services.map { _ in GracefulShutdown() }
        let failure = await withTaskGroup(of: Void.self) { group -> (any Error)? in
            for (index, service) in services.enumerated() {
                logger.debug("starting service", [("service", service.name)])
                let post = post
                let shutdown = shutdowns[index]
                group.addTask {
                    await GracefulShutdown.$current.withValue(shutdown) {
                        do {
                            try await service.run()
                            post.yield(.serviceEnded(index, nil))
                        } catch {
                            post.yield(.serviceEnded(index, error))
                        }
                    }
                }
            }
            onStarted()
            var failure: (any Error)?
            var ended = Set<Int>()
            var iterator = events.makeAsyncIterator()
            func note(_ index: Int, _ error: (any Error)?, shuttingDown: Bool) {
                ended.insert(index)
                let name = services[index].name
                if let error, !(error is CancellationError) {
                    logger.error("service \(name) failed: \(error)", [("service", name)])
                    if failure == nil { failure = error }
                } else if shuttingDown {
                    logger.debug("stopped service", [("service", name)])
                } else {
                    logger.notice("service \(name) ended; shutting down", [("service", name)])
                }
            }
            // Until the first reason to stop; `nil` when the group's own task was cancelled.
            switch await iterator.next() {
            case .signal(let number):
                logger.notice("received signal \(number); shutting down", [("signal", String(number))])
            case .serviceEnded(let index, let error):
                note(index, error, shuttingDown: false)
            case nil:
                break
            }
            onShutdown()
            for index in services.indices.reversed() where !ended.contains(index) {
                shutdowns[index].trigger()
                while !ended.contains(index), let event = await iterator.next() {
                    if case .serviceEnded(let other, let error) = event { note(other, error, shuttingDown: true) }
                }
            }
            // Cancelled from outside: the children are cancelled with the group and are awaited here.
            await group.waitForAll()
            return failure
        }
        if let failure { throw failure }
    }

    /// Reads the signals ``StopSignals`` caught: those that came before the group ran wait in its pipe and
    /// are read at once.
    private func watchSignals() -> @Sendable () -> Void {
        StopSignals.install()
        let post = post
        let logger = logger
        let stopping = Set(signals)
        let ignored = Dictionary(ignoredSignals, uniquingKeysWith: { first, _ in first })
        return signalWatcher.watchReadable(StopSignals.readEnd) {
            for number in StopSignals.drain() {
                if stopping.contains(number) {
                    post.yield(.signal(number))
                } else if let message = ignored[number] {
                    logger.notice(message, [("signal", String(number))])
                }
            }
        }
    }
}
