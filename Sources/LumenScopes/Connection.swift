import LumenModel
import LumenProtocol

/// Which property of which entity a connection reads: the key a subscription listens on.
public struct PropertyKey: Sendable, Hashable {
    /// The entity.
    public var entity: Entity
    /// The property's name.
    public var property: String

    /// A key.
    public init(_ entity: Entity, _ property: String) {
        self.entity = entity
        self.property = property
    }
}

/// A read-only value in a scope: its current value, and the key its changes are published under.
///
/// As in ScopedState, a connection is a recipe made by a scope for its own context:
/// ```swift
/// var isReachable: Connection<Bool> {
///     Connection(watching: PropertyKey(.light(id), "isReachable")) { home in try await home.light(id).isReachable }
/// }
/// ```
public struct Connection<Value: ScopeValue>: Sendable {
    /// Reads the current value.
    public let get: @Sendable () async throws(LumenError) -> Value
    /// The key changes are published under, or `nil` when the value is not watched (subscribers get only the
    /// current value).
    public let key: PropertyKey?

    /// A connection.
    public init(watching key: PropertyKey?, get: @escaping @Sendable () async throws(LumenError) -> Value) {
        self.key = key
        self.get = get
    }
}

/// A value that can also be written.
///
/// A write returns a ``WriteCompletion`` as soon as it is queued, and the completion settles when the device
/// confirms, so a caller can queue writes in order and wait for each on its own.
public struct WritableConnection<Value: ScopeValue>: Sendable {
    /// Reads the current value.
    public let get: @Sendable () async throws(LumenError) -> Value
    /// Queues a write.
    public let set: @Sendable (Value, WriteOptions) async throws(LumenError) -> WriteCompletion
    /// The key changes are published under.
    public let key: PropertyKey?

    /// A writable connection.
    public init(
        watching key: PropertyKey?, get: @escaping @Sendable () async throws(LumenError) -> Value,
        set: @escaping @Sendable (Value, WriteOptions) async throws(LumenError) -> WriteCompletion
    ) {
        self.key = key
        self.get = get
        self.set = set
    }
}

/// How a write is to be carried out.
public struct WriteOptions: Sendable, Hashable {
    /// How long brightness and colour take to reach their targets, in milliseconds.
    public var transitionMs: Double
    /// Options.
    public init(transitionMs: Double = 0) { self.transitionMs = transitionMs }
}

/// The outcome of a queued write, available once the device confirmed it.
public struct WriteCompletion: Sendable {
    /// Waits for the confirmed value.
    public let value: @Sendable () async throws(LumenError) -> JSONValue

    /// A completion that waits on `value`.
    public init(_ value: @escaping @Sendable () async throws(LumenError) -> JSONValue) { self.value = value }

    /// A completion that is already done.
    public static func done(_ value: JSONValue) -> WriteCompletion { WriteCompletion { value } }
}

/// Something a client can call with arguments: `detectLights`, `advance`, ….
///
/// What the arguments and result look like is declared once, on the scope's ``ConnectionEntry``, where
/// `describe` reads it.
public struct Action: Sendable {
    /// Starts the action: it returns once the action is under way, with a completion for its result.
    public let start: @Sendable (JSONCursor) async throws(LumenError) -> WriteCompletion
    /// Whether the result waits for devices, so a transport should not hold up the session's later requests
    /// behind it (as it does not behind a `set`).
    public let waitsForDevices: Bool

    /// An action that is done when `call` returns.
    public init(call: @escaping @Sendable (JSONCursor) async throws(LumenError) -> JSONValue) {
        start = { (arguments) async throws(LumenError) in .done(try await call(arguments)) }
        waitsForDevices = false
    }

    /// An action whose result waits for devices: `start` queues it, its completion waits.
    public init(waitingForDevices start: @escaping @Sendable (JSONCursor) async throws(LumenError) -> WriteCompletion) {
        self.start = start
        waitsForDevices = true
    }

    /// Performs the action and waits for its result.
    public func call(_ arguments: JSONCursor) async throws(LumenError) -> JSONValue {
        try await start(arguments).value()
    }
}

/// Opens a child scope for a configuration, as ScopedState's `ConfiguredConnection` does for an ID.
public struct ConfiguredConnection<Child: Scope, Configuration: ScopeValue>: Sendable {
    /// Opens the child scope for a configuration.
    public let open: @Sendable (Configuration) async throws(LumenError) -> Child

    /// A configured connection.
    public init(open: @escaping @Sendable (Configuration) async throws(LumenError) -> Child) { self.open = open }
}

/// A configuration for child scopes that need none (the `simulation` scope).
public struct NoConfiguration: ScopeValue, Hashable {
    public static var typeDescription: String { "none" }
    public var jsonValue: JSONValue { .null }
    /// No configuration.
    public init() {}
    public init(json: JSONCursor) throws(JSONShapeError) {}
}
