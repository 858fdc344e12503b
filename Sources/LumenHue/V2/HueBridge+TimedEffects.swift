import LumenModel
import LumenSimulation

extension HueBridge {
    /// Plays `effect` on `light` as a bulb plays its own, in one command to the light, through its fades: a
    /// sunrise puts the light on at once at its dimmest, warmest white (its colour loop stopped) and raises it to
    /// full brightness over the effect's duration; a sunset dims it from where it is down to off over the
    /// duration, its level kept for the next power-on as a fade off keeps it. The light's next command ends either
    /// where it stands.
    /// - Throws: ``HueError`` as a command to the light is refused.
    func startTimedEffect(_ effect: TimedEffect, on light: HueLight, from sender: String) async throws {
        let number = String(light.number)
        let loops = light.effect.colorLoop
        _ = try await command(toLight: number, from: sender) { _ throws(HueError) in
            var run = HueCommand(address: "/lights/\(number)/state", firstParameter: "timed_effects")
            switch effect.kind {
            // Where it starts from, the home's dawn, is the light's own.
            case .sunrise: run.change = LightChange(isOn: true, brightness: LightState.brightnessRange.upperBound)
            case .sunset: run.change = LightChange(isOn: false)
            }
            run.change.timedEffect = effect
            run.transitionMs = effect.durationMs
            if effect.kind == .sunrise, loops { run.effect = "none" }
            return run
        }
    }
}
