import LumenLoop
import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation

/// One client's conversation: its scope tree, its subscriptions and its outgoing queue.
///
/// Requests are decoded into calls and handed over one at a time in the order they arrived, each with the place
/// of its reply, reserved as it was read; a write that waits for a device fills its place when the device
/// answers, so a slow `set` on one light never holds up the work of a `get` on another (its reply, which comes
/// after the `set`'s, waits for it). Everything it holds belongs to its loop.
final class Session: RPCHandler {
    struct ScopeRecord {
        var scope: AnyScope
        /// The scope's connections resolved so far, each built once.
        var connections: [String: AnyConnection] = [:]
        var parent: Int?
        var children: [Int] = []
        var subscriptions: [UInt64] = []
    }

    struct State {
        var scopes: [Int: ScopeRecord] = [:]
        var nextScope = 1
        var subscriptions: [UInt64: (scope: Int, key: PropertyKey?)] = [:]
        var closed = false
        /// Requests that are waiting on a device or the disk.
        var inflight = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        /// Under full durability, replies held in their places until the disk has what they answer; a task
        /// commits and sends them, one round after another, while there are any.
        var waitingForDisk: [(result: Result<JSONValue, LumenError>, reply: Reply, request: RequestContext?)] = []
        var committing = false
    }

    let id: UInt64
    let context: ServerContext
    /// Why this session may not open the `simulation` scope; `nil` when it may.
    let simulationRefusal: LumenError?
    /// Whether the session is its owner's (root's or lumend's own user's, or over HTTP one with the token): the
    /// budgets other sessions share (of subscriptions, of unread replies) do not hold it, so that they cannot
    /// lock the owner out.
    let isOwner: Bool
    let outbox: Outbox
    /// Who the command record says sent this session's commands.
    let commandSource: String
    /// Touched only on the session's loop.
    private let state: LoopBound<State>

    /// The loop that serves the session: its requests are answered, its tasks run and its notices are queued
    /// there, and nowhere else.
    var eventLoop: EventLoop { state.loop }

    init(
        id: UInt64, context: ServerContext, simulationRefusal: LumenError?, isOwner: Bool? = nil,
        eventLoop: EventLoop,
        commandSource: String? = nil, wake: @escaping @Sendable () -> Void
    ) {
        self.id = id
        self.context = context
        self.simulationRefusal = simulationRefusal
        let isOwner = isOwner ?? (simulationRefusal == nil)
        self.isOwner = isOwner
        self.commandSource = commandSource ?? "session \(id)"
        outbox = Outbox(
            replyByteLimit: context.limits.maxPendingReplyBytes, on: eventLoop,
            budget: isOwner ? .unbounded : context.unsentReplies,
            wake: wake)
        var state = State()
        state.scopes[0] = ScopeRecord(scope: AnyScope(context.scopeContext.homeScope), parent: nil)
        self.state = LoopBound(state, on: eventLoop)
    }

    var scopeCount: Int { state.with { $0.scopes.count } }

    /// Requests waiting on a device or the disk.
    var inflight: Int { state.with { $0.inflight } }

    // MARK: - RPCHandler

    func decode(method: String, params: JSONValue?) -> Call { Call(method: method, params: params) }

    /// Answers a call: at once when nothing needs the home's loop (a `get` of a published value, say), after
    /// a trip to it otherwise.
    func answer(_ call: Call, reply: Reply) -> RPCWork? {
        context.scopeContext.home.noteRequest()
        if context.isShuttingDown {
            reply.send(.failure(annotate(LumenError.shuttingDown, refusing: call)))
            return nil
        }
        switch call {
        case .refused(let error), .refusedOnConnection(let error, _):
            reply.send(.failure(annotate(error, refusing: call)))
        case .hello:
            reply.send(
                .success([
                    "server": "lumend", "version": .string(LumenVersion.string),
                    "protocol": .int(LumenVersion.wireProtocol), "root": 0,
                ]))
        case .describe:
            reply.send(.success(["protocol": .int(LumenVersion.wireProtocol), "scopes": ScopeContext.scopeTypes]))
        case .close(let scope):
            reply.send(Result { () throws(LumenError) in try close(scope) })
        case .unsubscribe(let subscription):
            reply.send(Result { () throws(LumenError) in try unsubscribe(subscription) })
        case .get(let target):
            // The common case, a value already published, at once; anything else (errors included) after.
            if let value = try? lookup(target).connection.peek?() {
                reply.send(.success(["value": value]))
                return nil
            }
            return { reply.send(await self.answering { () async throws(LumenError) in try await self.get(target) }) }
        case .set(let target, let value, let transitionMs):
            return {
                await self.sending(reply) { () async throws(LumenError) in
                    try await self.set(target, value, transitionMs, reply: reply)
                }
            }
        case .call(let target, let arguments):
            return {
                await self.sending(reply) { () async throws(LumenError) in
                    try await self.call(target, arguments, reply: reply)
                }
            }
        case .open(let target, let configuration):
            return {
                reply.send(
                    await self.answering { () async throws(LumenError) in try await self.open(target, configuration) })
            }
        case .subscribe(let target):
            return {
                reply.send(await self.answering { () async throws(LumenError) in try await self.subscribe(target) })
            }
        }
        return nil
    }

