import LumenLoop
import LumenModel
import LumenProtocol
import Synchronization

/// Routes the simulation's change events to the sessions that asked for them.
///
/// A subscription is filed under the one property it watches, so a change costs a dictionary lookup and a
/// notice per subscriber, whatever the size of the home. The hub is called on the home's loop as the home
/// changes, and hands each loop the notices of the sessions it serves, which that loop queues before anything
/// the home's loop hands it afterwards (a write's reply, say).
final class SubscriptionHub: Sendable {
    /// The subscribers to one property whose sessions one loop serves.
    private struct LoopSubscribers {
        let loop: EventLoop
        /// By subscription ID, in order: a session subscribed twice to one value hears of its change in the
        /// order it subscribed, not in a dictionary's, which differs from one process to the next.
        var sessions: [(subscription: UInt64, session: Session)] = []

        /// Where `subscription` is, or would go.
        func index(of subscription: UInt64) -> Int {
            var (low, high) = (0, sessions.count)
            while low < high {
                let middle = (low + high) / 2
                if sessions[middle].subscription < subscription { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }

    private struct State {
        /// By property, then by loop: a change hands each other loop its own subscribers in one piece, so the
        /// publishing thread touches none of another loop's sessions.
        var subscribers: [PropertyKey: [ObjectIdentifier: LoopSubscribers]] = [:]
        var sessions: [UInt64: Session] = [:]
    }

    private let state = Locked(State())
    private let nextSubscription = Atomic<UInt64>(1)

    /// A new subscription ID, unique in this daemon.
    func makeSubscriptionID() -> UInt64 { nextSubscription.add(1, ordering: .relaxed).oldValue }

    func register(_ session: Session) { state.withLock { $0.sessions[session.id] = session } }

    func unregister(_ session: Session) { _ = state.withLock { $0.sessions.removeValue(forKey: session.id) } }

    func add(_ subscription: UInt64, key: PropertyKey, session: Session) {
        let group = ObjectIdentifier(session.eventLoop)
        state.withLock { state in
            var subscribers = state.subscribers[key, default: [:]][group] ?? LoopSubscribers(loop: session.eventLoop)
            // IDs are made in order, so this is nearly always the end.
            subscribers.sessions.insert((subscription, session), at: subscribers.index(of: subscription))
            state.subscribers[key, default: [:]][group] = subscribers
        }
    }

    func remove(_ subscription: UInt64, key: PropertyKey) {
        state.withLock { state in
            guard var groups = state.subscribers.removeValue(forKey: key) else { return }
            for group in Array(groups.keys) {
                guard var subscribers = groups.removeValue(forKey: group) else { continue }
                let index = subscribers.index(of: subscription)
                if index < subscribers.sessions.count, subscribers.sessions[index].subscription == subscription {
                    subscribers.sessions.remove(at: index)
                }
                if !subscribers.sessions.isEmpty { groups[group] = subscribers }
            }
            if !groups.isEmpty { state.subscribers[key] = groups }
        }
    }

    /// The subscriptions to `key`, across every loop.
    func subscriberCount(_ key: PropertyKey) -> Int {
        state.withLock { $0.subscribers[key]?.values.reduce(0) { $0 + $1.sessions.count } ?? 0 }
    }

    /// Delivers one change event.
    func publish(_ event: ChangeEvent) {
        switch event.change {
        case .property(let key, let value):
            guard let groups = state.withLock({ $0.subscribers[key] }) else { return }
            var encoded: [UInt8] = []
            value.write(to: &encoded)
            // Each loop is handed its own subscribers, so that every loop queues and sends its sessions' notices
            // at once, after what it was handed before: changes come one at a time from the home's loop, and
            // reach each session in the order they were made.
            for group in groups.values {
                // A copy of its own for each loop: every outbox keeps a reference to the bytes, and a count of
                // references shared by two loops' threads would bounce between their cores.
                let encoded = encoded.withUnsafeBufferPointer { Array($0) }
                let sessions = group.sessions
                group.loop.execute { _ in
                    for (subscription, session) in sessions {
                        session.outbox.publish(subscription, encodedValue: encoded)
                    }
                }
            }
        case .removed(let entity):
            let sessions = state.withLock { Array($0.sessions.values) }
            for session in sessions { session.eventLoop.execute { _ in session.entityRemoved(entity) } }
        }
    }
}
