import LumenModel
import LumenProtocol
import LumenSimulation

extension LIFXFront {
    /// Starts a waveform on `bulb` for the parts of its colour in `fields`, in a turn of `home`.
    ///
    /// A wave that ends on its colour (``LIFXWave/endsOnColor``) changes the light to it over the wave's length,
    /// as the scope protocol and the dashboard see it; any other leaves the light as it is, and a message sent
    /// after it still waits until the bulb took it. Over the LAN the bulb shows the wave itself until it ends
    /// (``LIFXWaveform``), from the colour it showed when the message came and from when it takes it: every zone
    /// and pixel alike, as a strip draws a wave as one zone. The wave is placed as the message arrives, so that a
    /// query read after it finds it, and taken back if the bulb never takes it.
    func draw(
        _ wave: LIFXWave, fields: LIFXColorFields, on bulb: LIFXLight, from sender: () -> String,
        in home: isolated Home
    ) -> Started {
        let id = bulb.light.id
        // An on/off light has no colour to draw a wave in: it takes the message and shows nothing of it, as it
        // takes a SetColor, so that neither moves the brightness or colour it reports.
        guard bulb.light.model.kind.supports(.brightness) else {
            return Started(awaiting: delivery(to: bulb, in: home))
        }
        let showing = shownColor(of: bulb, from: reportedState(of: bulb, in: home), in: home)
        let (change, merged) = Self.change(
            towards: wave.color, fields: fields, from: bulb.light.state, showing: showing, kind: bulb.light.model.kind)
        let moves = wave.endsOnColor && !change.properties.isEmpty
        let awaiting =
            moves
            ? sending((change, nil, wave.lengthMs), to: bulb, from: sender, in: home)
            : delivery(to: bulb, holdingLater: true, in: home)
        if moves { followLight(bulb, once: awaiting) }
        // Noted as the bulb takes the wave, even when the light does not move (a hue under no saturation), as a
        // bulb keeps it.
        if wave.endsOnColor { note(merged, for: bulb, once: awaiting) }
        // A wave the bulb never takes (lost, beyond its rate limit) is never drawn.
        if case .never = awaiting { return Started(awaiting: .never) }
        let startMs = (try? home.messagesTakenMs(of: id)) ?? home.nowMilliseconds
        let waveform = LIFXWaveform(wave: wave, from: showing, to: merged, startMs: startMs)
        let drawn = waveform.endMs > waveform.startMs ? waveform : nil
        let before = records.waveforms.withLock { waveforms in
            defer { waveforms[id] = drawn.map { ($0, nil) } }
            return waveforms[id]
        }
        if drawn != nil {
            // Where the light lands as the bulb takes the wave, read in that turn of the home (which settles the
            // ticket): a command read after the wave and taken in the same turn moves the light elsewhere, and so
            // ends the wave.
            awaiting.whenTaken { [home, records] state in
                let landing = home.assumeIsolated { home in (try? home.landing(of: id)) ?? state }
                records.waveforms.withLock { if $0[id]?.waveform == drawn { $0[id]?.landing = landing } }
            }
        }
        return Started(
            awaiting: awaiting,
            takeBack: { [records] in records.waveforms.withLock { if $0[id]?.waveform == drawn { $0[id] = before } } })
    }

    /// The colour `bulb`, whose light is in `state`, shows now, in a turn of `home`: a wave's while it draws one,
    /// else its light's (``LIFXDeviceRecords/color(of:in:model:)``).
    func shownColor(of bulb: LIFXLight, from state: LightState, in home: isolated Home) -> HSBK {
        waveColor(of: bulb, atMs: home.nowMilliseconds, in: home)
            ?? records.color(of: bulb.light.id, in: state, model: bulb.light.model)
    }

    /// The colour of the wave `bulb` draws at `nowMs`, if it draws one: until the wave ends, while the light is
    /// still bound where the wave's message left it (any other command to the light ends the wave), as `home`
    /// tells in this turn; a wave on its way to the bulb left it nowhere yet.
    func waveColor(of bulb: LIFXLight, atMs nowMs: Double, in home: isolated Home) -> HSBK? {
        let drawn = records.waveforms.withLock { waveforms -> (waveform: LIFXWaveform, landing: LightState?)? in
            guard let drawn = waveforms[bulb.light.id] else { return nil }
            guard nowMs < drawn.waveform.endMs else {
                waveforms[bulb.light.id] = nil
                return nil
            }
            return drawn
        }
        guard let drawn, drawn.landing.map({ (try? home.landing(of: bulb.light.id)) == $0 }) ?? true else {
            return nil
        }
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
