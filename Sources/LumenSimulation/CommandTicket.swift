import LumenModel
import LumenProtocol
import Synchronization

/// The outcome of a command to a simulated device, delivered when the device confirms or fails it.
///
/// A ticket is handed out the moment a command is queued, so a caller can queue commands in order and then
/// wait for each on its own: a slow light never holds up another.
///
/// ```swift
/// let ticket = try await home.send(LightChange(isOn: true), to: "kitchen.spot-1").ticket
/// let state = try await ticket.value
/// ```
public final class CommandTicket: Sendable {
    /// Told the outcome, on the thread that settles the ticket.
    package typealias Observer = @Sendable (Result<LightState, LumenError>) -> Void

    private enum State {
        case pending([Observer])
        /// Its observers are being told; those added meanwhile wait their turn. Not yet settled to anyone else, so
        /// that whoever reads the outcome on another thread finds what the observers made.
        case telling(Result<LightState, LumenError>, added: [Observer])
        case done(Result<LightState, LumenError>)
    }

    private let state = Locked<State>(.pending([]))
    /// The room's group command this is one light's part of: told when this settles.
    private let group: GroupCompletion?

    /// A ticket that settles when its device answers; one light's part of `group`, when given.
    init(group: GroupCompletion? = nil) {
        self.group = group
        group?.addLight()
    }

    /// A ticket that is already settled.
    init(result: Result<LightState, LumenError>) {
        group = nil
        state.withLock { $0 = .done(result) }
    }

    /// The light's state once the command took effect.
    /// - Throws: ``LumenError`` when the device was unreachable, timed out, or the command was cancelled.
    package var value: LightState {
        get async throws(LumenError) {
            try await result.get()
        }
    }

    /// The outcome, without throwing.
    package var result: Result<LightState, LumenError> {
        get async {
            // Settled already (an instant device, usually): no suspension, so no trip through the executor.
            if let settled = settledResult { return settled }
            return await withCheckedContinuation { continuation in
                whenSettled { continuation.resume(returning: $0) }
            }
        }
    }

    /// Calls `observer` with the outcome: now, on the caller's thread, when the ticket is settled already;
    /// else as it settles, on the home's executor, at that moment of the home's (before the home goes on to its
    /// next event), where what it hands an event loop takes its place among the home's notices.
    package func whenSettled(_ observer: @escaping Observer) {
        let settled: Result<LightState, LumenError>? = state.withLock { state in
            switch state {
            case .pending(var observers):
                observers.append(observer)
                state = .pending(observers)
                return nil
            case .telling(let result, var added):
                added.append(observer)
                state = .telling(result, added: added)
                return nil
            case .done(let result):
                return result
            }
        }
        if let settled { observer(settled) }
    }

    /// The outcome, once the device has answered and every observer has been told; `nil` until then.
    package var settledResult: Result<LightState, LumenError>? {
        state.withLock { if case .done(let result) = $0 { result } else { nil } }
    }

    /// Settles the ticket, once every observer is told (those an observer adds too, after the others); later
    /// calls are ignored.
    func settle(_ result: Result<LightState, LumenError>) {
        let first: [Observer]? = state.withLock { state in
            guard case .pending(let observers) = state else { return nil }
            state = observers.isEmpty ? .done(result) : .telling(result, added: [])
            return observers
        }
        guard var observers = first else { return }
        while !observers.isEmpty {
            for observer in observers { observer(result) }
            observers = state.withLock { state in
                guard case .telling(_, let added) = state, !added.isEmpty else {
                    state = .done(result)
                    return []
                }
                state = .telling(result, added: [])
                return added
            }
        }
        group?.lightAnswered()
    }
}

/// Settles when the last light of a room's group command has answered, on the home's executor as that light's
/// ticket does: the command's answer then waits for one moment of the home's, not for each light in turn, so it
/// goes out at the same place among the session's replies and notices whatever order its lights answer in.
final class GroupCompletion: Sendable {
    /// Settled (with no state of its own to report) when every light has answered.
    let ticket = CommandTicket()
    private let unanswered = Atomic<Int>(0)

    /// Counts one more light's ticket; all are counted before the first can settle
    /// (``Home/setAll(_:in:transitionMs:)``).
    fileprivate func addLight() { unanswered.add(1, ordering: .relaxed) }

    fileprivate func lightAnswered() {
        if unanswered.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
            ticket.settle(.success(.factoryDefault))
        }
    }
}