    /// Runs work that may send commands to lights, which the command record then says this session sent; the
    /// work arranges its reply, and an error it throws is the reply.
    private func sending(_ reply: Reply, _ body: () async throws(LumenError) -> Void) async {
        await CommandSource.$current.withValue(commandSource) {
            do throws(LumenError) { try await body() } catch { reply.send(.failure(error)) }
        }
    }

    /// `error`, the answer to `call` without carrying it out, naming the connection the call is a request on
    /// (with its scope's light or room, when that scope is open), as every error of such a request does.
    func annotate(_ error: LumenError, refusing call: Call) -> LumenError {
        guard let named = call.named else { return error }
        let entity = named.scope.flatMap { scope in state.with { $0.scopes[scope]?.scope.entity } }
        return RequestContext(scope: named.scope, connection: named.connection, entity: entity, value: named.value)
            .annotate(error)
    }

    private func answering(_ body: () async throws(LumenError) -> JSONValue) async -> Result<JSONValue, LumenError> {
        do throws(LumenError) { return .success(try await body()) } catch { return .failure(error) }
    }

    /// A request begins to wait on a device or the disk.
    private func beginWaiting() { state.with { $0.inflight += 1 } }

    /// A request that waited has been answered.
    private func endWaiting() {
        let waiters = state.with { state -> [CheckedContinuation<Void, Never>] in
            state.inflight -= 1
            guard state.inflight == 0 else { return [] }
            defer { state.idleWaiters = [] }
            return state.idleWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once no request is waiting on a device or the disk.
    func waitUntilIdle() async {
        guard inflight > 0 else { return }
        await withCheckedContinuation { continuation in state.with { $0.idleWaiters.append(continuation) } }
    }

    // MARK: - Methods

    /// Where a request on a connection happened, for its errors: the scope, the connection, the light or
    /// room behind the scope, and the value a `set` carried, as the client wrote it. The scope and the
    /// connection are `nil` only for a request that does not name them readably.
    struct RequestContext: Sendable {
        let scope: Int?
        let connection: String?
        let entity: Entity?
        var value: JSONValue?

        /// `error` naming this context. The scope and connection are always the request's own (the home may
        /// have named a light's property as the connection, which for a `setState` is not the one asked);
        /// the rest is added where the error does not name it already. A large array or object value is left
        /// out rather than echoed back.
        func annotate(_ error: LumenError) -> LumenError {
            var error = error
            if let scope { error.data["scope"] = .int(scope) }
            if let connection { error.data["connection"] = .string(connection) }
            switch entity {
            case .light(let id) where error.data["light"] == nil: error.data["light"] = .string(id.rawValue)
            case .room(let id) where error.data["room"] == nil: error.data["room"] = .string(id.rawValue)
            default: break
            }
            if error.data["value"] == nil, let value, !value.isNull, !Self.isLarge(value) {
                error.data["value"] = value
            }
            // Where the request happened first, in one order for every error, then what is particular to it.
            let first = Self.contextKeys.compactMap { key in error.data[key].map { (key: key, value: $0) } }
            error.data = JSONObject(first + error.data.members.filter { !Self.contextKeys.contains($0.key) })
            return error
        }

        /// The keys of a request's context, in the order an error's `data` lists them.
        static let contextKeys = ["scope", "connection", "room", "light", "value"]

        static func isLarge(_ value: JSONValue) -> Bool {
            switch value {
            case .array, .object: value.serialized().utf8.count > 256
            default: false
            }
        }
    }

    /// What a request names, found: a connection of an open scope.
    private struct Found {
        let target: Call.Target
        let connection: AnyConnection

        /// The error of asking `method` of a connection of another kind; it names the kind, so that a client
        /// can tell which methods the connection takes without reading `describe`.
        func wrongKind(_ method: String) -> LumenError {
            let hint: String
            switch connection.kind {
            case .value: hint = "it is read-only: use get or subscribe"
            case .writable: hint = "use get, set or subscribe"
            case .action: hint = "it is an action: use call"
            case .scope: hint = "it opens a scope: use open"
            }
            return LumenError(
                .wrongConnectionKind, "cannot \(method) '\(target.connection)': \(hint)",
                data: ["kind": .string(connection.kind.rawValue)])
        }
    }

    /// What `body` gives for a request on `target`, carrying `value` when it writes one, with every error it
    /// throws naming the request's context (those of finding the scope and connection included), which `body`
    /// is handed for the errors it reports later.
    private func onTarget<Value>(
        _ target: Call.Target, value: JSONValue? = nil, _ body: (RequestContext) async throws(LumenError) -> Value
    ) async throws(LumenError) -> Value {
        let entity = state.with { $0.scopes[target.scope]?.scope.entity }
        let request = RequestContext(scope: target.scope, connection: target.connection, entity: entity, value: value)
        do throws(LumenError) { return try await body(request) } catch { throw request.annotate(error) }
    }

    private func lookup(_ target: Call.Target) throws(LumenError) -> Found {
        guard let record = state.with({ $0.scopes[target.scope] }) else {
            throw LumenError(
                .noSuchScope, "no open scope \(target.scope); open one first (the root home scope is 0)")
        }
        let scope = record.scope
        if let connection = record.connections[target.connection] {
            return Found(target: target, connection: connection)
        }
        guard let connection = scope.connection(target.connection) else {
            throw LumenError(
                .noSuchConnection,
                "a \(scope.typeName) scope has no connection '\(target.connection)'; 'describe' lists them")
        }
        state.with { $0.scopes[target.scope]?.connections[target.connection] = connection }
        return Found(target: target, connection: connection)
    }

    private func checkInflightLimit() throws(LumenError) {
        guard inflight < context.limits.maxInflightPerSession else {
            throw LumenError(
                .limitExceeded,
                "this session has \(context.limits.maxInflightPerSession) writes waiting; wait for some replies")
        }
    }

    /// Replies with the outcome of work queued on devices: at once when it was known as the work was made, else
    /// when the home settles it (even when that has happened meanwhile: the home's telling comes after the
    /// notices of the step that settled it).
    ///
    /// The outcome is handed over on this loop by work the home's executor queues as the device answers, so the
    /// reply takes its place there (``settle(_:_:request:)``): after the notices of the changes the home made
    /// before (the write's own among them) and before those it makes after.
    private func reply(with completion: WriteCompletion, _ request: RequestContext, _ reply: Reply) {
        if let known = completion.outcomeAsMade {
            return settle(known.map { ["value": $0] }, reply, request: request)
        }
        beginWaiting()
        let loop = eventLoop
        completion.whenKnown { result in
            loop.execute { _ in
                self.settle(result.map { ["value": $0] }, reply, request: request)
                self.endWaiting()
            }
        }
    }

    /// Gives a write's or an action's reply its place now, on the loop, in the order of what the home did: sent
    /// at once when nothing waits for the disk; else (full durability) held in its place until what the session's
    /// writes and actions applied is on disk, so that whatever comes after it (notices, replies) waits behind it
    /// however soon or late the disk confirms. A failure does not wait (nothing was applied). `request` names
    /// the request in its errors, a failure of the disk's included.
    private func settle(_ result: Result<JSONValue, LumenError>, _ reply: Reply, request: RequestContext?) {
        guard context.scopeContext.durable != nil, case .success = result else {
            return reply.send(result.mapError { request?.annotate($0) ?? $0 })
        }
        reply.hold()
        beginWaiting()
        let start = state.with { state -> Bool in
            state.waitingForDisk.append((result, reply, request))
            defer { state.committing = true }
            return !state.committing
        }
        guard start else { return }
        Task(executorPreference: eventLoop) { [self] in
            // One commit covers every reply waiting when it starts: each one's change was noted before it was
            // settled. What is settled meanwhile is the next round's.
            while case let waiting = state.with({ state in
                defer { state.waitingForDisk = [] }
                return state.waitingForDisk
            }), !waiting.isEmpty {
                var diskFailure: LumenError?
                do throws(LumenError) { try await context.scopeContext.commit() } catch { diskFailure = error }
                for (result, reply, request) in waiting {
                    // A success waited for the disk, and shares its fate.
                    let failure = diskFailure.map { request?.annotate($0) ?? $0 }
                    reply.send(failure.map { .failure($0) } ?? result)
                    endWaiting()
                }
            }
            state.with { $0.committing = false }
        }
    }

    private func open(_ target: Call.Target, _ configuration: JSONCursor) async throws(LumenError) -> JSONValue {
        try await onTarget(target) { _ throws(LumenError) in
            let found = try lookup(target)
            guard let open = found.connection.open else { throw found.wrongKind("open") }
            if target.connection == "simulation", let simulationRefusal { throw simulationRefusal }
            guard scopeCount < context.limits.maxScopesPerSession else {
                throw LumenError(
                    .limitExceeded,
                    "this session has \(context.limits.maxScopesPerSession) scopes open; close some first")
            }
            let child = try await open(configuration)
            let scopeID: Int? = state.with { state in
                guard !state.closed, state.scopes[target.scope] != nil else { return nil }
                let id = state.nextScope
                state.nextScope += 1
                state.scopes[id] = ScopeRecord(scope: child, parent: target.scope)
                state.scopes[target.scope]?.children.append(id)
                return id
            }
            guard let scopeID else {
                throw LumenError(
                    .noSuchScope, "scope \(target.scope) was closed while opening; open it again, then this")
            }
            return ["scope": .int(scopeID), "type": .string(child.typeName)]
        }
    }

    private func close(_ scopeID: Int) throws(LumenError) -> JSONValue {
        guard scopeID != 0 else {
            throw LumenError(
                .invalidParams, "the root scope 0 stays open for the whole session; close the scopes opened from it",
                data: ["scope": 0])
        }
        guard !closeSubtree(scopeID).isEmpty else {
            throw LumenError(
                .noSuchScope, "no open scope \(scopeID): never opened, or closed already; nothing to close",
                data: ["scope": .int(scopeID)])
        }
        return [:]
    }

    private func get(_ target: Call.Target) async throws(LumenError) -> JSONValue {
        try await onTarget(target) { _ throws(LumenError) in
            let found = try lookup(target)
            guard let get = found.connection.get else { throw found.wrongKind("get") }
            if let value = found.connection.peek?() { return ["value": value] }
            return ["value": try await get()]
        }
    }

    /// Checks a `set` and makes the write on the home's loop; the answer comes when the device confirms it.
    private func set(_ target: Call.Target, _ value: JSONCursor, _ transitionMs: JSONCursor, reply: Reply)
        async throws(LumenError)
    {
        try await onTarget(target, value: value.value) { request throws(LumenError) in
            let found = try lookup(target)
            guard let write = found.connection.write else { throw found.wrongKind("set") }
            guard !value.value.isNull else {
                throw LumenError(.invalidParams, "params.value is required; give the value to set")
            }
            var transition = 0.0
            if !transitionMs.value.isNull {
                do {
                    transition = try transitionMs.double(in: SimulatedDurations.transitionMilliseconds)
                } catch {
                    throw LumenError(.invalidParams, "\(error)")
                }
            }
            let options = WriteOptions(transitionMs: transition)
            try checkInflightLimit()
            let completion = try await context.scopeContext.home.reading { home throws(LumenError) in
                try write(home, value, options)
            }
            self.reply(with: completion, request, reply)
        }
    }

    private func call(_ target: Call.Target, _ arguments: JSONCursor, reply: Reply) async throws(LumenError) {
        try await onTarget(target) { request throws(LumenError) in
            let found = try lookup(target)
            guard let action = found.connection.action else { throw found.wrongKind("call") }
            // An action that waits for devices (a room's group command) is answered later, as a `set` is, so
            // the session's next requests (the advance its lights wait for, say) are not held up behind it.
            guard action.waitsForDevices else {
                let value = try await action.call(arguments)
                // Back on the loop after the step the action made, if any: after its notices.
                return settle(.success(["value": value]), reply, request: request)
            }
            try checkInflightLimit()
            self.reply(with: try await action.start(arguments), request, reply)
        }
    }

    private func subscribe(_ target: Call.Target) async throws(LumenError) -> JSONValue {
        try await onTarget(target) { _ throws(LumenError) in try await subscribe(try lookup(target)) }
    }

    private func subscribe(_ found: Found) async throws(LumenError) -> JSONValue {
        let connection = found.connection
        guard let get = connection.get else { throw found.wrongKind("subscribe") }
        guard state.with({ $0.subscriptions.count }) < context.limits.maxSubscriptionsPerSession else {
            throw LumenError(
                .limitExceeded,
                "this session has \(context.limits.maxSubscriptionsPerSession) subscriptions; unsubscribe some first")
        }
        guard !sharesSubscriptions || context.takeSharedSubscription() else {
            throw LumenError(
                .limitExceeded,
                "sessions other than the owner's hold \(context.limits.maxSharedSubscriptions) "
                    + "subscriptions together, the most lumend keeps for them; unsubscribe some, or try again later")
        }
        let subscription = context.hub.makeSubscriptionID()
        let value: JSONValue
        do throws(LumenError) {
            if let key = connection.key {
                // Read and register in one step on the home's loop, so no change falls in between. The notices
                // of later changes reach this loop after this task does, so the outbox knows the subscription
                // first.
                let hub = context.hub
                value = try await context.scopeContext.home.reading { home throws(LumenError) in
                    let value = try home.value(of: key)
                    hub.add(subscription, key: key, session: self)
                    home.watch(key)
                    return value
                }
            } else {
                value = try await get()
            }
        } catch {
            if sharesSubscriptions { context.returnSharedSubscription() }
            throw error
        }
        outbox.addSubscription(subscription, value: value)
        let scopeID = found.target.scope
        let registered = state.with { state -> Bool in
            guard !state.closed, state.scopes[scopeID] != nil else { return false }
            state.subscriptions[subscription] = (scopeID, connection.key)
            state.scopes[scopeID]?.subscriptions.append(subscription)
            return true
        }
        guard registered else {
            drop(subscription, key: connection.key)
            throw LumenError(.noSuchScope, "scope \(scopeID) was closed while subscribing; open it again")
        }
        return ["subscription": .int(Int(subscription)), "value": value, "seq": 0]
    }

    private func unsubscribe(_ subscription: Int) throws(LumenError) -> JSONValue {
        let removed = state.with { state -> (scope: Int, key: PropertyKey?)? in
            guard subscription >= 0, let record = state.subscriptions.removeValue(forKey: UInt64(subscription)) else {
                return nil
            }
            state.scopes[record.scope]?.subscriptions.removeAll { $0 == UInt64(subscription) }
            return record
        }
        guard let removed else {
            throw LumenError(
                .invalidParams,
                "no subscription \(subscription) in this session; it was never made, or ended already (with its scope, say)",
                data: ["subscription": .int(subscription)])
        }
        drop(UInt64(subscription), key: removed.key)
        return [:]
    }

    /// Whether this session's subscriptions come from ``ServerLimits/maxSharedSubscriptions``: the owner's do not.
    private var sharesSubscriptions: Bool { !isOwner }

    private func drop(_ subscription: UInt64, key: PropertyKey?) {
        if sharesSubscriptions { context.returnSharedSubscription() }
        if let key { context.hub.remove(subscription, key: key) }
        outbox.removeSubscription(subscription)
    }

    // MARK: - Closing

    /// Closes a scope and everything below it; returns the closed IDs, children before parents.
    @discardableResult
    private func closeSubtree(_ root: Int) -> [Int] {
        let (closed, subscriptions) = state.with { state -> ([Int], [(UInt64, PropertyKey?)]) in
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
        let roots = state.with { state in
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
        let subscriptions = state.with { state -> [(UInt64, PropertyKey?)] in
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
