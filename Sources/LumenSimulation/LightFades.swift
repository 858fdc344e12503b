import LumenModel
import LumenProtocol

/// One property moving in steps from one value to another, as Matter lights fade: ten steps a second from the
/// fade's start, the last one exact.
struct Ramp: Sendable {
    static let stepMicros: Int64 = 100_000

    let from: Double
    let to: Double
    let start: Int64
    let duration: Int64

    var end: Int64 { start + duration }

    /// The value `time` into the ramp, rounded to `places` (10 for a tenth) as a device would report it; at its
    /// start, where it starts from, as it was, and at its end where it goes, both exact.
    func value(at time: Int64, places: Double) -> Double {
        guard time < end else { return to }
        guard time > start else { return from }
        let fraction = Double(time - start) / Double(duration)
        return ((from + (to - from) * fraction) * places).rounded() / places
    }

    /// When its next step after `time` falls.
    func nextStep(after time: Int64) -> Int64 {
        min(start + ((time - start) / Self.stepMicros + 1) * Self.stepMicros, end)
    }
}

/// The fades under way on one light: one ramp per property, each running on its own until it lands or a
/// command ends it (which command ends which fade is the light's family's rule, ``DeviceFamily``).
///
/// Fading off is a brightness ramp down to the lowest level that switches the light off when it lands, with
/// its brightness back where it was for the next power-on (as a Hue bulb does with `on: false` and a
/// transition time).
struct LightFades: Sendable {
    var brightness: Ramp?
    /// Set while `brightness` fades the light off: the level it comes back at.
    var offLevel: Double?
    var colorTemperature: Ramp?
    /// Colour as its two coordinates, which always move together.
    var color: (x: Ramp, y: Ramp)?
    /// The timed effect these fades play, if they play one: the light's next command ends every ramp where it
    /// stands, whatever the family's rule for fades.
    var timedEffect: TimedEffect?

    var isEmpty: Bool { brightness == nil && colorTemperature == nil && color == nil }

    /// The timed effect under way: the one these fades play, while any ramp runs.
    var runningTimedEffect: TimedEffect? { isEmpty ? nil : timedEffect }

    /// Whether the colour fades from one colour temperature's white to another's, alongside the temperature:
    /// it then stays on the Planckian locus, rather than crossing it in a straight line.
    var followsTemperature: Bool {
        guard let colorTemperature, let color else { return false }
        return CIEColor(x: color.x.from, y: color.y.from) == CIEColor(mireds: Int(colorTemperature.from))
            && CIEColor(x: color.x.to, y: color.y.to) == CIEColor(mireds: Int(colorTemperature.to))
            && color.x.start == colorTemperature.start && color.x.end == colorTemperature.end
    }

    /// `base` with every ramp at its value `time` into it.
    func state(at time: Int64, over base: LightState) -> LightState {
        var state = base
        if let brightness {
            if let offLevel, time >= brightness.end {
                state.isOn = false
                state.brightness = offLevel
            } else {
                state.brightness = brightness.value(at: time, places: 10)
            }
        }
        if let colorTemperature { state.colorTemperature = Int(colorTemperature.value(at: time, places: 1)) }
        if let color {
            if followsTemperature {
                // From one white to another a colour light stays white, at each step's temperature.
                state.color = CIEColor(mireds: state.colorTemperature)
            } else {
                state.color = CIEColor(
                    x: color.x.value(at: time, places: 10_000), y: color.y.value(at: time, places: 10_000))
            }
        }
        return state
    }

    /// Where `base` lands once every ramp has: what a snapshot saves and a command confirms.
    func landing(over base: LightState) -> LightState { state(at: .max, over: base) }

    /// When the next step of any ramp falls after `time`; `nil` with none under way.
    func nextStep(after time: Int64) -> Int64? {
        [brightness?.nextStep(after: time), colorTemperature?.nextStep(after: time), color?.x.nextStep(after: time)]
            .compactMap { $0 }.min()
    }

    /// Ends the fade of `property` where it stands: the caller has already shown its current value.
    mutating func end(_ property: LightProperty) {
        switch property {
        case .brightness:
            brightness = nil
            offLevel = nil
        case .colorTemperature: colorTemperature = nil
        case .color: color = nil
        default: break
        }
    }

    /// Forgets the ramps that have landed by `time`.
    mutating func dropLanded(at time: Int64) {
        if let ramp = brightness, ramp.end <= time { end(.brightness) }
        if let ramp = colorTemperature, ramp.end <= time { end(.colorTemperature) }
        if let ramp = color?.x, ramp.end <= time { end(.color) }
    }

    /// Starts ramps from `current` towards `target` over `duration` µs from `start`, for the properties
    /// `change` sets that would move on a light of `kind`, and returns the state to show now.
    ///
    /// Switching on fades up from the lowest level, in the colour it will have; switching off fades down to
    /// the lowest level and switches off at the end.
    mutating func start(
        _ change: LightChange, from current: LightState, to target: LightState, kind: LightKind, at start: Int64,
        duration: Int64
    ) -> LightState {
        guard duration > 0, kind.supports(.brightness) else { return target }
        var shown = target
        func ramp(_ from: Double, _ to: Double) -> Ramp? {
            from == to ? nil : Ramp(from: from, to: to, start: start, duration: duration)
        }
        let lowest = LightState.brightnessRange.lowerBound
        // Switching on shows the colour it will have from the first step; only the level rises.
        let switchingOn = !current.isOn && target.isOn
        if current.isOn, !target.isOn {
            if let down = ramp(current.brightness, lowest) {
                brightness = down
                offLevel = target.brightness
                shown.isOn = true
                shown.brightness = current.brightness
            }
        } else if switchingOn {
            if let up = ramp(lowest, target.brightness) {
                brightness = up
                shown.brightness = lowest
            }
        } else if change.brightness != nil, let move = ramp(current.brightness, target.brightness) {
            brightness = move
            shown.brightness = current.brightness
        }
        if !switchingOn, change.colorTemperature != nil, kind.supports(.colorTemperature),
            let move = ramp(Double(current.colorTemperature), Double(target.colorTemperature))
        {
            colorTemperature = move
            shown.colorTemperature = current.colorTemperature
        }
        if !switchingOn, change.color != nil, kind.supports(.color), current.color != target.color {
            color = (
                Ramp(from: current.color.x, to: target.color.x, start: start, duration: duration),
                Ramp(from: current.color.y, to: target.color.y, start: start, duration: duration)
            )
            shown.color = current.color
        }
        return shown
    }
}
