import LumenModel
import LumenProtocol
import LumenSimulation

extension LightScope {
    /// `setState`: several properties changed by one device command, as a bulb takes them (Hue's state
    /// `PUT`, LIFX's `SetColor` with power): one latency, one answer, one record in the journal. A light that
    /// refuses changes while off takes them when the same command turns it on. Answered, once the light has
    /// applied it, with the values of the properties it changed.
    var setState: Action {
        let (scopeContext, id) = (scopeContext, id)
        return Action(waitingForDevices: { arguments async throws(LumenError) in
            let (change, transitionMs) = try LightChange.command(
                arguments, connection: "setState", at: ["light": .string(id.rawValue)])
            let receipt = try await scopeContext.home.send(change, to: id, transitionMs: transitionMs)
            let applied: @Sendable (LightState) -> JSONValue = { state in
                .object(JSONObject(change.properties.map { ($0.rawValue, state.value(of: $0) ?? .null) }))
            }
            // An instant device has answered already, inside the home's turn that sent it: known as it was made.
            if case .settled(let result) = receipt { return .settled(result.map(applied)) }
            return WriteCompletion(receipt.ticket, value: applied)
        })
    }
}

extension LightChange {
    /// The properties a command's arguments may change, and its transition.
    static let commandArguments: Set<String> = ["isOn", "brightness", "colorTemperature", "color", "transitionMs"]

    /// A change as a command's arguments give it (`isOn`, `brightness`, `colorTemperature`, `color`, each
    /// optional but at least one), with its `transitionMs` (0 when not given).
    /// - Throws: `invalidParams`, with `data` holding `at` and the connection's name.
    static func command(_ arguments: JSONCursor, connection: String, at entity: JSONObject) throws(LumenError)
        -> (LightChange, transitionMs: Double)
    {
        do throws(JSONShapeError) {
            let args = try arguments.object(allowing: commandArguments)
            let change = LightChange(
                isOn: try args.optional("isOn")?.bool(),
                brightness: try args.optional("brightness")?.double(),
                colorTemperature: try args.optional("colorTemperature")?.int(in: LightState.colorTemperatureRange),
                color: try args.optional("color").map { cursor throws(JSONShapeError) in
                    try CIEColor(cursor: cursor)
                })
            guard !change.properties.isEmpty else {
                throw arguments.error("give at least one of isOn, brightness, colorTemperature and color")
            }
            return (
                change, try args.optional("transitionMs")?.double(in: SimulatedDurations.transitionMilliseconds) ?? 0
            )
        } catch {
            var data = entity
            data["connection"] = .string(connection)
            throw LumenError(.invalidParams, error.description, data: data)
        }
    }
}
