import LumenLoop
import LumenProtocol

/// What a session has to send, in order: replies (never dropped) and subscription notices (coalesced for a
/// client that does not keep up).
///
/// Replies go out in the order their requests were read: each request's place is reserved as it is read
/// (``reserve()``), and a reply filled while a place before it is still open waits for it. A reply takes its
/// place among the notices when it and every reply before it are filled; a notice, when it comes. So what a
/// client reads depends on the order things happened on the session's loop, never on when the loop got round
/// to writing, and a reply that waits for the disk (``hold(_:)``) keeps the place it was given, with what
/// comes after it waiting behind it.
///
/// While less than ``coalescingBytes`` wait unsent, each change is a notice of its own, written out as it
/// comes: what a client that keeps up reads does not depend on when the loop got round to writing. Past that,
/// a subscription has at most one notice waiting. When its value changes again before the notice is sent,
/// the waiting notice is updated in place to carry the latest value and `seq`, so a slow reader gets the
/// newest value and can tell from `seq` how many it skipped, and memory stays bounded by the number of
/// subscriptions plus the reply limit.
final class Outbox: Sendable {
    private enum Item {
        /// Whole lines, newlines included: replies queued one after another share a chunk.
        case bytes([UInt8])
        case notice(UInt64)
        /// A reply given its place before its bytes (``Outbox/hold(_:)``): what comes after it waits for them.
        case held(UInt64)
        /// Already taken: left in the taken item's place, so the item's bytes have a single owner.
        case taken
    }

    /// Replies are gathered into chunks of about this size, so that a backlog costs its bytes, not an
    /// allocation each.
    static let chunkBytes = 64 * 1_024

    /// The unsent bytes from which a change no longer makes a notice of its own but updates its subscription's
    /// waiting one: more than a socket's buffer holds, so a client reading as fast as it can is sent every
    /// change, however its reads and lumend's writes fall.
    static let coalescingBytes = 256 * 1_024

    private struct Subscription {
        /// The latest value, already in its wire form: a change fanned out to many subscribers is encoded
        /// once, not once for each.
        var value: [UInt8]
        var seq: UInt64
        var queued: Bool
    }

    /// A reply whose place was reserved and that is not yet among the items.
    private enum OpenReply {
        case reserved
        /// Filled: its line, without the newline (none for a request that has no reply).
        case filled([UInt8]?)
        case held
    }

    /// A reply held in its place among the items.
    private enum HeldReply {
        case waiting
        /// Filled: its line, without the newline (none for a request that has no reply).
        case filled([UInt8]?)
    }

    private struct State {
        /// Replies reserved and not yet placed, from `open[openHead]`, whose number is `firstOpen`, on.
        var open: [OpenReply] = []
        var openHead = 0
        var firstOpen: UInt64 = 0
        /// Held replies among the items, by their numbers.
        var held: [UInt64: HeldReply] = [:]
        var items: [Item] = []
        var head = 0
        /// Replies after the last item, still being gathered into a chunk.
        var gathering: [UInt8] = []
        var replyBytes = 0
        var subscriptions: [UInt64: Subscription] = [:]
        var closed = false
        var wakeScheduled = false
    }

    /// Touched only on the session's loop.
    private let state: LoopBound<State>
    /// The most reply bytes that may wait unsent before the client is judged not to be reading.
    let replyByteLimit: Int
    /// What this session's unsent bytes past its own share draw on, with other sessions'.
    let budget: UnsentReplyBudget
    /// Called when there is something to send and no wake-up is already pending.
    private let wake: @Sendable () -> Void

    init(
        replyByteLimit: Int, on loop: EventLoop, budget: UnsentReplyBudget = .unbounded,
        wake: @escaping @Sendable () -> Void
    ) {
        state = LoopBound(State(), on: loop)
        self.replyByteLimit = replyByteLimit
        self.budget = budget
        self.wake = wake
    }

