import LumenProtocol

/// A request that a service finish what it is doing and return: distinct from cancellation, which means
/// "stop now".
///
/// A ``ServiceGroup`` gives each service its own, reachable as ``current`` inside the service's task, and
/// triggers them one at a time in reverse start order, so the socket server has stopped serving before the
/// state store is asked to save its last snapshot. Services use ``gracefulShutdown()``,
/// ``withGracefulShutdownHandler(operation:onGracefulShutdown:)`` or ``cancelWhenGracefulShutdown(_:)``,
/// as in swift-service-lifecycle.
public final class GracefulShutdown: Sendable {
    /// The request for the service whose task this is; `nil` outside a service group.
    @TaskLocal public static var current: GracefulShutdown?

    private struct State {
        var triggered = false
        var nextKey: UInt64 = 0
        var handlers: [UInt64: @Sendable () -> Void] = [:]
    }

    private let state = Locked(State())

    /// A request not yet made.
    public init() {}

    /// Whether graceful shutdown has been requested.
    public var isTriggered: Bool { state.withLock { $0.triggered } }

    /// Requests graceful shutdown: every handler runs once, now. Later calls do nothing.
    public func trigger() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.triggered else { return [] }
            state.triggered = true
            defer { state.handlers = [:] }
            return state.handlers.sorted { $0.key < $1.key }.map(\.value)
        }
        for handler in handlers { handler() }
    }

    /// Adds a handler; returns its key, or `nil` after running it at once when the request was already made.
    fileprivate func add(_ handler: @escaping @Sendable () -> Void) -> UInt64? {
        let key = state.withLock { state -> UInt64? in
            guard !state.triggered else { return nil }
            defer { state.nextKey += 1 }
            state.handlers[state.nextKey] = handler
            return state.nextKey
        }
        if key == nil { handler() }
        return key
    }

    fileprivate func remove(_ key: UInt64) { state.withLock { _ = $0.handlers.removeValue(forKey: key) } }
}

/// Runs `operation`; `handler` runs once if graceful shutdown is requested of this service meanwhile (at once
/// if it already was). Outside a service group the handler never runs.
public func withGracefulShutdownHandler<T>(
    isolation: isolated (any Actor)? = #isolation, operation: () async throws -> T,
    onGracefulShutdown handler: @escaping @Sendable () -> Void
) async rethrows -> T {
    guard let shutdown = GracefulShutdown.current, let key = shutdown.add(handler) else {
        return try await operation()
    }
    defer { shutdown.remove(key) }
    return try await operation()
}

/// Waits until graceful shutdown is requested of this service, or its task is cancelled.
public func gracefulShutdown() async {
    let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    await withTaskCancellationHandler {
        await withGracefulShutdownHandler {
            for await _ in stream {}
        } onGracefulShutdown: {
            continuation.finish()
        }
    } onCancel: {
        continuation.finish()
    }
}

/// Runs `operation` and cancels it when graceful shutdown is requested: for work that has nothing to finish
/// (a status reporter, a watchdog), so it stops as promptly as cancellation would stop it.
public func cancelWhenGracefulShutdown<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T)
    async throws -> T
{
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            await gracefulShutdown()
            return nil
        }
        defer { group.cancelAll() }
        while let result = try await group.next() {
            if let result { return result }
            // Graceful shutdown came first: cancel the operation, and return what it returns.
            group.cancelAll()
        }
        throw CancellationError()
    }
}
