import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import Synchronization

/// One client's conversation: its scope tree, its subscriptions and its outgoing queue.
///
/// Requests are handed over one at a time in the order they arrived; writes that wait for a device answer
/// later (``RPCOutcome/later(_:)``), so a slow `set` on one light never holds up a `get` on another.
final class Session: RPCHandler {
    struct ScopeRecord {
        var scope: AnyScope
        var parent: Int?
        var children: [Int] = []
        var subscriptions: [UInt64] = []
    }

    struct State {
        var scopes: [Int: ScopeRecord] = [:]
        var nextScope = 1
        var subscriptions: [UInt64: (scope: Int, key: PropertyKey?)] = [:]
        var closed = false
    }

    let id: UInt64
    let context: ServerContext
    let credentials: PeerCredentials?
    let outbox: Outbox
    private let state = Mutex(State())
    /// Requests that are waiting on a device.
    let inflight = Atomic<Int>(0)
    private let idleWaiters = Mutex<[CheckedContinuation<Void, Never>]>([])

    /// The loop that serves the session's connection (`nil` in-process): the hub hands it the session's
    /// notices, so that each loop queues its own sessions' and a fan-out runs on every loop at once.
    let eventLoop: EventLoop?

    init(
        id: UInt64, context: ServerContext, credentials: PeerCredentials?, eventLoop: EventLoop? = nil,
        wake: @escaping @Sendable () -> Void
    ) {
        self.eventLoop = eventLoop
        self.id = id
        self.context = context
        self.credentials = credentials
        outbox = Outbox(replyByteLimit: context.limits.maxPendingReplyBytes, wake: wake)
        let root = AnyScope(context.container.homeScope)
        state.withLock { $0.scopes[0] = ScopeRecord(scope: root, parent: nil) }
    }

    var scopeCount: Int { state.withLock { $0.scopes.count } }

    // MARK: - RPCHandler

    func handleNow(method: String, params: JSONValue?) -> RPCOutcome? {
        if context.isShuttingDown {
            return .failure(LumenError.shuttingDown)
        }
        do throws(LumenError) {
            switch WireMethod(rawValue: method) {
            case .hello:
                _ = try Params(params, allowing: ["client"])
                return .result([
                    "server": "lumend", "version": .string(LumenVersion.string),
                    "protocol": .int(LumenVersion.wireProtocol), "root": 0,
                ])
            case .describe:
                _ = try Params(params, allowing: [])
                return .result(["protocol": .int(LumenVersion.wireProtocol), "scopes": ScopeContainer.scopeTypes])
            case .close: return try close(Params(params, allowing: ["scope"]))
            case .unsubscribe: return try unsubscribe(Params(params, allowing: ["subscription"]))
            case .get:
                // Only the common case, a value already published; anything else (errors included) is the
                // asynchronous path's to answer.
                guard let params = try? Params(params, allowing: Self.getKeys),
                    let value = try? lookup(params).connection.peek?()
                else { return nil }
                return .result(["value": value])
            case nil:
                let names = WireMethod.allCases.map(\.rawValue).joined(separator: ", ")
                return .failure(LumenError(.methodNotFound, "Method not found: '\(method)'; methods are \(names)"))
            case .open, .set, .call, .subscribe:
                return nil
            }
        } catch {
            return .failure(error)
        }
    }

    /// A plain `get`, read without a tree: answered as ``handleNow(method:params:)`` would answer it when all
    /// is well; anything else, and anything that might be an error, goes the general way (`nil`), which words it.
    func handleNow(_ request: PlainRequest) -> RPCOutcome? {
        guard request.method == WireMethod.get.rawValue, request.value == nil, request.transitionMs == nil,
            !context.isShuttingDown, let scopeID = request.scope.intValue,
            let target = try? lookup(scopeID: scopeID, name: request.connection),
            let value = target.connection.peek?()
        else { return nil }
        return .result(["value": value])
    }

    static let getKeys: Set<String> = ["scope", "connection"]
    static let setKeys: Set<String> = ["scope", "connection", "value", "transitionMs"]

