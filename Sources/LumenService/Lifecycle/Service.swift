/// A long-running part of the daemon, run by a ``ServiceGroup``.
///
/// `run()` returns when the service is done; a service that runs until shutdown returns when its task is
/// cancelled (after cleaning up), as in swift-service-lifecycle.
public protocol Service: Sendable {
    /// A name for logs.
    var name: String { get }
    /// Runs the service until it is cancelled or fails.
    func run() async throws
}

/// A service made from a closure, for small jobs.
public struct ClosureService: Service {
    public let name: String
    let body: @Sendable () async throws -> Void

    /// A service that runs `body`.
    public init(name: String, _ body: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.body = body
    }

    public func run() async throws { try await body() }
}
