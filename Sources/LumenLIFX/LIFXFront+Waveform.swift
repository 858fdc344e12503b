import LumenModel
import LumenProtocol
import LumenSimulation

extension LIFXFront {
    /// Carries out a waveform on `bulb` for the parts of its colour in `fields`, and returns the bulb's state
    /// after; `nil` when the bulb never answers.
    ///
    /// A wave that ends on its colour (``LIFXWave/endsOnColor``) changes the light to it over the wave's length,
    /// as the scope protocol and the dashboard see it; any other leaves the light as it is. Over the LAN the bulb
    /// shows the wave itself until it ends (``LIFXWaveform``), from the colour it showed when the message came:
    /// every zone and pixel alike, as a strip draws a wave as one zone.
    func draw(
        _ wave: LIFXWave, fields: LIFXColorFields, on bulb: LIFXLight, from sender: @escaping @Sendable () -> String
    ) async -> LightState? {
        let kind = bulb.light.model.kind
        let id = bulb.light.id
        let showing = await home.reading { home in self.shownColor(of: bulb, from: bulb.light.state, in: home) }
        let (change, merged) = Self.change(
            towards: wave.color, fields: fields, from: bulb.light.state, showing: showing, kind: kind)
        let state: LightState
        if wave.endsOnColor, !change.properties.isEmpty {
            let arrived = (
                zones: records.zoneStates.withLock { $0[id] }, pixels: records.matrixStates.withLock { $0[id] }
            )
            // The colour is noted with the wave below, not here.
            guard
                let performed = await perform(change, giving: nil, to: bulb, transitionMs: wave.lengthMs, from: sender)
            else { return nil }
            state = performed
            followLight(bulb, unlessChangedFrom: arrived.zones, pixels: arrived.pixels)
        } else {
            guard let delivered = await delivered(to: bulb) else { return nil }
            state = delivered
        }
        await home.reading { home in
            let waveform = LIFXWaveform(wave: wave, from: showing, to: merged, startMs: home.nowMilliseconds)
            let landing = (try? home.landing(of: id)) ?? state
            self.records.waveforms.withLock {
                $0[id] = waveform.endMs > waveform.startMs ? (waveform, landing) : nil
            }
            // In the same turn as the wave, so that no question answered in between finds the colour without its
            // wave. Noted even when the light does not move (a hue under no saturation), as a bulb keeps it.
            if wave.endsOnColor { self.records.note(merged, gave: state, to: id) }
        }
        return state
    }

    /// The colour `bulb`, whose light is in `state`, shows now, in a turn of `home`: a wave's while it draws one,
    /// else its light's (``LIFXDeviceRecords/color(of:in:kind:)``).
    func shownColor(of bulb: LIFXLight, from state: LightState, in home: isolated Home) -> HSBK {
        waveColor(of: bulb, atMs: home.nowMilliseconds, in: home)
            ?? records.color(of: bulb.light.id, in: state, kind: bulb.light.model.kind)
    }

    /// The colour of the wave `bulb` draws at `nowMs`, if it draws one: until the wave ends, while the light is
    /// still bound where the wave's message left it (any other command to the light ends the wave), as `home`
    /// tells in this turn.
    func waveColor(of bulb: LIFXLight, atMs nowMs: Double, in home: isolated Home) -> HSBK? {
        let drawn = records.waveforms.withLock { waveforms -> (waveform: LIFXWaveform, landing: LightState)? in
            guard let drawn = waveforms[bulb.light.id] else { return nil }
            guard nowMs < drawn.waveform.endMs else {
                waveforms[bulb.light.id] = nil
                return nil
            }
            return drawn
        }
        guard let drawn, (try? home.landing(of: bulb.light.id)) == drawn.landing else { return nil }
        return drawn.waveform.color(atMs: nowMs)
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
