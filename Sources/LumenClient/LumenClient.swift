import LumenProtocol
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An open scope, as the daemon numbers it. The root `home` scope is ``ScopeID/root``.
public struct ScopeID: Sendable, Hashable, CustomStringConvertible {
    /// The number the daemon gave it.
    public let rawValue: Int
    /// A scope ID.
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    /// The root `home` scope every session has.
    public static let root = ScopeID(0)
    public var description: String { String(rawValue) }
}

/// A connection to `lumend`: requests with `async`/`await`, subscriptions as `AsyncSequence`s.
///
/// ```swift
/// let client = try await LumenClient.connect()
/// let kitchen = try await client.open("room", in: .root, configuration: "kitchen")
/// let spot = try await client.open("light", in: kitchen, configuration: "kitchen.spot-1")
/// for try await isOn in try await client.subscribe("isOn", in: spot) { print(isOn) }
/// ```
///
/// Requests may be made from many tasks at once; they are pipelined on the one socket. When the connection
/// ends, every waiting call throws ``LumenClientError/disconnected`` and every subscription ends; the client
/// never reconnects on its own.
public final class LumenClient: Sendable {
    private struct State {
        var pending: [Int: CheckedContinuation<JSONValue, any Error>] = [:]
        /// What to do with a request's result on the reading thread, before the next line is read.
        var onResult: [Int: @Sendable (JSONValue) -> Void] = [:]
        var subscriptions: [Int: (scope: Int, continuation: AsyncThrowingStream<JSONValue, any Error>.Continuation)] =
            [:]
        var children: [Int: [Int]] = [:]
        var nextID = 1
        var closed = false
        /// The timers of requests given a timeout.
        var timers: [Int: Task<Void, Never>] = [:]
    }

    /// The socket path this client is connected to.
    public let path: String
    private let fd: Int32
    private let state = Locked(State())
    private let writeLock = Locked(())
    private let sentLines = Atomic<Int>(0)

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    /// The socket path `lumend` uses by default, resolved as the daemon resolves it (`$LUMEN_SOCKET` first).
    public static func defaultSocketPath(environment: [String: String] = ProcessInfo.processInfo.environment)
        -> String
    {
        LumenPaths.socketCandidates(environment: environment).first?.path ?? LumenPaths.system.socketPath
    }

    /// Connects to the daemon.
    /// - Parameter path: the socket; `nil` tries `$LUMEN_SOCKET`, else the user's own lumend's socket, then
    ///   the system's (``LumenPaths/socketCandidates(environment:uid:)``), each only in a directory no other
    ///   user could have planted it in.
    ///
    /// It says `hello` at once: the daemon closes a connection that makes no request in its first seconds, and
    /// keeps one that has while it waits.
    /// - Throws: ``LumenClientError/cannotConnect(path:reason:)``, naming every socket tried and why each
    ///   failed; the error of a `hello` the daemon did not answer.
    public static func connect(to path: String? = nil) async throws(LumenClientError) -> LumenClient {
        let client = try await socket(path)
        do {
            _ = try await client.hello()
        } catch {
            client.disconnect()
            throw error
        }
        return client
    }

    /// A connection to the daemon at `path`, or the first of its default sockets that takes one.
    private static func socket(_ path: String?) async throws(LumenClientError) -> LumenClient {
        if let path { return try connectNow(to: path) }
        var failures: [(LumenPaths.SocketCandidate, String)] = []
        for candidate in LumenPaths.socketCandidates(environment: ProcessInfo.processInfo.environment) {
            if let distrust = candidate.distrust() {
                failures.append((candidate, "not trusting it: \(distrust)"))
                continue
            }
            do {
                return try connectNow(to: candidate.path)
            } catch {
                if case .cannotConnect(_, let reason) = error { failures.append((candidate, reason)) }
            }
        }
        let tried = failures.map { "\($0.0.origin.rawValue) socket \($0.0.path) (\($0.1))" }
        throw .cannotConnect(
            path: "its default sockets", reason: "tried " + tried.joined(separator: ", then "))
    }

