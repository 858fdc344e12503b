import LumenModel
import LumenProtocol
import LumenSimulation

extension HueCommand {
    /// The relative changes of a light's `state` or a group's `action`: each moves the light from where it is,
    /// brought into range as a bridge brings it; a value given for the same property wins, as on a bridge.
    struct Increments: Sendable {
        /// `bri_inc`, −254 to 254.
        var bri: Int?
        /// `ct_inc` in mireds, −65534 to 65534.
        var ct: Int?
        /// `hue_inc`, −65534 to 65534, round the colour wheel.
        var hue: Int?
        /// `sat_inc`, −254 to 254.
        var sat: Int?
        /// `xy_inc`, each −0.5 to 0.5.
        var xy: (x: Double, y: Double)?

        /// Whether any was given.
        var isEmpty: Bool { bri == nil && ct == nil && hue == nil && sat == nil && xy == nil }
    }

    /// Reads the relative parameter `name` (`bri_inc`, …) for a light of `kind`.
    /// - Throws: ``HueError`` 6 for a parameter the light does not have, 7 for a value out of range.
    mutating func readIncrement(_ name: String, _ value: JSONValue, kind: LightKind) throws(HueError) {
        func integer(_ limit: Int) throws(HueError) -> Int {
            try HueValues.integer(value, in: -limit...limit, of: name, at: address)
        }
        switch name {
        case "bri_inc":
            try requires(.brightness, name, kind)
            increments.bri = try integer(254)
        case "ct_inc":
            try requires(.colorTemperature, name, kind)
            increments.ct = try integer(65_534)
        case "hue_inc":
            try requires(.color, name, kind)
            increments.hue = try integer(65_534)
        case "sat_inc":
            try requires(.color, name, kind)
            increments.sat = try integer(254)
        default:
            try requires(.color, name, kind)
            guard let (x, y) = HueValues.xy(value), (-0.5...0.5).contains(x), (-0.5...0.5).contains(y) else {
                throw HueError.invalidValue(value, of: name, at: address)
            }
            increments.xy = (x, y)
        }
    }

    /// Whether the command changes anything, counting its relative changes.
    var changesSomething: Bool { !change.properties.isEmpty || movesFromEachLight }

    /// Whether each light's change is worked out from its own state: a relative change, or a `hue` or `sat` alone.
    var movesFromEachLight: Bool { !increments.isEmpty || loneHueOrSat != nil }

    /// The change for `light`: the values given, and the relative changes worked out from where the light is,
    /// for the properties it has (a group's lights leave out what they lack); a colour temperature past the
    /// light's range as the nearer end, as a bridge brings it.
    func change(for light: HueLight) -> LightChange {
        let (state, kind) = (light.light.state, light.light.model.kind)
        var result = change
        result.colorTemperature = result.colorTemperature.map(light.miredRange.clamping)
        if result.brightness == nil, let step = increments.bri, kind.supports(.brightness) {
            let bri = min(max(HueValues.bri(brightness: state.brightness) + step, 1), 254)
            result.brightness = HueValues.brightness(bri: bri)
        }
        if result.colorTemperature == nil, let step = increments.ct, kind.supports(.colorTemperature) {
            result.colorTemperature = light.miredRange.clamping(state.colorTemperature + step)
        }
        // A colour given (`xy`, or `ct`, which comes before `hue` and `sat`) leaves out the colour's increments.
        guard result.color == nil, change.colorTemperature == nil, kind.supports(.color) else { return result }
        if let (dx, dy) = increments.xy, loneHueOrSat == nil {
            let x = min(max(state.color.x + dx, 0), 1)
            let y = min(max(state.color.y + dy, 0), 1)
            result.color = CIEColor(x: x, y: y).clippedToGamut
        } else if increments.hue != nil || increments.sat != nil || loneHueOrSat != nil {
            // The hue and sat the bridge reports for the light's colour, which read back as they were set: a half
            // given replaces the light's, a half not given keeps it or moves from it.
            let (hue, sat) = HueValues.hueAndSat(of: state.color)
            let newHue = loneHueOrSat?.hue ?? ((hue + (increments.hue ?? 0)) % 65_536 + 65_536) % 65_536
            let newSat = loneHueOrSat?.sat ?? min(max(sat + (increments.sat ?? 0), 0), 254)
            result.color = HueValues.color(hue: newHue, sat: newSat)
        }
        return result
    }
}
