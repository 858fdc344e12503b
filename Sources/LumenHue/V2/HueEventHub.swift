import LumenModel
import LumenProtocol

/// The Hue API v2 event stream's source: what the bridge last showed, and the streams open.
///
/// A change anywhere in the home (or in the bridge's own record) asks for one look at the bridge
/// (``HueBridge/flushEvents()``), taken in the home's next turn, so that all the changes of one step of the
/// home go out as one batch, as a bridge batches them. The look is compared with the one before: resources that
/// appeared are `add` events, those gone `delete`, and those that changed `update` with the features that did.
/// Nothing is looked at while no stream is open.
final class HueEventHub: Sendable {
    /// The most bytes a stream may have waiting for its client: a client that reads slower than the home changes
    /// is let go beyond it, rather than held in memory without bound.
    static let pendingLimit = 1 << 20
    /// The most batches kept for a client that comes back with `Last-Event-ID`.
    static let keptBatches = 256

    private struct State {
        var streams: [ObjectIdentifier: HueEventStream] = [:]
        /// What the bridge showed at the last look, by ID; `nil` until a stream asks for a first look.
        var shown: [String: JSONValue]?
        var isLookPending = false
        /// A look is being taken: another waits for it, so that looks land in the order they were taken.
        var isLooking = false
        var nextBatch: UInt64 = 0
        var kept: [(number: UInt64, bytes: [UInt8])] = []
    }

    private let state = Locked(State())

    /// Whether a look at the bridge is wanted and not yet asked for: the caller then asks for one. Cheap while no
    /// stream is open, since the home calls it on every change.
    func wantsLook() -> Bool {
        state.withLock { state in
            guard !state.streams.isEmpty, !state.isLookPending else { return false }
            state.isLookPending = true
            return true
        }
    }

    /// Takes the look asked for, unless one is being taken already (which then takes it after its own): `true`
    /// when the caller is to take it. A change from now on asks for another.
    func startLook() -> Bool {
        state.withLock { state in
            guard !state.isLooking else { return false }
            state.isLooking = true
            state.isLookPending = false
            return true
        }
    }

    /// The look taken has been shown: `true` when another was asked for meanwhile, which the caller is to take
    /// now; else the hub takes none until asked.
    func lookAgain() -> Bool {
        state.withLock { state in
            guard state.isLookPending else {
                state.isLooking = false
                return false
            }
            state.isLookPending = false
            return true
        }
    }

    /// Sends every open stream the events between the last look and `resources`, in one batch at `time`.
    func looked(at resources: [JSONValue], time: WallTime) {
        let streams = state.withLock { state -> [HueEventStream] in
            guard !state.streams.isEmpty else {
                state.shown = nil
                return []
            }
            var now: [String: JSONValue] = [:]
            for resource in resources { if let id = resource["id"]?.stringValue { now[id] = resource } }
            defer { state.shown = now }
            guard let before = state.shown else { return [] }
            var added: [JSONValue] = []
            var updated: [JSONValue] = []
            var deleted: [JSONValue] = []
            for resource in resources {
                guard let id = resource["id"]?.stringValue else { continue }
                guard let old = before[id] else {
                    added.append(resource)
                    continue
                }
                if old != resource, let change = Self.difference(from: old, to: resource) { updated.append(change) }
            }
            for (id, old) in before where now[id] == nil {
                deleted.append(.object(["id": .string(id), "type": old["type"] ?? .null, "id_v1": old["id_v1"] ?? ""]))
            }
            guard !(added.isEmpty && updated.isEmpty && deleted.isEmpty) else { return [] }
            let number = state.nextBatch
            state.nextBatch += 1
            let bytes = Self.batch(number, time: time, [("add", added), ("update", updated), ("delete", deleted)])
            state.kept.append((number, bytes))
            if state.kept.count > Self.keptBatches { state.kept.removeFirst(state.kept.count - Self.keptBatches) }
            for stream in state.streams.values { stream.send(bytes) }
            return Array(state.streams.values)
        }
        for stream in streams { stream.wakeServer() }
    }