    private static func connectNow(to path: String) throws(LumenClientError) -> LumenClient {
        let fd: Int32
        do {
            fd = try UnixSocket.connect(to: path)
        } catch {
            let reason =
                switch error.errno {
                case ENAMETOOLONG: "the path is too long for a Unix socket"
                case EACCES: String(cString: strerror(EACCES)) + Self.whoMayConnect(to: path)
                default: String(cString: strerror(error.errno))
                }
            throw .cannotConnect(path: path, reason: reason)
        }
        let client = LumenClient(path: path, fd: fd)
        DetachedThread.start { client.readLoop() }
        return client
    }

    /// Who the socket at `path` admits, and how to be one of them, for a refusal: the socket's group when it
    /// lets its group in and the user is not a member.
    static func whoMayConnect(to path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & 0o060 == 0o060 else { return "" }
        let group = getgrgid(info.st_gid).map { String(cString: $0.pointee.gr_name) } ?? "\(info.st_gid)"
        return " (the socket admits its owner and members of group '\(group)', which you are not in: "
            + "'sudo usermod -aG \(group) $USER', then log in again)"
    }

    deinit { UnixSocket.close(fd) }

    /// Closes the connection. Waiting calls fail with ``LumenClientError/disconnected``.
    public func disconnect() { UnixSocket.shutdownBoth(fd) }

    // MARK: - Requests

    /// Sends a raw JSON-RPC request and returns its `result`.
    /// - Throws: ``LumenClientError/server(_:)`` with the daemon's error, or a connection error.
    /// - Parameter timeout: how long to wait for the answer before ``LumenClientError/timedOut(_:)``; by
    ///   default, for as long as it takes.
    @discardableResult
    public func request(_ method: String, _ params: JSONObject = [:], timeout: Duration? = nil)
        async throws(LumenClientError) -> JSONValue
    {
        try await request(method, params, timeout: timeout, onResult: nil)
    }

    /// Sends a request; `onResult` sees a successful result on the reading thread, before any line after it.
    private func request(
        _ method: String, _ params: JSONObject, timeout: Duration? = nil, onResult: (@Sendable (JSONValue) -> Void)?
    ) async throws(LumenClientError) -> JSONValue {
        do {
            return try await withCheckedThrowingContinuation { continuation in
                let id: Int? = state.withLock { state in
                    guard !state.closed else { return nil }
                    let id = state.nextID
                    state.nextID += 1
                    state.pending[id] = continuation
                    if let onResult { state.onResult[id] = onResult }
                    if let timeout {
                        let what = params["connection"]?.stringValue.map { "\(method) \($0)" } ?? method
                        state.timers[id] = Task { [weak self] in
                            try? await Task.sleep(for: timeout)
                            guard !Task.isCancelled else { return }
                            self?.expire(id, "\(what) within \(timeout)")
                        }
                    }
                    return id
                }
                guard let id else {
                    continuation.resume(throwing: LumenClientError.disconnected)
                    return
                }
                var line = Wire.request(id: .int(id), method: method, params: .object(params))
                line.append(0x0A)
                send(line)
            }
        } catch let error as LumenClientError {
            throw error
        } catch {
            throw .protocolViolation("\(error)")
        }
    }

    /// Fails request `id`, unanswered within its timeout; an answer that comes later is dropped.
    private func expire(_ id: Int, _ what: String) {
        let continuation = state.withLock { state in
            state.timers[id] = nil
            state.onResult[id] = nil
            return state.pending.removeValue(forKey: id)
        }
        continuation?.resume(throwing: LumenClientError.timedOut(what))
    }

    private func send(_ line: [UInt8]) {
        // One line at a time, so that lines from tasks sending at once never interleave.
        let sent = writeLock.withLock { _ in UnixSocket.sendAll(fd, line) }
        sentLines.add(1, ordering: .releasing)
        // The reader sees the hang-up and fails everything waiting.
        if !sent { UnixSocket.shutdownBoth(fd) }
    }

