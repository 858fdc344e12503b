import LumenModel
import LumenProtocol
import Synchronization

/// The body of one `GET /eventstream/clip/v2` response: the batches of its hub, as they come.
///
/// It says nothing until the hub has taken the look that later ones are compared with (``begin()``): the server
/// sends the response's head with its first bytes, so a client answered `200` is sent every change after that.
/// The hub adds to it from any thread, and the server reads it on its loop, so its state is under a lock; `wake`
/// hops to the server's loop itself.
final class HueEventStream: HTTPStreamBody {
    private struct State {
        var pending: [UInt8] = []
        var offset = 0
        var wake: (@Sendable () -> Void)?
        var hasBegun = false
        var isEnded = false
        /// Ended for having more than ``HueEventHub/pendingLimit`` waiting.
        var isCut = false
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

    /// Once it had more than ``HueEventHub/pendingLimit`` waiting.
    var isCut: Bool { state.withLock { $0.isCut } }

    func finish() {
        state.withLock { $0.isEnded = true }
        hub?.close(self)
    }

    /// The hub has its first look: the stream begins, with a comment before whatever waits. `true` when it had
    /// not begun before.
    func begin() -> Bool {
        state.withLock { state in
            guard !state.hasBegun else { return false }
            state.hasBegun = true
            state.pending.insert(contentsOf: ": hi\n\n".utf8, at: state.offset)
            return true
        }
    }

    /// Adds `bytes` to what is to be sent; a client that has more than ``HueEventHub/pendingLimit`` waiting is
    /// let go.
    func send(_ bytes: [UInt8]) {
        state.withLock { state in
            guard !state.isEnded else { return }
            if state.pending.count - state.offset + bytes.count > HueEventHub.pendingLimit {
                state.isEnded = true
                state.isCut = true
                state.pending = []
                state.offset = 0
            } else {
                state.pending += bytes
            }
        }
    }

    /// Ends the stream: the server closes it at its next turn.
    func end() {
        state.withLock { $0.isEnded = true }
        wakeServer()
    }

    /// Tells the server there is more to send (or that the stream ended).
    func wakeServer() { state.withLock { $0.wake }?() }
}
