import FoundationEssentials
import LumenScopes
import LumenService
import Synchronization

/// The server's limits: each one protects the daemon from a client that is hostile, broken or slow.
public struct ServerLimits: Sendable, Hashable {
    /// The longest request line, in bytes; the rest of a longer line is skipped.
    var maxLineBytes = 1 << 20
    /// The deepest JSON nesting a request may have.
    var maxDepth = 64
    /// Scopes one session may have open.
    var maxScopesPerSession = 1_024
    /// Subscriptions one session may hold.
    var maxSubscriptionsPerSession = 4_096
    /// Subscriptions all sessions but the owner's (``Session/isOwner``) hold together, some 350 bytes each: the
    /// owner's are held only to ``maxSubscriptionsPerSession``, so others cannot lock them out.
    /// The HTTP front holds its sessions to ``RPCOverHTTP/Settings/maxSharedSubscriptions`` instead.
    var maxSharedSubscriptions = 262_144
    /// Writes one session may have waiting on devices.
    var maxInflightPerSession = 1_024
    /// Sessions the daemon serves at once: each an open descriptor and a few KiB on an event loop.
    package var maxSessions = 4_096
    /// Sessions one user (peer UID) may hold at once: fewer than ``maxSessions``, so that one local user
    /// cannot lock out another.
    package var maxSessionsPerUser = 3_072
    /// How long a connection may go without a complete request: from connecting until its first, and from
    /// the first byte of a line until its end. Then it is closed, so idle or trickling connections cannot
    /// hold sessions others need.
    package var requestGrace = Duration.seconds(10)
    /// Unsent reply bytes after which a client that is not reading is disconnected: judged when another reply
    /// comes, by those before it, so that one reply larger than this still reaches a client that reads it.
    /// Also the most a batch's replies may come to before the rest of the batch is refused.
    var maxPendingReplyBytes = 8 << 20
    /// Unsent reply bytes a session may hold without drawing on ``maxSharedUnsentReplyBytes``: more than a client
    /// that reads ever leaves (notices are written out one by one until ``Outbox/coalescingBytes`` wait, and
    /// replies go in chunks of ``Outbox/chunkBytes``).
    var ownUnsentReplyBytes = Outbox.coalescingBytes + Outbox.chunkBytes
    /// Unsent reply bytes past each session's own ``ownUnsentReplyBytes`` that all sessions but the owner's
    /// (``Session/isOwner``) hold together: once past it, such a session holding more than its own share when
    /// another reply comes is disconnected, as one past ``maxPendingReplyBytes`` is, so that clients that do not
    /// read cannot together hold that limit each (4,096 sessions × 8 MiB).
    var maxSharedUnsentReplyBytes = 256 << 20
    /// Event loops serving the connections: one per core.
    package var eventLoops = ProcessInfo.processInfo.activeProcessorCount

    /// The defaults.
    package init() {}
}

/// Who may open the `simulation` scope.
public enum SimulationAccess: String, Sendable, CaseIterable {
    /// Root and the daemon's own user.
    case owner
    /// Everyone who can connect to the socket.
    case any
}

/// What every session of a server shares.
final class ServerContext: Sendable {
    let scopeContext: ScopeContext
    let hub = SubscriptionHub()
    /// What the sessions' unsent replies draw on past their own shares.
    let unsentReplies: UnsentReplyBudget
    let limits: ServerLimits
    let logger: Logger
    private let shuttingDown = Atomic<Bool>(false)
    /// Subscriptions held by sessions but the owner's; sessions on every loop count here, so it is atomic.
    private let sharedSubscriptions = Atomic<Int>(0)

    init(scopeContext: ScopeContext, limits: ServerLimits, logger: Logger) {
        self.scopeContext = scopeContext
        self.limits = limits
        self.logger = logger
        unsentReplies = UnsentReplyBudget(
            ownBytes: limits.ownUnsentReplyBytes, sharedBytes: limits.maxSharedUnsentReplyBytes)
    }

    /// Takes one of ``ServerLimits/maxSharedSubscriptions``; `false` when none is left.
    func takeSharedSubscription() -> Bool {
        if sharedSubscriptions.add(1, ordering: .relaxed).newValue <= limits.maxSharedSubscriptions { return true }
        sharedSubscriptions.subtract(1, ordering: .relaxed)
        return false
    }

    /// Gives back one taken by ``takeSharedSubscription()``.
    func returnSharedSubscription() { sharedSubscriptions.subtract(1, ordering: .relaxed) }

    /// Subscriptions held from ``ServerLimits/maxSharedSubscriptions``.
    var sharedSubscriptionCount: Int { sharedSubscriptions.load(ordering: .relaxed) }

    var isShuttingDown: Bool { shuttingDown.load(ordering: .relaxed) }
    func beginShutdown() { shuttingDown.store(true, ordering: .relaxed) }
}