    /// Why a session is judged not to read its replies: what it left unsent before another reply came.
    enum Overflow: Sendable, Equatable {
        /// More than the session's own limit unsent.
        case pastLimit(unsent: Int, limit: Int)
        /// More than the session's own share unsent, with the budget the sessions share spent.
        case sharedBudgetSpent(unsent: Int)

        /// The reason the log gives for the disconnection.
        var reason: String {
            switch self {
            case .pastLimit(let unsent, let limit): "\(unsent) bytes unsent, past the limit of \(limit)"
            case .sharedBudgetSpent(let unsent):
                "\(unsent) bytes unsent, while the sessions together hold more than lumend keeps for them"
            }
        }
    }

    /// Queues a reply or notification line.
    /// - Returns: why the client is judged not to read, when the unsent replies before this one have passed
    ///   the limit (or the session's own share, with the ``budget`` spent): the caller disconnects the client.
    ///   `nil` otherwise. A client is judged by what it left unread before another reply came, not by the size
    ///   of this one, so one reply larger than the limit (a large home's snapshot) goes out whole to a client
    ///   that reads it, and one that does not read costs the limit and one reply.
    /// - Parameter wakeWriter: `false` when the caller flushes right away itself (it saves a thread hop).
    @discardableResult
    func enqueue(_ bytes: [UInt8], wakeWriter: Bool = true) -> Overflow? {
        let (overflow, needsWake) = state.with { state -> (Overflow?, Bool) in
            guard !state.closed else { return (nil, false) }
            let unreadBefore = state.replyBytes
            // Judged before this reply draws on the budget.
            let overflow = judge(unread: unreadBefore)
            state.gathering.append(contentsOf: bytes)
            state.gathering.append(UInt8(ascii: "\n"))
            if state.gathering.count >= Self.chunkBytes { Self.closeChunk(&state) }
            state.replyBytes += bytes.count + 1
            budget.change(from: unreadBefore, to: state.replyBytes)
            return (overflow, wakeWriter && Self.scheduleWake(&state))
        }
        if needsWake { wake() }
        return overflow
    }

    /// Reserves the place of the next reply, in the order requests are read.
    func reserve() -> UInt64 {
        state.with { state in
            state.open.append(.reserved)
            return state.firstOpen + UInt64(state.open.count - state.openHead - 1)
        }
    }

    /// Fills a reserved (or held) place with its reply (`nil`: none is owed), and places what that lets go.
    /// - Returns: why the client is judged not to read, when the unsent replies before this one have passed the
    ///   limit, as ``enqueue(_:wakeWriter:)``; `nil` otherwise.
    /// - Parameter wakeWriter: `false` when the caller flushes right away itself.
    @discardableResult
    func fillReply(_ slot: UInt64, with bytes: [UInt8]?, wakeWriter: Bool = true) -> Overflow? {
        let (overflow, needsWake) = state.with { state -> (Overflow?, Bool) in
            // Held: its place among the items is fixed; what waits behind it may go once it does.
            guard !state.closed, slot >= state.firstOpen || state.held[slot] != nil else { return (nil, false) }
            let unreadBefore = state.replyBytes
            let overflow = judge(unread: unreadBefore)
            state.replyBytes += bytes.map { $0.count + 1 } ?? 0
            budget.change(from: unreadBefore, to: state.replyBytes)
            if slot < state.firstOpen {
                state.held[slot] = .filled(bytes)
            } else {
                state.open[state.openHead + Int(slot - state.firstOpen)] = .filled(bytes)
                Self.placeReplies(&state)
            }
            return (overflow, wakeWriter && Self.scheduleWake(&state))
        }
        if needsWake { wake() }
        return overflow
    }

    /// Why a session that left `unread` bytes unsent is judged not to read, if it is.
    private func judge(unread: Int) -> Overflow? {
        if unread > replyByteLimit { return .pastLimit(unsent: unread, limit: replyByteLimit) }
        return budget.admits(unsent: unread) ? nil : .sharedBudgetSpent(unsent: unread)
    }

