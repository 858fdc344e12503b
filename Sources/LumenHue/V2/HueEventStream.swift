import LumenProtocol

/// The body of one `GET /eventstream/clip/v2` response: the batches of its hub, as they come.
///
/// It says nothing until the hub has taken the look that later ones are compared with (``begin()``): the server
/// sends the response's head with its first bytes, so a client answered `200` is sent every change after that.
/// The hub adds to it from any thread, and the server reads it on its loop, so its state is under a lock; `wake`
/// hops to the server's loop itself.
final class HueEventStream: HTTPStreamBody {
    private struct State {
        /// The batches to be sent, oldest first, from `first` on; of the one at `first`, the bytes before `offset`
        /// are sent. Each is the array the hub made, shared with the hub and every other stream it went to: a
        /// stream whose client stops reading holds the batches it is owed, not a copy of them, and lets go of
        /// each once it is sent.
        var batches: [[UInt8]] = []
        var first = 0
        var offset = 0
        /// The bytes of `batches` not yet sent: what ``HueEventHub/pendingLimit`` bounds.
        var waiting = 0
        var wake: (@Sendable () -> Void)?
        var hasBegun = false
        var isEnded = false
        /// Ended for having more than ``HueEventHub/pendingLimit`` waiting.
        var isCut = false

        /// Ends the stream: nothing more is sent, so what waits is let go now, not when the connection closes.
        mutating func end() {
            isEnded = true
            batches = []
            first = 0
            offset = 0
            waiting = 0
        }
    }

    private let state = Locked(State())
    private weak let hub: HueEventHub?
    /// The key of the user it was opened for.
    let key: String

    init(hub: HueEventHub, key: String) {
        self.hub = hub
        self.key = key
    }

    func start(wake: @escaping @Sendable () -> Void) { state.withLock { $0.wake = wake } }

    func next(maxBytes: Int) -> [UInt8]? {
        state.withLock { state in
            guard !state.isEnded else { return nil }
            guard state.hasBegun else { return [] }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(min(maxBytes, state.waiting))
            while bytes.count < maxBytes, state.first < state.batches.count {
                let batch = state.batches[state.first]
                let end = min(batch.count, state.offset + maxBytes - bytes.count)
                bytes += batch[state.offset..<end]
                state.offset = end
                if end == batch.count {
                    state.batches[state.first] = []
                    state.first += 1
                    state.offset = 0
                }
            }
            state.waiting -= bytes.count
            // The places of sent batches are dropped in one go once they are half the list: dropped one by one,
            // each would move every place after it, a cost that grows with how far behind the client is.
            if state.first * 2 >= state.batches.count {
                state.batches.removeFirst(state.first)
                state.first = 0
            }
            return bytes
        }
    }

    /// The bytes its buffers hold for its client, counting each batch whole though the hub and other streams
    /// share it: what a client that stops reading costs lumend at most, beside the chunk its connection is
    /// writing.
    var heldBytes: Int {
        state.withLock { state in
            state.batches.reduce(state.batches.capacity * MemoryLayout<[UInt8]>.stride) { $0 + $1.capacity }
        }
    }

    /// Once it had more than ``HueEventHub/pendingLimit`` waiting.
    var isCut: Bool { state.withLock { $0.isCut } }

    func finish() {
        state.withLock { $0.end() }
        hub?.close(self)
    }

    /// The hub has its first look: the stream begins, with a comment before whatever waits. `true` when it had
    /// not begun before.
    func begin() -> Bool {
        state.withLock { state in
            guard !state.hasBegun else { return false }
            state.hasBegun = true
            // Nothing is sent before it begins, so the comment goes before every batch waiting.
            let hello = Array(": hi\n\n".utf8)
            state.batches.insert(hello, at: state.first)
            state.waiting += hello.count
            return true
        }
    }

    /// Adds `bytes` to what is to be sent; a client that has more than ``HueEventHub/pendingLimit`` waiting is
    /// let go.
    func send(_ bytes: [UInt8]) {
        state.withLock { state in
            guard !state.isEnded else { return }
            if state.waiting + bytes.count > HueEventHub.pendingLimit {
                state.end()
                state.isCut = true
            } else {
                state.batches.append(bytes)
                state.waiting += bytes.count
            }
        }
    }

    /// Ends the stream: the server closes it at its next turn.
    func end() {
        state.withLock { $0.end() }
        wakeServer()
    }

    /// Tells the server there is more to send (or that the stream ended).
    func wakeServer() { state.withLock { $0.wake }?() }
}
