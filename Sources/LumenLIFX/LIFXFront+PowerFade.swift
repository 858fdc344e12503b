import LumenModel
import LumenProtocol
import LumenSimulation

extension LIFXFront {
    /// Notes the power fade `bulb` takes with the message `awaiting` waits for (`SetLightPower` to `isOn` over
    /// `durationMs`), in the turn of `home` that the bulb takes it: when the light then fades off (on now, off once
    /// landed), or fades on from off (`wasOn`, as the message found it). Another fade (the light already as asked)
    /// is no power fade.
    func notePowerFade(
        on bulb: LIFXLight, isOn: Bool, durationMs: Double, wasOn: Bool, once awaiting: Started.Awaiting,
        in home: isolated Home
    ) {
        let id = bulb.light.id
        let durationMs = min(durationMs, SimulatedDurations.longestMs)
        awaiting.whenTaken { [home, records] _ in
            home.assumeIsolated { home in
                var fade: LIFXPowerFade?
                if let landing = try? home.landing(of: id), let shown = try? home.light(id).state,
                    landing.isOn == isOn, shown != landing, isOn ? !wasOn : shown.isOn
                {
                    fade = LIFXPowerFade(
                        isOn: isOn, startMs: home.nowMilliseconds, durationMs: durationMs, landing: landing)
                }
                records.powerFades.withLock { $0[id] = fade }
            }
        }
    }

    /// The light `bulb` reports, its light in `state`, in a turn of `home`, with its power level: during a power
    /// fade the bulb took, the light as the fade lands (the colour stays; only the power moves) and the level part
    /// of the way (``LIFXPowerFade/level(atMs:)``); else `state`, at 65535 when on and 0 when off.
    func reported(_ state: LightState, of bulb: LIFXLight, in home: isolated Home) -> (
        state: LightState, power: UInt16
    ) {
        let id = bulb.light.id
        let plain = (state: state, power: state.isOn ? UInt16(65_535) : 0)
        guard let fade = records.powerFades.withLock({ $0[id] }) else { return plain }
        let nowMs = home.nowMilliseconds
        // The bulb's own fade while the light still fades to where its message left it: another change, by any
        // way in, ends it, as it ends the light's fade.
        guard nowMs < fade.endMs, let landing = try? home.landing(of: id), landing == fade.landing,
            let shown = try? home.light(id).state, shown != landing
        else {
            records.powerFades.withLock { if $0[id] == fade { $0[id] = nil } }
            return plain
        }
        return (landing, fade.level(atMs: nowMs))
    }

    /// The light `bulb` shows now as it reports it, in a turn of `home`: what a message placed over it starts
    /// from.
    func reportedState(of bulb: LIFXLight, in home: isolated Home) -> LightState {
        reported(bulb.light.state, of: bulb, in: home).state
    }
}
