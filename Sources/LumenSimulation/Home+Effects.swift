import LumenModel
import LumenProtocol

extension Home {
    /// Starts or stops a light's colour loop, and starts or stops its breathing, as a Hue bulb does when told
    /// (`effect`, `alert`). Breathing ends by itself after ``LightEffect/Breathing/milliseconds``. Announced
    /// on the light's `effect` connection; kept while lumend runs, not saved.
    /// - Parameters:
    ///   - colorLoop: start (`true`) or stop (`false`) cycling through the colours; `nil` leaves it.
    ///   - breathing: breathe once or for long; `.some(nil)` stops breathing; `nil` leaves it.
    /// - Throws: ``LumenError`` `noSuchEntity` for an unknown light, `notSupported` for a colour loop on a light
    ///   without colour, `shuttingDown` while the home stops.
    package func setEffect(
        colorLoop: Bool? = nil, breathing: LightEffect.Breathing?? = nil, on light: LightID
    ) throws(LumenError) {
        guard !isShutDown else { throw LumenError.shuttingDown }
        guard let index = lights.slot(of: light) else { throw Self.noSuchLight(light) }
        if colorLoop == true, !lights[slot: index].model.kind.supports(.color) {
            throw LumenError(
                .notSupported, "light '\(light)' has no colour to loop through",
                data: ["light": .string(light.rawValue), "connection": "effect"])
        }
        refreshRealTime()
        var (effect, ends) = effects[light] ?? (.none, nil)
        let before = effect
        if let colorLoop { effect.colorLoop = colorLoop }
        if let breathing {
            effect.breathing = breathing
            ends = breathing.map { nowMicros + Self.micros($0.milliseconds) }
            if let ends { schedule(.endBreathing(light), at: ends) }
        }
        effects[light] = effect == .none ? nil : (effect, ends)
        if effect.name != before.name {
            emit(.effect, of: light, .string(effect.name), to: lights[slot: index].audience)
        }
        armRealClock()
    }

    /// Ends a light's breathing once it has run its course; one asked for again since runs on.
    func endBreathing(_ light: LightID) {
        guard let (effect, ends) = effects[light], let ends, ends <= nowMicros,
            let index = lights.slot(of: light)
        else { return }
        var after = effect
        after.breathing = nil
        effects[light] = after == .none ? nil : (after, nil)
        if after.name != effect.name {
            emit(.effect, of: light, .string(after.name), to: lights[slot: index].audience)
        }
    }
}
