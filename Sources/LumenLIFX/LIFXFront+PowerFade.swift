import LumenModel
import LumenProtocol
import LumenSimulation

extension LIFXFront {
    /// Sends `plain`, a power message's change (`SetPower`, `SetLightPower` over `plain.transitionMs`), to `bulb`
    /// (``sending(_:to:from:in:)``), as firmware's power level takes it beside a power fade the bulb reports as
    /// the message arrives (``keepingLevel(_:during:of:in:)``); notes when the bulb takes it, for a colour sent
    /// meanwhile, and the power fade a duration starts (``notePowerFade(on:isOn:durationMs:wasOn:once:in:)``).
    func sendingPower(
        _ plain: (change: LightChange, given: HSBK?, transitionMs: Double), to bulb: LIFXLight,
        from sender: () -> String, in home: isolated Home
    ) -> Started.Awaiting {
        let id = bulb.light.id
        var plain = plain
        // Read as the message arrives, before it is sent: one another change ended is forgotten here, so that the
        // fade a power message turns is one still going.
        if let fading = powerFade(of: bulb, in: home) {
            plain.change = keepingLevel(plain.change, during: fading, of: bulb, in: home)
        }
        let awaiting = sending(plain, to: bulb, from: sender, in: home)
        let takenMs = (try? home.messagesTakenMs(of: id)) ?? home.nowMilliseconds
        records.powerMessagesTakenMs.withLock { $0[id] = takenMs }
        if plain.transitionMs > 0, let isOn = plain.change.isOn {
            notePowerFade(
                on: bulb, isOn: isOn, durationMs: plain.transitionMs, wasOn: bulb.light.state.isOn, once: awaiting,
                in: home)
        }
        return awaiting
    }

    /// `change`, a power message's (`SetPower`, `SetLightPower`) to `bulb` arriving in a turn of `home` during
    /// the power fade `fade` the bulb reports, with the colour the fade lands on: firmware's power level leaves
    /// the colour alone, so a bulb turned off part of the way up keeps its colour's brightness for the next
    /// turn-on, and one turned on part of the way down comes back to it, rather than to the level Lumen's light had
    /// faded to; a colour carried into the fade (``sendingColor(_:to:from:in:)``), still on its way there, goes on
    /// to it rather than stopping where the light had got to.
    ///
    /// Left as it is while an earlier message to the bulb is still on its way: that one may give the light
    /// another brightness, which this one must not undo.
    func keepingLevel(_ change: LightChange, during fade: LIFXPowerFade, of bulb: LIFXLight, in home: isolated Home)
        -> LightChange
    {
        guard (try? home.messagesTakenMs(of: bulb.light.id)) ?? .infinity <= home.nowMilliseconds else {
            return change
        }
        var kept = change
        kept.brightness = fade.landing.brightness
        let (landing, shown, kind) = (fade.landing, bulb.light.state, bulb.light.model.kind)
        // The landing's own colour and colour temperature, so that it reads back as it was sent: a LIFX level ends
        // every fade of the light where it stands, a colour temperature's as well as a colour's.
        if kind.supports(.colorTemperature),
            landing.colorTemperature != shown.colorTemperature
                || (kind.supports(.color) && landing.color != shown.color)
        {
            kept.colorTemperature = landing.colorTemperature
            // A colour temperature alone turns a colour light to that temperature's white.
            if kind.supports(.color), !landing.showsColorTemperature { kept.color = landing.color }
        }
        return kept
    }

    /// Notes the power fade `bulb` takes with the message `awaiting` waits for (`SetLightPower` to `isOn` over
    /// `durationMs`), in the turn of `home` that the bulb takes it: when the light then fades off (on now, off
    /// once landed), or on from below full power. It starts from where the power fade the bulb has then (the one
    /// it turns back, or carries on with a colour) has got to, else from the level the bulb reported as the
    /// message arrived (`wasOn`: 65535, else 0). Another fade (the light already as asked) is no power fade.
    func notePowerFade(
        on bulb: LIFXLight, isOn: Bool, durationMs: Double, wasOn: Bool, once awaiting: Started.Awaiting,
        in home: isolated Home
    ) {
        let id = bulb.light.id
        let durationMs = min(durationMs, SimulatedDurations.longestTransitionMs)
        awaiting.whenTaken { [home, records] _ in
            home.assumeIsolated { home in
                let nowMs = home.nowMilliseconds
                // One the bulb had as the message arrived was read then (``powerFade(of:in:)``), which forgets it
                // if another change had ended it; one here now that was not is one an earlier message left.
                let fromLevel =
                    if let kept = records.powerFades.withLock({ $0[id] }) {
                        nowMs < kept.endMs ? Double(kept.level(atMs: nowMs)) : kept.toLevel
                    } else {
                        wasOn ? 65_535.0 : 0
                    }
                var fade: LIFXPowerFade?
                if let landing = try? home.landing(of: id), let shown = try? home.light(id).state,
                    landing.isOn == isOn, shown != landing, isOn ? fromLevel < 65_535 : shown.isOn
                {
                    fade = LIFXPowerFade(
                        isOn: isOn, fromLevel: fromLevel, startMs: nowMs, durationMs: durationMs, landing: landing)
                }
                records.powerFades.withLock { $0[id] = fade }
            }
        }
    }

