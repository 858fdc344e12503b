import LumenModel
import LumenProtocol

/// What submitting a command gives back: its outcome, when the device took it as it was made, or a ticket
/// that settles when the device answers.
///
/// Most commands to an instant device are carried out as they are submitted; their receipt carries the
/// outcome itself, with no ticket made, locked and freed for it.
///
/// ```swift
/// switch try home.send(LightChange(isOn: true), to: "kitchen.spot-1") {
/// case .settled(let result): print(result)
/// case .waiting(let ticket): print(try await ticket.value)
/// }
/// ```
public enum CommandReceipt: Sendable {
    /// The device has answered already.
    case settled(Result<LightState, LumenError>)
    /// The device answers later, through the ticket.
    case waiting(CommandTicket)

    /// A ticket for the outcome, settled already when the receipt is.
    package var ticket: CommandTicket {
        switch self {
        case .settled(let result): CommandTicket(result: result)
        case .waiting(let ticket): ticket
        }
    }
}
