import LumenModel
import LumenProtocol
import LumenSimulation

extension RoomScope {
    /// `setAll`: one group command to every light of the room, answered once each light has applied or
    /// missed it.
    var setAll: Action {
        let (scopeContext, id) = (scopeContext, id)
        return Action(waitingForDevices: { arguments async throws(LumenError) in
            let change: LightChange
            let transitionMs: Double
            do throws(JSONShapeError) {
                let args = try arguments.object(allowing: [
                    "isOn", "brightness", "colorTemperature", "color", "transitionMs",
                ])
                change = LightChange(
                    isOn: try args.optional("isOn")?.bool(),
                    brightness: try args.optional("brightness")?.double(in: LightState.brightnessRange),
                    colorTemperature: try args.optional("colorTemperature")?.int(
                        in: LightState.colorTemperatureRange),
                    color: try args.optional("color").map { cursor throws(JSONShapeError) in
                        try CIEColor(cursor: cursor)
                    })
                transitionMs = try args.optional("transitionMs")?.double(in: SimulatedDurations.milliseconds) ?? 0
            } catch {
                throw LumenError(
                    .invalidParams, error.description,
                    data: ["room": .string(id.rawValue), "connection": "setAll"])
            }
            let ticket = try await scopeContext.home.setAll(change, in: id, transitionMs: transitionMs)
            return WriteCompletion { () async throws(LumenError) in
                let deliveries = try await ticket.outcome
                try await scopeContext.commit()
                return .object(["lights": .array(deliveries.map(\.jsonValue))])
            }
        })
    }
}
