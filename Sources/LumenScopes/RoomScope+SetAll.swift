import LumenModel
import LumenProtocol
import LumenSimulation

extension RoomScope {
    /// `setAll`: one group command to every light of the room, answered once each light has applied or
    /// missed it.
    var setAll: Action {
        let (scopeContext, id) = (scopeContext, id)
        return Action(waitingForDevices: { arguments async throws(LumenError) in
            let (change, transitionMs) = try LightChange.command(
                arguments, connection: "setAll", at: ["room": .string(id.rawValue)])
            let ticket = try await scopeContext.home.setAll(change, in: id, transitionMs: transitionMs)
            return WriteCompletion { observer in
                ticket.whenSettled { outcome in
                    observer(outcome.map { .object(["lights": .array($0.map(\.jsonValue))]) })
                }
            }
        })
    }
}
