import LumenModel
import LumenProtocol
import Synchronization

/// The outcome of a command to a simulated device, delivered when the device confirms or fails it.
///
/// A ticket is handed out the moment a command is queued, so a caller can queue commands in order and then
/// wait for each on its own: a slow light never holds up another.
///
/// ```swift
/// let ticket = try await home.submit(LightChange(isOn: true), to: "kitchen.spot-1")
/// let state = try await ticket.value
/// ```
public final class CommandTicket: Sendable {
    private enum State {
        case pending([CheckedContinuation<Result<LightState, LumenError>, Never>])
        case done(Result<LightState, LumenError>)
    }

    private let state = Mutex<State>(.pending([]))

    init() {}

    /// A ticket that is already settled.
    init(result: Result<LightState, LumenError>) { state.withLock { $0 = .done(result) } }

    /// The light's state once the command took effect.
    /// - Throws: ``LumenError`` when the device was unreachable, timed out, or the command was cancelled.
    public var value: LightState {
        get async throws(LumenError) {
            try await result.get()
        }
    }

    /// The outcome, without throwing.
    public var result: Result<LightState, LumenError> {
        get async {
            // Settled already (an instant device, usually): no suspension, so no trip through the executor.
            if let settled = settledResult { return settled }
            return await withCheckedContinuation { continuation in
                let settled: Result<LightState, LumenError>? = state.withLock { state in
                    switch state {
                    case .pending(var waiters):
                        waiters.append(continuation)
                        state = .pending(waiters)
                        return nil
                    case .done(let result):
                        return result
                    }
                }
                if let settled { continuation.resume(returning: settled) }
            }
        }
    }

    /// Whether the command has taken effect or failed.
    public var isSettled: Bool { state.withLock { if case .done = $0 { true } else { false } } }

    /// The outcome, when the device has already answered; `nil` while it has not.
    public var settledResult: Result<LightState, LumenError>? {
        state.withLock { if case .done(let result) = $0 { result } else { nil } }
    }

    /// Settles the ticket; later calls are ignored.
    func settle(_ result: Result<LightState, LumenError>) {
        let waiters: [CheckedContinuation<Result<LightState, LumenError>, Never>] = state.withLock { state in
            guard case .pending(let waiters) = state else { return [] }
            state = .done(result)
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: result) }
    }
}