    /// How many requests this client has written to its socket so far. lumend takes a session's requests in the
    /// order they were written, so a request written after this count has moved is taken after the ones counted:
    /// a test that sends a write from a task of its own waits for the count to move before it moves the clock.
    ///
    /// ```swift
    /// let sent = client.requestsSent
    /// let write = Task { try await client.set("isOn", in: spot, to: true) }
    /// while client.requestsSent == sent { await Task.yield() }
    /// try await client.call("advance", in: simulation, arguments: ["untilIdle": true])
    /// ```
    public var requestsSent: Int { sentLines.load(ordering: .acquiring) }

    /// `hello`: the daemon's name, version and protocol.
    public func hello(client: String = "LumenClient") async throws(LumenClientError) -> JSONValue {
        try await request("hello", ["client": .string(client)])
    }

    /// Opens a child scope through a scope connection (`room`, `light`, `simulation`).
    public func open(_ connection: String, in scope: ScopeID, configuration: JSONValue = .null)
        async throws(LumenClientError) -> ScopeID
    {
        let result = try await request(
            "open", ["scope": .int(scope.rawValue), "connection": .string(connection), "configuration": configuration])
        guard let id = result["scope"]?.intValue else {
            throw .protocolViolation("open returned \(result.serialized())")
        }
        state.withLock { $0.children[scope.rawValue, default: []].append(id) }
        return ScopeID(id)
    }

    /// Closes a scope and its children; their subscriptions end.
    public func close(_ scope: ScopeID) async throws(LumenClientError) {
        try await request("close", ["scope": .int(scope.rawValue)])
        scopeClosed(scope.rawValue, error: nil)
    }

    /// Reads a value.
    public func get(_ connection: String, in scope: ScopeID, timeout: Duration? = nil)
        async throws(LumenClientError) -> JSONValue
    {
        let result = try await request(
            "get", ["scope": .int(scope.rawValue), "connection": .string(connection)], timeout: timeout)
        return result["value"] ?? .null
    }

    /// Writes a value and returns it once the device confirmed it (and, in full durability, it is on disk).
    /// On a virtual clock that is once the clock moves: call it from a task of its own (`Task { … }`, or
    /// `async let`), then advance or settle the clock.
    @discardableResult
    public func set(
        _ connection: String, in scope: ScopeID, to value: JSONValue, transitionMs: Double? = nil,
        timeout: Duration? = nil
    ) async throws(LumenClientError) -> JSONValue {
        var params: JSONObject = ["scope": .int(scope.rawValue), "connection": .string(connection), "value": value]
        if let transitionMs { params["transitionMs"] = .double(transitionMs) }
        return try await request("set", params, timeout: timeout)["value"] ?? .null
    }

    /// Changes several of a light's properties as one device command (its `setState`: `isOn`, `brightness`,
    /// `colorTemperature`, `color`), as a bulb takes them; returns the values the light applied, once it
    /// confirmed them.
    @discardableResult
    public func setState(
        _ changes: JSONObject, of light: ScopeID, transitionMs: Double? = nil, timeout: Duration? = nil
    ) async throws(LumenClientError) -> JSONValue {
        var arguments = changes
        if let transitionMs { arguments["transitionMs"] = .double(transitionMs) }
        return try await call("setState", in: light, arguments: .object(arguments), timeout: timeout)
    }

    /// Calls an action.
    @discardableResult
    public func call(_ connection: String, in scope: ScopeID, arguments: JSONValue = .null, timeout: Duration? = nil)
        async throws(LumenClientError) -> JSONValue
    {
        try await request(
            "call", ["scope": .int(scope.rawValue), "connection": .string(connection), "arguments": arguments],
            timeout: timeout
        )["value"] ?? .null
    }

