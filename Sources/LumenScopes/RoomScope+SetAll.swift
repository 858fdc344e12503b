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
            return WriteCompletion { () async throws(LumenError) in
                let deliveries = try await ticket.outcome
                try await scopeContext.commit()
                return .object(["lights": .array(deliveries.map(\.jsonValue))])
            }
        })
    }
}
