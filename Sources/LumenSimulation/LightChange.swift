import LumenModel
import LumenProtocol

/// What a command asks a light to change; `nil` leaves a property as it is.
public struct LightChange: Sendable, Hashable {
    /// On or off.
    package var isOn: Bool?
    /// Brightness, 1–100; 0 dims to off, on the families where a level of 0 does
    /// (``DeviceFamily/levelZeroSwitchesOff``).
    package var brightness: Double?
    /// Colour temperature in mireds, within the light's range (``DeviceFamily/colorTemperatureRange(of:)``).
    package var colorTemperature: Int?
    /// Colour, CIE xy.
    package var color: CIEColor?
    /// The timed effect the change's fades play (a sunrise, a sunset), which the light's next command ends where
    /// it stands; it may run past a client's longest transition, up to ``TimedEffect/longestMs``.
    package var timedEffect: TimedEffect?

    /// A change.
    package init(isOn: Bool? = nil, brightness: Double? = nil, colorTemperature: Int? = nil, color: CIEColor? = nil) {
        self.isOn = isOn
        self.brightness = brightness
        self.colorTemperature = colorTemperature
        self.color = color
    }

    /// The properties this change touches.
    package var properties: [LightProperty] {
        var result: [LightProperty] = []
        if isOn != nil { result.append(.isOn) }
        if brightness != nil { result.append(.brightness) }
        if colorTemperature != nil { result.append(.colorTemperature) }
        if color != nil { result.append(.color) }
        return result
    }

    /// The first property this change touches that a device of `kind` lacks, if any.
    func firstUnsupported(by kind: LightKind) -> LightProperty? {
        if isOn != nil, !kind.supports(.isOn) { return .isOn }
        if brightness != nil, !kind.supports(.brightness) { return .brightness }
        if colorTemperature != nil, !kind.supports(.colorTemperature) { return .colorTemperature }
        if color != nil, !kind.supports(.color) { return .color }
        return nil
    }

    /// `state` with this change applied.
    func applied(to state: LightState) -> LightState {
        var result = state
        if let isOn { result.isOn = isOn }
        if let brightness { result.brightness = brightness }
        if let colorTemperature { result.colorTemperature = colorTemperature }
        if let color { result.color = color }
        return result
    }

    /// The brightness a command may ask for: a light's levels, and 0, which dims it to off.
    static let brightnessRange: ClosedRange<Double> = 0...100

    /// This change as a light of `family` takes it: a brightness of 0 switches it off (with the transition,
    /// fading down to off, its level kept for the next power-on), where the family's level 0 does.
    /// - Throws: ``LumenError`` `invalidParams` for a brightness of 0 where it is out of range, or beside
    ///   `isOn: true`.
    func levelZeroResolved(for family: DeviceFamily, light: LightID) throws(LumenError) -> LightChange {
        guard brightness == 0 else { return self }
        let data: JSONObject = ["light": .string(light.rawValue), "connection": "brightness"]
        guard family.levelZeroSwitchesOff else {
            throw LumenError(
                .invalidParams,
                "brightness 0 is out of range 1–100 for light '\(light)' (a \(family.rawValue) light, whose dimmest "
                    + "level is 1); switch it off with isOn: false",
                data: data)
        }
        guard isOn != true else {
            throw LumenError(
                .invalidParams, "brightness 0 switches light '\(light)' off; leave out isOn: true or raise brightness",
                data: data)
        }
        var resolved = self
        resolved.brightness = nil
        resolved.isOn = false
        return resolved
    }

    /// Checks ranges, the colour temperature against `colorTemperatures`, what the light (or lights) it goes
    /// to take.
    /// - Throws: ``LumenError`` with code `invalidParams` naming the property and its range.
    func validate(colorTemperatures: ClosedRange<Int> = LightState.colorTemperatureRange) throws(LumenError) {
        if let brightness, !Self.brightnessRange.contains(brightness) {
            throw LumenError(
                .invalidParams,
                "brightness \(JSONNumber(brightness)) is out of range 1–100 (or 0, which dims to off where the light's family allows it)",
                data: ["connection": "brightness"])
        }
        if let colorTemperature, !colorTemperatures.contains(colorTemperature) {
            throw LumenError(
                .invalidParams,
                "colorTemperature \(colorTemperature) is out of range \(colorTemperatures.lowerBound)–"
                    + "\(colorTemperatures.upperBound) mireds",
                data: ["connection": "colorTemperature"])
        }
        if let color,
            !LightState.colorCoordinateRange.contains(color.x) || !LightState.colorCoordinateRange.contains(color.y)
        {
            throw LumenError(
                .invalidParams,
                "color (\(JSONNumber(color.x)), \(JSONNumber(color.y))) is out of range: x and y must be 0–1",
                data: ["connection": "color"])
        }
    }
}