    /// A new stream, sent first the batches after `lastEventID` (`"<seconds>:<n>"`) that are still kept.
    /// - Returns: the stream, and whether the hub needs a first look to compare the next with.
    func open(lastEventID: String?) -> (HueEventStream, needsLook: Bool) {
        let stream = HueEventStream(hub: self)
        let needsLook = state.withLock { state -> Bool in
            if let lastEventID, let seen = lastEventID.split(separator: ":").last.flatMap({ UInt64($0) }) {
                for batch in state.kept where batch.number > seen { stream.send(batch.bytes) }
            }
            state.streams[ObjectIdentifier(stream)] = stream
            guard state.shown == nil, !state.isLookPending else { return false }
            state.isLookPending = true
            return true
        }
        return (stream, needsLook)
    }

    /// `stream` is closed.
    func close(_ stream: HueEventStream) {
        state.withLock { state in
            state.streams[ObjectIdentifier(stream)] = nil
            if state.streams.isEmpty { state.shown = nil }
        }
    }

    /// Whether streams are open and the hub has yet to take its first look, which later ones are compared with.
    var isWaitingForFirstLook: Bool { state.withLock { !$0.streams.isEmpty && $0.shown == nil } }

    /// How many streams are open.
    var streamCount: Int { state.withLock { $0.streams.count } }

    /// An `update` of `new` over `old`: its ID, type, v1 link and owner, and the features that changed.
    static func difference(from old: JSONValue, to new: JSONValue) -> JSONValue? {
        guard case .object(let before) = old, case .object(let after) = new else { return nil }
        var change: JSONObject = [:]
        for key in ["id", "id_v1", "owner", "type"] { if let value = after[key] { change[key] = value } }
        var changed = false
        for (key, value) in after.members where before[key] != value {
            change[key] = value
            changed = true
        }
        return changed ? .object(change) : nil
    }

    /// One batch as a Server-Sent Event: `id: <seconds>:<n>` and a `data` line holding an event for each kind
    /// of change there is.
    static func batch(_ number: UInt64, time: WallTime, _ kinds: [(String, [JSONValue])]) -> [UInt8] {
        let seconds = time.microsecondsSinceEpoch / 1_000_000
        let creation = String(time.utcText.prefix(19)) + "Z"
        var events: [JSONValue] = []
        for (index, (type, data)) in kinds.enumerated() where !data.isEmpty {
            events.append(
                .object([
                    "creationtime": .string(creation), "data": .array(data),
                    "id": .string(HueResourceID.make(bridge: "events", type, "\(number).\(index)")),
                    "type": .string(type),
                ]))
        }
        return Array("id: \(seconds):\(number)\ndata: \(JSONValue.array(events).serialized())\n\n".utf8)
    }
}

/// The body of one `GET /eventstream/clip/v2` response: the batches of its hub, as they come.
///
/// The hub adds to it from any thread, and the server reads it on its loop, so its state is under a lock; `wake`
/// hops to the server's loop itself.
final class HueEventStream: HTTPStreamBody {
    private struct State {
        var pending: [UInt8] = Array(": hi\n\n".utf8)
        var offset = 0
        var wake: (@Sendable () -> Void)?
        var isEnded = false
    }

    private let state = Locked(State())
    private weak let hub: HueEventHub?

    init(hub: HueEventHub) { self.hub = hub }

    func start(wake: @escaping @Sendable () -> Void) { state.withLock { $0.wake = wake } }

    func next(maxBytes: Int) -> [UInt8]? {
        state.withLock { state in
            guard !state.isEnded else { return nil }
            let end = min(state.pending.count, state.offset + maxBytes)
            defer {
                state.offset = end
                if end == state.pending.count {
                    state.pending.removeAll(keepingCapacity: true)
                    state.offset = 0
                }
            }
            return Array(state.pending[state.offset..<end])
        }
    }

    func finish() {
        state.withLock { $0.isEnded = true }
        hub?.close(self)
    }

    /// Adds `bytes` to what is to be sent; a client that has more than ``HueEventHub/pendingLimit`` waiting is
    /// let go.
    func send(_ bytes: [UInt8]) {
        state.withLock { state in
            guard !state.isEnded else { return }
            if state.pending.count - state.offset + bytes.count > HueEventHub.pendingLimit {
                state.isEnded = true
                state.pending = []
                state.offset = 0
            } else {
                state.pending += bytes
            }
        }
    }

    /// Tells the server there is more to send (or that the stream ended).
    func wakeServer() { state.withLock { $0.wake }?() }
}
