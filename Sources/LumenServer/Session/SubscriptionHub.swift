import LumenModel
import LumenScopes
import Synchronization

/// Routes the simulation's change events to the sessions that asked for them.
///
/// A subscription is filed under the one property it watches, so a change costs a dictionary lookup and a
/// notice per subscriber, whatever the size of the home. The hub is called on the simulation's event loop,
/// synchronously, so by the time a `simulation.advance` returns, every notice it caused is queued.
final class SubscriptionHub: Sendable {
    private struct State {
        var subscribers: [PropertyKey: [UInt64: Session]] = [:]
        var sessions: [UInt64: Session] = [:]
    }

    private let state = Mutex(State())
    private let nextSubscription = Atomic<UInt64>(1)

    /// A new subscription ID, unique in this daemon.
    func makeSubscriptionID() -> UInt64 { nextSubscription.add(1, ordering: .relaxed).oldValue }

    func register(_ session: Session) { state.withLock { $0.sessions[session.id] = session } }

    func unregister(_ session: Session) { _ = state.withLock { $0.sessions.removeValue(forKey: session.id) } }

    func add(_ subscription: UInt64, key: PropertyKey, session: Session) {
        state.withLock { $0.subscribers[key, default: [:]][subscription] = session }
    }

    func remove(_ subscription: UInt64, key: PropertyKey) {
        state.withLock { state in
            state.subscribers[key]?[subscription] = nil
            if state.subscribers[key]?.isEmpty == true { state.subscribers[key] = nil }
        }
    }

    var sessionCount: Int { state.withLock { $0.sessions.count } }

    /// Delivers one change event.
    func publish(_ event: ChangeEvent) {
        switch event.change {
        case .property(let key, let value):
            let targets = state.withLock { $0.subscribers[key] }
            guard let targets else { return }
            var encoded: [UInt8] = []
            value.write(to: &encoded)
            for (subscription, session) in targets { session.outbox.publish(subscription, encodedValue: encoded) }
        case .removed(let entity):
            let sessions = state.withLock { Array($0.sessions.values) }
            for session in sessions { session.entityRemoved(entity) }
        }
    }
}
