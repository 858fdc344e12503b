import LumenModel
import LumenProtocol

/// The Hue API v2 event stream's source: what the bridge last showed, and the streams open.
///
/// A change anywhere in the home (or in the bridge's own record) asks for one look at the bridge
/// (``HueBridge/lookForEvents()``), taken in the home's next turn, so that all the changes of one step of the
/// home go out as one batch, as a bridge batches them. The look is compared with the one before: resources that
/// appeared are `add` events, those gone `delete`, and those that changed `update` with the features that did.
///
/// The hub looks while a stream is open, and for ``graceSeconds`` after the last one closes, so that a client
/// that comes back with `Last-Event-ID` is sent what it missed; after that it stops looking and forgets its
/// batches, whose story would have a gap, at the first change or stream opened after the grace (nothing needs them
/// before). A stream says nothing (so its client is not answered `200`) until the
/// hub has taken a look that everything after it is compared with.
final class HueEventHub: Sendable {
    /// The most bytes a stream may have waiting for its client: a client that reads slower than the home changes
    /// is let go beyond it, rather than held in memory without bound. What waits is the batches themselves,
    /// shared with the hub and the other streams, so a stream holds no more than this, and a few per cent for
    /// each batch's bookkeeping, beside the chunk its connection is writing.
    static let pendingLimit = 1 << 20
    /// The most batches kept for a client that comes back with `Last-Event-ID` (``keptBytes`` is what bounds
    /// them first, unless batches are small).
    static let keptBatches = 4_096
    /// The most bytes of batches kept: half a stream's ``pendingLimit``, so that what a returning client is sent
    /// again never gets it let go (it would come back with the same ID, and be let go again).
    static let keptBytes = pendingLimit / 2
    /// How long the hub goes on looking after the last stream closed: a client that reconnects within it is sent
    /// the batches it missed. Eighteen minutes, for aiohue (Home Assistant's Hue library): it reconnects after
    /// pauses of 2, 4, 6… seconds, asking with `Last-Event-ID`, and reads everything again only once a pause
    /// exceeds a minute, some 15.5 minutes after it noticed the drop, which on a silent one is its 90 s read
    /// timeout after its stream stalled, while lumend closes the stream some 30 s after it stalled.
    static let graceSeconds = 1_080

    private struct State {
        var streams: [ObjectIdentifier: HueEventStream] = [:]
        /// What the bridge showed at the last look, by ID; `nil` until a stream asks for a first look.
        var shown: [String: JSONValue]?
        var isLookPending = false
        /// A look is being taken: another waits for it, so that looks land in the order they were taken.
        var isLooking = false
        /// The next batch's number: counted on from one drawn at start, so that an ID from an earlier run of
        /// lumend (whose virtual clock starts at the same time) names none of this run's batches.
        var nextBatch: UInt64 = .random(in: 0..<(1 << 32))
        /// The last batches sent, each with its ID (`<seconds>:<n>`), oldest first, from `keptStart` on (those
        /// before it are let go, and dropped from the array in one go once they are many).
        var kept: [(id: String, bytes: [UInt8])] = []
        var keptStart = 0
        var keptBytes = 0
        /// When the last stream closed, while no other is open: the hub looks until ``graceSeconds`` after.
        var lastClosed: ContinuousClock.Instant?
        /// How many times the hub stopped watching: a look begun before the last stop has no batch to add.
        var stops: UInt64 = 0
        /// Looks landed, and those waiting for the next.
        var looks: UInt64 = 0
        var lookWaiters: [(after: UInt64, CheckedContinuation<Void, Never>)] = []

        /// Whether the hub looks at the bridge: a stream is open, or the last closed less than the grace ago.
        func isWatching(now: ContinuousClock.Instant) -> Bool {
            guard streams.isEmpty else { return true }
            guard let lastClosed else { return false }
            return now - lastClosed < .seconds(HueEventHub.graceSeconds)
        }

