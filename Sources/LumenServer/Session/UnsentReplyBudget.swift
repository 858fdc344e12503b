import Synchronization

/// The unread replies a server's sessions (but the owner's, ``Session/isOwner``) hold together.
///
/// Each session may leave up to ``ownBytes`` unsent on its own, and up to its reply limit in all; the bytes
/// past each one's own share are counted here, across every loop. Once they pass ``sharedBytes``, a session
/// past its own share is judged not to be reading when another reply comes, as one past its limit is: so the
/// sessions that do not read hold at most the budget together, not each its limit. A client that reads leaves
/// less than its own share unsent (``ServerLimits/ownUnsentReplyBytes``), so does not meet it.
final class UnsentReplyBudget: Sendable {
    /// What a session may leave unsent without drawing on the budget.
    let ownBytes: Int
    /// What the sessions may leave unsent past their own shares, together.
    let sharedBytes: Int
    /// Atomic: the sessions of every loop count here.
    private let past = Atomic<Int>(0)

    /// A budget of `sharedBytes` past `ownBytes` each.
    init(ownBytes: Int, sharedBytes: Int) {
        self.ownBytes = ownBytes
        self.sharedBytes = sharedBytes
    }

    /// A budget that is never spent: for a session on its own.
    static let unbounded = UnsentReplyBudget(ownBytes: .max, sharedBytes: .max)

    /// Notes that a session's unsent bytes went from `old` to `new`.
    func change(from old: Int, to new: Int) {
        let delta = max(new - ownBytes, 0) - max(old - ownBytes, 0)
        if delta != 0 { past.add(delta, ordering: .relaxed) }
    }

    /// Whether a session that has `unsent` bytes waiting may be given another reply.
    func admits(unsent: Int) -> Bool {
        unsent <= ownBytes || past.load(ordering: .relaxed) <= sharedBytes
    }

    /// The bytes counted past the sessions' own shares.
    var sharedInUse: Int { past.load(ordering: .relaxed) }
}