    /// Gives a reserved place its position among what is sent, as if it were filled now, its bytes to come with
    /// ``fillReply(_:with:wakeWriter:)``: what comes meanwhile waits behind it.
    func hold(_ slot: UInt64) {
        state.with { state in
            guard !state.closed, slot >= state.firstOpen else { return }
            state.open[state.openHead + Int(slot - state.firstOpen)] = .held
            Self.placeReplies(&state)
        }
    }

    /// Moves the replies at the head of the open ones, as far as the first still reserved, among the items.
    private static func placeReplies(_ state: inout State) {
        while state.openHead < state.open.count {
            switch state.open[state.openHead] {
            case .reserved:
                return
            case .filled(let line):
                if let line {
                    state.gathering.append(contentsOf: line)
                    state.gathering.append(UInt8(ascii: "\n"))
                    if state.gathering.count >= chunkBytes { closeChunk(&state) }
                }
            case .held:
                closeChunk(&state)
                state.items.append(.held(state.firstOpen))
                state.held[state.firstOpen] = .waiting
            }
            state.open[state.openHead] = .reserved
            state.openHead += 1
            state.firstOpen += 1
            if state.openHead == state.open.count {
                state.open.removeAll(keepingCapacity: state.open.count < 1_024)
                state.openHead = 0
            } else if state.openHead > 4_096 {
                state.open.removeFirst(state.openHead)
                state.openHead = 0
            }
        }
    }

    /// Registers a subscription at `seq` 0 with its current value.
    func addSubscription(_ id: UInt64, value: JSONValue) {
        let encoded = value.serialized()
        state.with { $0.subscriptions[id] = Subscription(value: Array(encoded.utf8), seq: 0, queued: false) }
    }

    /// Forgets a subscription; a notice already waiting for it is dropped.
    func removeSubscription(_ id: UInt64) {
        _ = state.with { $0.subscriptions.removeValue(forKey: id) }
    }

    /// Records a new value for a subscription, already in its wire form (``JSONValue/write(to:)``), and makes
    /// sure one notice for it is waiting.
    func publish(_ id: UInt64, encodedValue value: [UInt8]) {
        let needsWake = state.with { state -> Bool in
            // Changed in place: a fan-out does this for every subscriber, and a copy of the entry would count
            // one more reference to the bytes every subscriber shares.
            guard !state.closed, let index = state.subscriptions.index(forKey: id) else { return false }
            state.subscriptions.values[index].value = value
            state.subscriptions.values[index].seq += 1
            guard !state.subscriptions.values[index].queued else { return false }
            if state.replyBytes < Self.coalescingBytes {
                // Written out now, as a reply is, so a later change cannot fold into it.
                let before = state.gathering.count
                Self.appendNotice(id, state.subscriptions.values[index], to: &state.gathering)
                let unreadBefore = state.replyBytes
                state.replyBytes += state.gathering.count - before
                budget.change(from: unreadBefore, to: state.replyBytes)
                if state.gathering.count >= Self.chunkBytes { Self.closeChunk(&state) }
                return Self.scheduleWake(&state)
            }
            state.subscriptions.values[index].queued = true
            Self.closeChunk(&state)
            state.items.append(.notice(id))
            return Self.scheduleWake(&state)
        }
        if needsWake { wake() }
    }