    /// Subscribes to a value: the sequence yields the current value, then each change, and ends when the
    /// scope closes (finishing normally) or the connection ends (throwing ``LumenClientError/disconnected``).
    public func subscribe(_ connection: String, in scope: ScopeID) async throws(LumenClientError) -> Subscription {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: JSONValue.self, throwing: (any Error).self)
        // Registered on the reading thread as the reply is read, so that a `changed` notice right behind it
        // (a newer value) finds the subscription instead of being dropped.
        let result = try await request(
            "subscribe", ["scope": .int(scope.rawValue), "connection": .string(connection)]
        ) { [weak self] result in
            guard let id = result["subscription"]?.intValue else { return }
            continuation.yield(result["value"] ?? .null)
            self?.state.withLock { $0.subscriptions[id] = (scope.rawValue, continuation) }
        }
        guard let id = result["subscription"]?.intValue else {
            throw .protocolViolation("subscribe returned \(result.serialized())")
        }
        let client = self
        continuation.onTermination = { _ in
            let wasOpen = client.state.withLock { $0.subscriptions.removeValue(forKey: id) != nil }
            if wasOpen { Task { try? await client.request("unsubscribe", ["subscription": .int(id)]) } }
        }
        return Subscription(id: id, initialValue: result["value"] ?? .null, values: stream)
    }

    // MARK: - Reading

    private func readLoop() {
        var reader = LineReader(fd: fd)
        while true {
            do {
                handle(line: try reader.next())
            } catch .overlong {
                continue
            } catch {
                break
            }
        }
        let (waiting, streams) = state.withLock { state in
            state.closed = true
            defer {
                state.pending = [:]
                state.onResult = [:]
                state.subscriptions = [:]
                for timer in state.timers.values { timer.cancel() }
                state.timers = [:]
            }
            return (Array(state.pending.values), state.subscriptions.values.map(\.continuation))
        }
        for continuation in waiting { continuation.resume(throwing: LumenClientError.disconnected) }
        for stream in streams { stream.finish(throwing: LumenClientError.disconnected) }
    }

    private func handle(line: [UInt8]) {
        switch WireMessage(line: line) {
        case .notification(let method, let params):
            switch WireNotification(rawValue: method) {
            case .changed:
                guard let id = params["subscription"]?.intValue else { return }
                let stream = state.withLock { $0.subscriptions[id]?.continuation }
                stream?.yield(params["value"] ?? .null)
            case .closed:
                if let scope = params["scope"]?.intValue { scopeClosed(scope, error: nil) }
            case .reload, nil:
                // Sent only over HTTP; this client speaks on the socket.
                break
            }
        case .response(let id, let result):
            guard let id = id.intValue else { return }
            let (continuation, onResult) = state.withLock { state in
                state.timers.removeValue(forKey: id)?.cancel()
                return (state.pending.removeValue(forKey: id), state.onResult.removeValue(forKey: id))
            }
            guard let continuation else { return }
            switch result {
            case .success(let value):
                onResult?(value)
                continuation.resume(returning: value)
            case .failure(let error):
                continuation.resume(throwing: LumenClientError.server(error))
            }
        case nil:
            break
        }
    }

    /// Ends the subscriptions of a closed scope and of its children.
    private func scopeClosed(_ scope: Int, error: (any Error)?) {
        let streams = state.withLock { state -> [AsyncThrowingStream<JSONValue, any Error>.Continuation] in
            var closing = [scope]
            var index = 0
            while index < closing.count {
                closing += state.children.removeValue(forKey: closing[index]) ?? []
                index += 1
            }
            let set = Set(closing)
            let ending = state.subscriptions.filter { set.contains($0.value.scope) }
            for id in ending.keys { state.subscriptions[id] = nil }
            return ending.values.map(\.continuation)
        }
        for stream in streams { stream.finish(throwing: error) }
    }
}

/// The values of one subscription: the current value first, then every change.
public struct Subscription: AsyncSequence, Sendable {
    public typealias Element = JSONValue
    /// The daemon's subscription ID.
    public let id: Int
    /// The value when the subscription started (also the sequence's first element).
    public let initialValue: JSONValue
    let values: AsyncThrowingStream<JSONValue, any Error>

    public func makeAsyncIterator() -> AsyncThrowingStream<JSONValue, any Error>.AsyncIterator {
        values.makeAsyncIterator()
    }
}