        /// Stops looking: nothing is shown, and the batches kept, which miss what comes now, are forgotten.
        mutating func stopWatching() {
            shown = nil
            lastClosed = nil
            kept = []
            keptStart = 0
            keptBytes = 0
            stops += 1
        }
    }

    private let state = Locked(State())
    /// The time, for the grace after the last stream.
    private let now: @Sendable () -> ContinuousClock.Instant

    /// A hub that tells the time by `now`.
    init(now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.now = now
    }

    /// Whether a look at the bridge is wanted and not yet asked for: the caller then asks for one. Cheap while the
    /// hub is not watching, since the home calls it on every change.
    func wantsLook() -> Bool {
        let time = now()
        return state.withLock { state in
            guard state.isWatching(now: time) else {
                if state.shown != nil { state.stopWatching() }
                return false
            }
            guard !state.isLookPending else { return false }
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

    /// Sends every open stream the events between the last look and `resources`, in one batch at `time`, and lets
    /// the streams waiting for a first look begin. Called by the one taking the look (``startLook()``) only, so
    /// the comparison, made with no lock held, is with the look before this one.
    func looked(at resources: [JSONValue], time: WallTime) {
        let clock = now()
        let before = state.withLock { state -> (shown: [String: JSONValue]?, number: UInt64, stops: UInt64)? in
            guard state.isWatching(now: clock) else {
                state.stopWatching()
                return nil
            }
            return (state.shown, state.nextBatch, state.stops)
        }
        guard let before else {
            landed()
            return
        }
        var shown: [String: JSONValue] = [:]
        for resource in resources { if let id = resource["id"]?.stringValue { shown[id] = resource } }
        let made = before.shown.flatMap { Self.batch(before.number, time: time, from: $0, to: resources, shown) }
        let (streams, batch) = state.withLock { state -> ([HueEventStream], [UInt8]?) in
            state.shown = shown
            // Stopped meanwhile: this look is where the story starts again, with no batch against the one before.
            let batch = state.stops == before.stops ? made : nil
            if let batch {
                state.nextBatch = before.number + 1
                state.kept.append(batch)
                state.keptBytes += batch.bytes.count
                while state.keptStart < state.kept.count,
                    state.kept.count - state.keptStart > Self.keptBatches || state.keptBytes > Self.keptBytes
                {
                    state.keptBytes -= state.kept[state.keptStart].bytes.count
                    state.kept[state.keptStart] = ("", [])
                    state.keptStart += 1
                }
                if state.keptStart > Self.keptBatches / 4, state.keptStart * 2 > state.kept.count {
                    state.kept.removeFirst(state.keptStart)
                    state.keptStart = 0
                }
            }
            return (Array(state.streams.values), batch?.bytes)
        }
        // Handed to each stream outside the hub's lock: looks are taken one at a time, so no later batch can pass
        // this one, and a stream opened from here on is sent it from what is kept.
        for stream in streams {
            let began = stream.begin()
            if let batch { stream.send(batch) }
            if began || batch != nil { stream.wakeServer() }
        }
        landed()
    }

    /// A look has landed: whoever waits for one goes on.
    private func landed() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.looks += 1
            let looks = state.looks
            let ready = state.lookWaiters.filter { $0.after < looks }.map(\.1)
            state.lookWaiters.removeAll { $0.after < looks }
            return ready
        }
        for waiter in waiters { waiter.resume() }
    }

    /// How many looks have landed (``looked(at:time:)``), for ``lookLanded(after:)``.
    var looksLanded: UInt64 { state.withLock { $0.looks } }
    /// Whether a look was asked for and has not landed: one pending or being taken.
    var isLookUnderWay: Bool { state.withLock { $0.isLookPending || $0.isLooking } }

