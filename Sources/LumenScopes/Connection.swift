import LumenModel
import LumenProtocol
import LumenSimulation

/// A read-only value in a scope: how to read it, in its wire form, and the key its changes are published
/// under.
///
/// As in ScopedState, a connection is a recipe made by a scope for its own context:
/// ```swift
/// var isReachable: Connection<Bool> { Connection(.light(id, .isReachable), of: home) }
/// ```
/// A property's value becomes JSON once, where the `Home` announces or reads it; `Value` is the type
/// `describe` reports and a write is checked against.
public struct Connection<Value: ScopeValue>: Sendable {
    /// Reads the current value.
    public let get: @Sendable () async throws(LumenError) -> JSONValue
    /// The current value when it can be had at once, without waiting for the `Home` actor; `nil` when not.
    public let peek: (@Sendable () -> JSONValue?)?
    /// The key changes are published under, or `nil` when the value is not watched (subscribers get only the
    /// current value).
    public let key: PropertyKey?

    /// A property of the home, read from what it last announced.
    public init(_ key: PropertyKey, of home: Home) {
        self.key = key
        get = { () async throws(LumenError) in try await home.read(key) }
        peek = { home.published.value(for: key) }
    }

    /// A value worked out on each read, not watched.
    public init(computing get: @escaping @Sendable () async throws(LumenError) -> Value) {
        key = nil
        self.get = { () async throws(LumenError) in try await get().jsonValue }
        peek = nil
    }
}

/// A value that can also be written.
///
/// A write returns a ``WriteCompletion`` as soon as it is queued, and the completion settles when the device
/// confirms, so a caller can queue writes in order and wait for each on its own. The write itself is a step on
/// the `Home` actor, with no suspension in it.
public struct WritableConnection<Value: ScopeValue>: Sendable {
    /// Reads the current value.
    public let get: @Sendable () async throws(LumenError) -> JSONValue
    /// The current value when it can be had at once (see ``Connection/peek``).
    public let peek: (@Sendable () -> JSONValue?)?
    /// Queues a write, on the home's actor.
    public let write: @Sendable (isolated Home, Value, WriteOptions) throws(LumenError) -> WriteCompletion
    /// The key changes are published under.
    public let key: PropertyKey?

    /// A writable property of the home.
    public init(
        _ key: PropertyKey, of home: Home,
        write: @escaping @Sendable (isolated Home, Value, WriteOptions) throws(LumenError) -> WriteCompletion
    ) {
        self.key = key
        get = { () async throws(LumenError) in try await home.read(key) }
        peek = { home.published.value(for: key) }
        self.write = write
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
///
/// It is known as the write is made (an instant device), or handed to an observer as the device answers, on
/// the home's executor at that moment of the home's: an observer that hands it on to an event loop then puts it
/// in the home's order, among the notices of the changes made before it.
public struct WriteCompletion: Sendable {
    /// Told the outcome.
    public typealias Observer = @Sendable (Result<JSONValue, LumenError>) -> Void

    private enum Form: Sendable {
        /// Known as the write was made (an instant device): most writes, which then carry no closures.
        case settled(Result<JSONValue, LumenError>)
        case waiting(
            check: (@Sendable () -> Result<JSONValue, LumenError>?)?,
            observe: @Sendable (@escaping Observer) -> Void)
    }

    private let form: Form

    /// A completion that `observe` tells its observer of; `now` says the outcome when it is already known.
    public init(
        now: (@Sendable () -> Result<JSONValue, LumenError>?)? = nil,
        whenKnown observe: @escaping @Sendable (@escaping Observer) -> Void
    ) {
        form = .waiting(check: now, observe: observe)
    }

    /// A completion that is a device's answer to a command, made into the write's value by `value`.
    public init(_ ticket: CommandTicket, value: @escaping @Sendable (LightState) -> JSONValue) {
        self.init(now: { ticket.settledResult.map { $0.map(value) } }) { observer in
            ticket.whenSettled { observer($0.map(value)) }
        }
    }

    private init(_ form: Form) { self.form = form }

    /// A completion whose outcome is already known.
    public static func settled(_ result: Result<JSONValue, LumenError>) -> WriteCompletion {
        WriteCompletion(.settled(result))
    }

    /// A completion that is already done.
    public static func done(_ value: JSONValue) -> WriteCompletion { .settled(.success(value)) }

    /// The outcome when it is already known, so the reply can go out without waiting at all; `nil` when it
    /// must be awaited.
    public var knownOutcome: Result<JSONValue, LumenError>? {
        switch form {
        case .settled(let result): result
        case .waiting(let check, _): check?()
        }
    }

    /// The outcome when it was known as the write was made (an instant device on the real clock), inside the
    /// home's turn that made it; `nil` otherwise, even when it has become known since. A reply given its place
    /// by this is placed in the order of the home's changes, as one placed by the home's telling ``whenKnown(_:)``
    /// is; one placed because ``knownOutcome`` became known meanwhile (another client's step settled it) could
    /// pass that step's notices.
    public var outcomeAsMade: Result<JSONValue, LumenError>? {
        if case .settled(let result) = form { result } else { nil }
    }

    /// Calls `observer` with the outcome: now when it is known, else on the home's executor as it becomes
    /// known.
    public func whenKnown(_ observer: @escaping Observer) {
        switch form {
        case .settled(let result): observer(result)
        case .waiting(_, let observe): observe(observer)
        }
    }

    /// Waits for the confirmed value.
    public func value() async throws(LumenError) -> JSONValue {
        if let known = knownOutcome { return try known.get() }
        return try await withCheckedContinuation { continuation in
            whenKnown { continuation.resume(returning: $0) }
        }.get()
    }
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
    public init(json: JSONCursor) throws(JSONShapeError) {}
}