    /// The power fade `bulb` reports in a turn of `home`, if it took one
    /// (``notePowerFade(on:isOn:durationMs:wasOn:once:in:)``) and the light still fades to where its message
    /// left it: another change, by any way in, ends it, as it ends the light's fade. One that ended is forgotten.
    func powerFade(of bulb: LIFXLight, in home: isolated Home) -> LIFXPowerFade? {
        let id = bulb.light.id
        guard let fade = records.powerFades.withLock({ $0[id] }) else { return nil }
        guard home.nowMilliseconds < fade.endMs, let landing = try? home.landing(of: id), landing == fade.landing,
            let shown = try? home.light(id).state, shown != landing
        else {
            records.powerFades.withLock { if $0[id] == fade { $0[id] = nil } }
            return nil
        }
        return fade
    }

    /// The light `bulb` reports, its light in `state`, in a turn of `home`, with its power level: during a power
    /// fade the bulb took (``powerFade(of:in:)``), the light as the fade lands (the colour stays; only the power
    /// moves) and the level part of the way (``LIFXPowerFade/level(atMs:)``); else `state`, at 65535 when on and
    /// 0 when off.
    func reported(_ state: LightState, of bulb: LIFXLight, in home: isolated Home) -> (
        state: LightState, power: UInt16
    ) {
        guard let fade = powerFade(of: bulb, in: home) else { return (state, state.isOn ? 65_535 : 0) }
        return (fade.landing, fade.level(atMs: home.nowMilliseconds))
    }

    /// Sends `plain`, a colour for `bulb`'s light (``sending(_:to:from:in:)``), leaving a power fade under way
    /// going: firmware keeps the power level apart from the colour.
    ///
    /// Sent as it is while a power message to the bulb is still on its way: the bulb takes that one first, which
    /// turns the fade or ends it, and the colour must not undo it.
    func sendingColor(
        _ plain: (change: LightChange, given: HSBK?, transitionMs: Double), to bulb: LIFXLight,
        from sender: () -> String, in home: isolated Home
    ) -> Started.Awaiting {
        let nowMs = home.nowMilliseconds
        guard records.powerMessagesTakenMs.withLock({ $0[bulb.light.id] ?? 0 }) <= nowMs,
            let fade = powerFade(of: bulb, in: home)
        else { return sending(plain, to: bulb, from: sender, in: home) }
        let kept = Self.keepingPower(plain, of: fade, atMs: nowMs)
        let awaiting = sending(kept, to: bulb, from: sender, in: home)
        let transitionMs = min(kept.transitionMs, SimulatedDurations.longestTransitionMs)
        carryOn(fade, on: bulb, transitionMs: transitionMs, once: awaiting, in: home)
        return awaiting
    }

    /// `plain`, a colour sent to a bulb whose power fades (`fade`), as firmware takes it at `nowMs`: the power fade
    /// goes on, so the light goes where the fade takes it (off, or on) with the new colour, both landing when the
    /// fade does.
    static func keepingPower(
        _ plain: (change: LightChange, given: HSBK?, transitionMs: Double), of fade: LIFXPowerFade, atMs nowMs: Double
    ) -> (change: LightChange, given: HSBK?, transitionMs: Double) {
        var kept = plain
        kept.change.isOn = fade.isOn
        kept.transitionMs = max(0, fade.endMs - nowMs)
        return kept
    }

    /// Keeps `fade` going once `bulb` took the colour `awaiting` waits for (``keepingPower(_:of:atMs:)``), in
    /// that turn of `home`: from the level the bulb's power fade had reached then, to where the light now lands,
    /// over `transitionMs`, as the light's own fade does. A fade over by then has nothing left to carry.
    func carryOn(
        _ fade: LIFXPowerFade, on bulb: LIFXLight, transitionMs: Double, once awaiting: Started.Awaiting,
        in home: isolated Home
    ) {
        let id = bulb.light.id
        awaiting.whenTaken { [home, records] _ in
            home.assumeIsolated { home in
                let nowMs = home.nowMilliseconds
                // The one the bulb has now: `fade`, or what an earlier colour carried it on to meanwhile. The
                // colour came the bulb's latency after it was sent, so the fade may have ended first.
                guard let kept = records.powerFades.withLock({ $0[id] }), kept.isOn == fade.isOn,
                    nowMs < kept.endMs, let landing = try? home.landing(of: id), landing.isOn == fade.isOn
                else { return }
                let carried = LIFXPowerFade(
                    isOn: fade.isOn, fromLevel: Double(kept.level(atMs: nowMs)), startMs: nowMs,
                    durationMs: transitionMs, landing: landing)
                records.powerFades.withLock { $0[id] = carried }
            }
        }
    }

    /// The light `bulb` shows now as it reports it, in a turn of `home`: what a message placed over it starts
    /// from.
    func reportedState(of bulb: LIFXLight, in home: isolated Home) -> LightState {
        reported(bulb.light.state, of: bulb, in: home).state
    }
}