    /// Returns once more than `count` looks have landed: at once if they have.
    func lookLanded(after count: UInt64) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                guard state.looks <= count else { return true }
                state.lookWaiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// A new stream for the user whose key is `key`, sent first the batches kept after the one `lastEventID`
    /// names (`"<seconds>:<n>"`), or every batch kept when it names none kept: one from before lumend started
    /// again (each run numbers its batches on from a number of its own), or one too old to be kept; all of them are newer than
    /// what that client saw, and each event says a resource's whole feature, so one sent twice does no harm. It
    /// says nothing until the hub has a look to compare the next with.
    /// - Returns: the stream, and whether the hub needs that look, which the caller is then to take.
    func open(key: String = "", lastEventID: String?) -> (HueEventStream, needsLook: Bool) {
        let stream = HueEventStream(hub: self, key: key)
        let time = now()
        let needsLook = state.withLock { state -> Bool in
            if !state.isWatching(now: time), state.shown != nil { state.stopWatching() }
            if let lastEventID {
                let kept = state.kept[state.keptStart...]
                let next = kept.lastIndex { $0.id == lastEventID }.map { $0 + 1 } ?? kept.startIndex
                for batch in kept[next...] { stream.send(batch.bytes) }
            }
            state.streams[ObjectIdentifier(stream)] = stream
            state.lastClosed = nil
            guard state.shown == nil else {
                _ = stream.begin()
                return false
            }
            guard !state.isLookPending else { return false }
            state.isLookPending = true
            return true
        }
        return (stream, needsLook)
    }

    /// `stream` is closed.
    func close(_ stream: HueEventStream) {
        let time = now()
        state.withLock { state in
            guard state.streams.removeValue(forKey: ObjectIdentifier(stream)) != nil else { return }
            if state.streams.isEmpty { state.lastClosed = time }
        }
    }

    /// Ends the streams of the user whose key is `key`: it was forgotten, and its key opens nothing any more.
    func closeStreams(of key: String) {
        let ended = state.withLock { state in state.streams.values.filter { $0.key == key } }
        for stream in ended { stream.end() }
    }

    /// The keys of the users with a stream open: each counts as in use for as long as it is.
    var streamingKeys: Set<String> { state.withLock { Set($0.streams.values.map(\.key)) } }

    /// Whether the hub is looking at the bridge: a stream is open, or the last closed within the grace.
    var isWatching: Bool {
        let time = now()
        return state.withLock { $0.isWatching(now: time) && $0.shown != nil }
    }

    /// How many streams are open.
    var streamCount: Int { state.withLock { $0.streams.count } }

    /// The batch numbered `number` of the events from `before` to `resources` (by ID in `now`), as a Server-Sent
    /// Event, with its ID; `nil` when nothing changed.
    static func batch(
        _ number: UInt64, time: WallTime, from before: [String: JSONValue], to resources: [JSONValue],
        _ now: [String: JSONValue]
    ) -> (id: String, bytes: [UInt8])? {
        var added: [JSONValue] = []
        var updated: [JSONValue] = []
        var deleted: [JSONValue] = []
        for resource in resources {
            guard let id = resource["id"]?.stringValue else { continue }
            guard let old = before[id] else {
                added.append(resource)
                continue
            }
            if old != resource, let change = difference(from: old, to: resource) { updated.append(change) }
        }
        for (id, old) in before where now[id] == nil {
            deleted.append(.object(["id": .string(id), "type": old["type"] ?? .null, "id_v1": old["id_v1"] ?? ""]))
        }
        guard !(added.isEmpty && updated.isEmpty && deleted.isEmpty) else { return nil }
        return batch(number, time: time, [("add", added), ("update", updated), ("delete", deleted)])
    }

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

    /// One batch as a Server-Sent Event, with its ID: `id: <seconds>:<n>` and a `data` line holding an event
    /// for each kind of change there is.
    static func batch(_ number: UInt64, time: WallTime, _ kinds: [(String, [JSONValue])]) -> (
        id: String, bytes: [UInt8]
    ) {
        let seconds = time.microsecondsSinceEpoch / 1_000_000
        let id = "\(seconds):\(number)"
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
        return (id, Array("id: \(id)\ndata: \(JSONValue.array(events).serialized())\n\n".utf8))
    }
}