    private static let changedPrefix = Array(#"{"jsonrpc":"2.0","method":"changed","params":{"subscription":"#.utf8)
    private static let valueKey = Array(#","value":"#.utf8)
    private static let seqKey = Array(#","seq":"#.utf8)
    private static let changedSuffix = Array("}}\n".utf8)

    /// Appends the `changed` notice of subscription `id`, as `Wire.notification(.changed, …)` writes it, with
    /// the value's bytes spliced in.
    private static func appendNotice(_ id: UInt64, _ subscription: Subscription, to output: inout [UInt8]) {
        output.append(contentsOf: changedPrefix)
        appendDecimal(id, to: &output)
        output.append(contentsOf: valueKey)
        subscription.value.withUnsafeBufferPointer { output.append(contentsOf: $0) }
        output.append(contentsOf: seqKey)
        appendDecimal(subscription.seq, to: &output)
        output.append(contentsOf: changedSuffix)
    }

    /// Ends the chunk being gathered, so that what comes next is sent after it.
    private static func closeChunk(_ state: inout State) {
        guard !state.gathering.isEmpty else { return }
        state.items.append(.bytes(state.gathering))
        state.gathering = []
    }

    /// Appends `value` in decimal, with no `String` made on the way: a fan-out writes two for each notice.
    static func appendDecimal(_ value: UInt64, to bytes: inout [UInt8]) {
        let start = bytes.count
        var rest = value
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        bytes[start...].reverse()
    }

    private static func scheduleWake(_ state: inout State) -> Bool {
        guard !state.wakeScheduled else { return false }
        state.wakeScheduled = true
        return true
    }

    /// Takes up to about `maxBytes` of lines to send (each ending in a newline), encoding notices with
    /// their latest values. Returns an empty array, and re-arms the wake-up, when nothing is waiting.
    func take(maxBytes: Int) -> [UInt8] {
        state.with { state in
            Self.closeChunk(&state)
            let unreadBefore = state.replyBytes
            defer { budget.change(from: unreadBefore, to: state.replyBytes) }
            var output: [UInt8] = []
            var blocked = false
            while state.head < state.items.count, output.count < maxBytes {
                let item = state.items[state.head]
                if case .held(let slot) = item {
                    // What comes after a reply waiting for its bytes waits with it.
                    guard case .filled(let line)? = state.held[slot] else {
                        blocked = true
                        break
                    }
                    state.held[slot] = nil
                    if let line {
                        state.replyBytes -= line.count + 1
                        output.append(contentsOf: line)
                        output.append(UInt8(ascii: "\n"))
                    }
                    state.items[state.head] = .taken
                    state.head += 1
                    continue
                }
                state.items[state.head] = .taken
                state.head += 1
                switch item {
                case .bytes(let bytes):
                    state.replyBytes -= bytes.count
                    if output.isEmpty { output = bytes } else { output.append(contentsOf: bytes) }
                case .taken, .held:
                    continue
                case .notice(let id):
                    guard let index = state.subscriptions.index(forKey: id), state.subscriptions.values[index].queued
                    else { continue }
                    state.subscriptions.values[index].queued = false
                    Self.appendNotice(id, state.subscriptions.values[index], to: &output)
                }
            }
            if state.head == state.items.count {
                state.items.removeAll(keepingCapacity: state.items.count < 1_024)
                state.head = 0
                state.wakeScheduled = false
            } else if blocked {
                // Woken again when the held reply is filled.
                state.wakeScheduled = false
            }
            if state.head > 4_096 {
                state.items.removeFirst(state.head)
                state.head = 0
            }
            return output
        }
    }

    /// Bytes of replies waiting (and of notices written out as replies are).
    var pendingReplyBytes: Int { state.with { $0.replyBytes } }

    /// Stops accepting output and frees what is waiting.
    func close() {
        state.with { state in
            state.closed = true
            budget.change(from: state.replyBytes, to: 0)
            state.replyBytes = 0
            state.items = []
            state.gathering = []
            state.head = 0
            state.subscriptions = [:]
            state.open = []
            state.held = [:]
        }
    }
}

/// The outbox as the place of a session's replies, when nothing else is to happen as one is filled (an in-process
/// session reads what is waiting when it is done).
extension Outbox: ReplySink {
    func fill(_ slot: UInt64, with bytes: [UInt8]?) { fillReply(slot, with: bytes) }
}
