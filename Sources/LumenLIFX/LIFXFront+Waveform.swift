import LumenModel
import LumenSimulation

extension LIFXFront {
    /// A wave's whole length, `period` × `cycles`: how long a wave that is not transient takes to reach its
    /// colour. Cycles that are not a number, or negative, make no wave.
    static func waveLengthMs(period: UInt32, cycles: Float) -> Double {
        Double(period) * Double(cycles.isFinite ? max(0, cycles) : 0)
    }

    /// What a wave towards `color` for only the parts in `fields` asks of a light of `kind` in `state`: the
    /// parts left out stay as the light has them.
    ///
    /// The colour is worked out from the light's own with the parts asked replaced; then only what those parts
    /// move is kept: the brightness for `brightness`, the colour for `hue` or `saturation`, the colour
    /// temperature for `kelvin` or `saturation` (a saturation of 0 turns a colour bulb to white; a kelvin alone
    /// leaves a bulb showing a colour on it).
    static func change(
        towards color: HSBK, fields: LIFXColorFields, from state: LightState, showing now: HSBK, kind: LightKind
    ) -> (change: LightChange, merged: HSBK) {
        let merged = HSBK(
            hue: fields.contains(.hue) ? color.hue : now.hue,
            saturation: fields.contains(.saturation) ? color.saturation : now.saturation,
            brightness: fields.contains(.brightness) ? color.brightness : now.brightness,
            kelvin: fields.contains(.kelvin) ? color.kelvin : now.kelvin)
        var change = merged.change(for: kind)
        if !fields.contains(.brightness) { change.brightness = nil }
        if fields.isDisjoint(with: [.hue, .saturation]) { change.color = nil }
        if fields.isDisjoint(with: [.kelvin, .saturation]) { change.colorTemperature = nil }
        // A new kelvin alone leaves a bulb showing a colour on it: the kelvin is kept for its whites.
        if change.colorTemperature != nil, change.color == nil, merged.saturation > 0, kind.supports(.color) {
            change.color = state.color
        }
        return (change, merged)
    }
}