    func handle(method: String, params: JSONValue?) async -> RPCOutcome {
        if context.isShuttingDown {
            return .failure(LumenError.shuttingDown)
        }
        do throws(LumenError) {
            // `get` and `set` try the quick way themselves, with the parameters already read.
            switch WireMethod(rawValue: method) {
            case .open: return try await open(Params(params, allowing: ["scope", "connection", "configuration"]))
            case .get: return try await get(Params(params, allowing: Self.getKeys))
            case .set: return try await set(Params(params, allowing: Self.setKeys))
            case .call: return try await call(Params(params, allowing: ["scope", "connection", "arguments"]))
            case .subscribe: return try await subscribe(Params(params, allowing: ["scope", "connection"]))
            case .hello, .describe, .close, .unsubscribe, nil:
                return handleNow(method: method, params: params)
                    ?? .failure(LumenError(.internalError, "\(method) was not answered at once"))
            }
        } catch {
            return .failure(error)
        }
    }

    func laterOutcomeSent() {
        guard inflight.subtract(1, ordering: .relaxed).newValue == 0 else { return }
        let waiters = idleWaiters.withLock { waiters in
            defer { waiters = [] }
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once no request is waiting on a device.
    func waitUntilIdle() async {
        await withCheckedContinuation { continuation in
            let idle = idleWaiters.withLock { waiters -> Bool in
                // Checked under the lock that `laterOutcomeSent` takes, so a wake-up cannot be missed.
                if inflight.load(ordering: .relaxed) == 0 { return true }
                waiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    // MARK: - Methods

    /// Where a request on a connection happened, for its errors: the scope, the connection, the light or
    /// room behind the scope, and the value a `set` carried, as the client wrote it.
    struct RequestContext: Sendable {
        let scope: Int
        let connection: String
        let entity: Entity?
        var value: JSONValue?

        /// `error` naming what it does not yet name of this context. A large array or object value is left
        /// out rather than echoed back.
        func annotate(_ error: LumenError) -> LumenError {
            var error = error
            if error.data["scope"] == nil { error.data["scope"] = .int(scope) }
            if error.data["connection"] == nil { error.data["connection"] = .string(connection) }
            switch entity {
            case .light(let id) where error.data["light"] == nil: error.data["light"] = .string(id.rawValue)
            case .room(let id) where error.data["room"] == nil: error.data["room"] = .string(id.rawValue)
            default: break
            }
            if error.data["value"] == nil, let value, !value.isNull, !Self.isLarge(value) {
                error.data["value"] = value
            }
            return error
        }

        static func isLarge(_ value: JSONValue) -> Bool {
            switch value {
            case .array, .object: value.serialized().utf8.count > 256
            default: false
            }
        }
    }

    /// Runs a request on a connection, so that whatever error it throws names where it happened.
    private func onConnection<T>(
        _ params: Params, _ body: (inout RequestContext, AnyConnection) async throws(LumenError) -> T
    ) async throws(LumenError) -> T {
        let target = try lookup(params)
        var request = target.request
        do throws(LumenError) {
            return try await body(&request, target.connection)
        } catch {
            throw request.annotate(error)
        }
    }

    private func checkInflightLimit() throws(LumenError) {
        guard inflight.load(ordering: .relaxed) < context.limits.maxInflightPerSession else {
            throw LumenError(
                .limitExceeded,
                "this session has \(context.limits.maxInflightPerSession) writes waiting; wait for some replies")
        }
    }

    /// Starts work that waits for devices and answers it later, as a `set`, among the session's writes
    /// waiting on devices: the session's next requests are not held up behind it.
    private func answerLater(
        _ request: RequestContext, _ start: () async throws(LumenError) -> WriteCompletion
    ) async throws(LumenError) -> RPCOutcome {
        try checkInflightLimit()
        return outcome(of: try await start(), request)
    }

    /// The answer to a write that was queued: now, when its outcome is known already; later otherwise.
    private func outcome(of completion: WriteCompletion, _ request: RequestContext) -> RPCOutcome {
        // An instant device with nothing to wait for on disk: the answer is known, and goes out now.
        if let result = completion.now {
            switch result {
            case .success(let value): return .result(["value": value])
            case .failure(let error): return .failure(request.annotate(error))
            }
        }
        inflight.add(1, ordering: .relaxed)
        return .later {
            do throws(LumenError) {
                return .success(["value": try await completion.value()])
            } catch {
                return .failure(request.annotate(error))
            }
        }
    }

    /// What a request names: a connection of an open scope.
    private struct Target {
        let scopeID: Int
        let name: String
        let connection: AnyConnection
        /// The scope's entity, which errors name.
        let entity: Entity?

        var request: RequestContext { RequestContext(scope: scopeID, connection: name, entity: entity) }

        /// The context of a write of `value` to it.
        func request(value: JSONValue) -> RequestContext {
            RequestContext(scope: scopeID, connection: name, entity: entity, value: value)
        }
    }

    private func lookup(_ params: Params) throws(LumenError) -> Target {
        try lookup(scopeID: params.int("scope"), name: params.string("connection"))
    }

    private func lookup(scopeID: Int, name: String) throws(LumenError) -> Target {
        guard let scope = state.withLock({ $0.scopes[scopeID]?.scope }) else {
            throw LumenError(
                .noSuchScope, "no open scope \(scopeID); open one first (the root home scope is 0)",
                data: ["scope": .int(scopeID)])
        }
        guard let connection = scope.connection(name) else {
            throw LumenError(
                .noSuchConnection,
                "a \(scope.typeName) scope has no connection '\(name)'; 'describe' lists them",
                data: ["scope": .int(scopeID), "connection": .string(name)])
        }
        return Target(scopeID: scopeID, name: name, connection: connection, entity: scope.entity)
    }

    private func wrongKind(_ scopeID: Int, _ name: String, _ kind: ConnectionKind, _ method: String) -> LumenError {
        let hint: String
        switch kind {
        case .value: hint = "it is read-only: use get or subscribe"
        case .writable: hint = "use get, set or subscribe"
        case .action: hint = "it is an action: use call"
        case .scope: hint = "it opens a scope: use open"
        }
        return LumenError(
            .wrongConnectionKind, "cannot \(method) '\(name)': \(hint)",
            data: ["scope": .int(scopeID), "connection": .string(name), "kind": .string(kind.rawValue)])
    }

    private func open(_ params: Params) async throws(LumenError) -> RPCOutcome {
        try await onConnection(params) { (request, connection) async throws(LumenError) in
            try await open(params, request.scope, request.connection, connection)
        }
    }

    private func open(_ params: Params, _ parentID: Int, _ name: String, _ connection: AnyConnection)
        async throws(LumenError) -> RPCOutcome
    {
        guard let open = connection.open else { throw wrongKind(parentID, name, connection.kind, "open") }
        if name == "simulation", !context.mayUseSimulation(credentials) {
            throw LumenError(
                .permissionDenied,
                "the simulation scope is for root and lumend's own user; start lumend with "
                    + "--simulation-access any to open it to everyone who can reach the socket",
                data: ["scope": .int(parentID), "connection": .string(name)])
        }
        guard scopeCount < context.limits.maxScopesPerSession else {
            throw LumenError(
                .limitExceeded, "this session has \(context.limits.maxScopesPerSession) scopes open; close some first")
        }
        let child = try await open(params.cursor("configuration"))
        let scopeID: Int? = state.withLock { state in
            guard !state.closed, state.scopes[parentID] != nil else { return nil }
            let id = state.nextScope
            state.nextScope += 1
            state.scopes[id] = ScopeRecord(scope: child, parent: parentID)
            state.scopes[parentID]?.children.append(id)
            return id
        }
        guard let scopeID else {
            throw LumenError(
                .noSuchScope, "scope \(parentID) was closed while opening", data: ["scope": .int(parentID)])
        }
        return .result(["scope": .int(scopeID), "type": .string(child.typeName)])
    }

    private func close(_ params: Params) throws(LumenError) -> RPCOutcome {
        let scopeID = try params.int("scope")
        guard scopeID != 0 else {
            throw LumenError(.invalidParams, "the root scope 0 stays open for the whole session")
        }
        guard !closeSubtree(scopeID).isEmpty else {
            throw LumenError(.noSuchScope, "no open scope \(scopeID)", data: ["scope": .int(scopeID)])
        }
        return .result([:])
    }

    private func get(_ params: Params) async throws(LumenError) -> RPCOutcome {
        try await onConnection(params) { (request, connection) async throws(LumenError) in
            guard let get = connection.get else {
                throw wrongKind(request.scope, request.connection, connection.kind, "get")
            }
            if let value = connection.peek?() { return .result(["value": value]) }
            return .result(["value": try await get()])
        }
    }

    /// A `set` checked and ready to be made on the home's actor.
    private struct PreparedWrite: Sendable {
        var request: RequestContext
        var write: AnyConnection.Write
        var value: JSONCursor
        var options: WriteOptions

        func make(on home: isolated Home) throws(LumenError) -> WriteCompletion {
            do throws(LumenError) { return try write(home, value, options) } catch { throw request.annotate(error) }
        }
    }

    /// Checks a `set` up to the write itself, whose errors name the request.
    private func prepareWrite(_ params: Params) throws(LumenError) -> PreparedWrite {
        let target = try lookup(params)
        let value = params.cursor("value")
        var request = target.request
        request.value = value.value
        do throws(LumenError) {
            guard let write = target.connection.write else {
                throw wrongKind(target.scopeID, target.name, target.connection.kind, "set")
            }
            guard !value.value.isNull else { throw LumenError(.invalidParams, "value is required") }
            let transition = try params.optionalDouble("transitionMs", in: SimulatedDurations.milliseconds) ?? 0
            try checkInflightLimit()
            return PreparedWrite(
                request: request, write: write, value: value, options: WriteOptions(transitionMs: transition))
        } catch {
            throw request.annotate(error)
        }
    }

    private func set(_ params: Params) async throws(LumenError) -> RPCOutcome {
        let prepared = try prepareWrite(params)
        let completion = try await context.container.home.withIsolation { home throws(LumenError) in
            try prepared.make(on: home)
        }
        return outcome(of: completion, prepared.request)
    }

    private func call(_ params: Params) async throws(LumenError) -> RPCOutcome {
        try await onConnection(params) { (request, connection) async throws(LumenError) in
            guard let action = connection.action else {
                throw wrongKind(request.scope, request.connection, connection.kind, "call")
            }
            let arguments = params.cursor("arguments")
            // An action that waits for devices (a room's group command) is answered later, as a `set` is, so
            // the session's next requests (the advance its lights wait for, say) are not held up behind it.
            guard action.waitsForDevices else { return .result(["value": try await action.call(arguments)]) }
            return try await answerLater(request) { () async throws(LumenError) in try await action.start(arguments) }
        }
    }

    private func subscribe(_ params: Params) async throws(LumenError) -> RPCOutcome {
        try await onConnection(params) { (request, connection) async throws(LumenError) in
            try await subscribe(params, request.scope, request.connection, connection)
        }
    }

    private func subscribe(_ params: Params, _ scopeID: Int, _ name: String, _ connection: AnyConnection)
        async throws(LumenError) -> RPCOutcome
    {
        guard let get = connection.get else { throw wrongKind(scopeID, name, connection.kind, "subscribe") }
        guard state.withLock({ $0.subscriptions.count }) < context.limits.maxSubscriptionsPerSession else {
            throw LumenError(
                .limitExceeded,
                "this session has \(context.limits.maxSubscriptionsPerSession) subscriptions; unsubscribe some first")
        }
        let subscription = context.hub.makeSubscriptionID()
        let value: JSONValue
        if let key = connection.key {
            // Read and register in one step on the simulation's loop, so no change falls in between.
            let (hub, outbox) = (context.hub, outbox)
            value = try await context.container.home.withIsolation { home throws(LumenError) in
                let value = try home.value(of: key)
                outbox.addSubscription(subscription, value: value)
                hub.add(subscription, key: key, session: self)
                home.watch(key)
                return value
            }
        } else {
            value = try await get()
            outbox.addSubscription(subscription, value: value)
        }
        let registered = state.withLock { state -> Bool in
            guard !state.closed, state.scopes[scopeID] != nil else { return false }
            state.subscriptions[subscription] = (scopeID, connection.key)
            state.scopes[scopeID]?.subscriptions.append(subscription)
            return true
        }
        guard registered else {
            drop(subscription, key: connection.key)
            throw LumenError(.noSuchScope, "scope \(scopeID) was closed", data: ["scope": .int(scopeID)])
        }
        return .result(["subscription": .int(Int(subscription)), "value": value, "seq": 0])
    }

    private func unsubscribe(_ params: Params) throws(LumenError) -> RPCOutcome {
        let subscription = try params.int("subscription")
        let removed = state.withLock { state -> (scope: Int, key: PropertyKey?)? in
            guard subscription >= 0, let record = state.subscriptions.removeValue(forKey: UInt64(subscription)) else {
                return nil
            }
            state.scopes[record.scope]?.subscriptions.removeAll { $0 == UInt64(subscription) }
            return record
        }
        guard let removed else {
            throw LumenError(
                .invalidParams, "no subscription \(subscription) in this session",
                data: ["subscription": .int(subscription)])
        }
        drop(UInt64(subscription), key: removed.key)
        return .result([:])
    }

    private func drop(_ subscription: UInt64, key: PropertyKey?) {
        if let key { context.hub.remove(subscription, key: key) }
        outbox.removeSubscription(subscription)
    }

    // MARK: - Closing

    /// Closes a scope and everything below it; returns the closed IDs, children before parents.
    @discardableResult
    private func closeSubtree(_ root: Int) -> [Int] {
        let (closed, subscriptions) = state.withLock { state -> ([Int], [(UInt64, PropertyKey?)]) in
            guard let rootRecord = state.scopes[root] else { return ([], []) }
            var order: [Int] = []
            func visit(_ id: Int) {
                guard let record = state.scopes[id] else { return }
                for child in record.children { visit(child) }
                order.append(id)
            }
            visit(root)
            var subscriptions: [(UInt64, PropertyKey?)] = []
            for id in order {
                guard let record = state.scopes.removeValue(forKey: id) else { continue }
                for subscription in record.subscriptions {
                    if let entry = state.subscriptions.removeValue(forKey: subscription) {
                        subscriptions.append((subscription, entry.key))
                    }
                }
            }
            if let parent = rootRecord.parent { state.scopes[parent]?.children.removeAll { $0 == root } }
            return (order, subscriptions)
        }
        for (subscription, key) in subscriptions { drop(subscription, key: key) }
        return closed
    }

    /// The entity behind some scopes is gone: close them, children first, and tell the client.
    func entityRemoved(_ entity: Entity) {
        let roots = state.withLock { state in
            state.scopes.filter { $0.value.scope.entity == entity }.map(\.key).sorted()
        }
        for root in roots {
            for id in closeSubtree(root) {
                outbox.enqueue(
                    Wire.notification(
                        .closed, params: ["scope": .int(id), "reason": .string("\(entity) was removed")]))
            }
        }
    }

    /// Frees everything the session holds.
    func close() {
        let subscriptions = state.withLock { state -> [(UInt64, PropertyKey?)] in
            state.closed = true
            let all = state.subscriptions.map { ($0.key, $0.value.key) }
            state.subscriptions = [:]
            state.scopes = [:]
            return all
        }
        for (subscription, key) in subscriptions { drop(subscription, key: key) }
        context.hub.unregister(self)
        outbox.close()
    }
}

/// A request's parameters, read with errors that name the parameter.
struct Params {
    let object: ObjectCursor

    init(_ params: JSONValue?, allowing keys: Set<String>) throws(LumenError) {
        let value = params ?? .object([:])
        guard case .object = value else {
            throw LumenError(.invalidParams, "Invalid params: params must be an object with named members")
        }
        do {
            object = try JSONCursor(value, path: JSONPath.root.appending("params")).object(allowing: keys)
        } catch {
            throw LumenError(.invalidParams, "Invalid params: \(error)")
        }
    }

    func int(_ key: String) throws(LumenError) -> Int {
        do { return try object.required(key).int() } catch {
            throw LumenError(.invalidParams, "Invalid params: \(error)")
        }
    }

    func string(_ key: String) throws(LumenError) -> String {
        do { return try object.required(key).string() } catch {
            throw LumenError(.invalidParams, "Invalid params: \(error)")
        }
    }

    func optionalDouble(_ key: String, in range: ClosedRange<Double>) throws(LumenError) -> Double? {
        do { return try object.optional(key)?.double(in: range) } catch {
            throw LumenError(.invalidParams, "Invalid params: \(error)")
        }
    }

    /// The member as a cursor (`null` when absent), for values, configurations and arguments.
    func cursor(_ key: String) -> JSONCursor {
        JSONCursor(object.object[key] ?? .null, path: object.path.appending(key))
    }
}
