import LumenModel
import LumenSimulation

extension HueBridge {
    /// Plays `effect` on `light` as a bulb plays its own, through the light's fades: a sunrise puts the light on
    /// at once at its dimmest, warmest white (its colour loop stopped) and raises it to full brightness over the
    /// effect's duration; a sunset dims it from where it is down to off over the duration, its level kept for the
    /// next power-on as a fade off keeps it. The light's next command ends either where it stands.
    /// - Throws: ``HueError`` as a command to the light is refused.
    func startTimedEffect(_ effect: TimedEffect, on light: HueLight, from sender: String) async throws {
        let number = String(light.number)
        let address = "/lights/\(number)/state"
        let (warmest, loops) = (light.miredRange.upperBound, light.effect.colorLoop)
        if effect.kind == .sunrise {
            _ = try await command(toLight: number, from: sender) { kind throws(HueError) in
                var dawn = HueCommand(address: address, firstParameter: "timed_effects")
                dawn.change = LightChange(
                    isOn: true, brightness: LightState.brightnessRange.lowerBound,
                    colorTemperature: kind.supports(.colorTemperature) ? warmest : nil)
                dawn.transitionMs = 0
                if loops { dawn.effect = "none" }
                return dawn
            }
        }
        _ = try await command(toLight: number, from: sender) { _ throws(HueError) in
            var run = HueCommand(address: address, firstParameter: "timed_effects")
            run.change =
                effect.kind == .sunrise
                ? LightChange(brightness: LightState.brightnessRange.upperBound) : LightChange(isOn: false)
            run.change.timedEffect = effect
            run.transitionMs = effect.durationMs
            return run
        }
        // The status changes though no level may have moved yet.
        homeChanged()
    }
}
