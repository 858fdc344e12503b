import LumenModel
import LumenProtocol
import LumenSimulation

extension LIFXFront {
    /// The zones of `bulb` (a strip) whose light is in `state`, at `nowMs` of simulation time, in a turn of
    /// `home`: a zone fading is read part of the way there.
    func zones(of bulb: LIFXLight, from state: LightState, atMs nowMs: Double, in home: isolated Home) -> [HSBK] {
        // A strip draws a wave as one zone.
        if let waving = waveColor(of: bulb, atMs: nowMs, in: home) {
            return Array(repeating: waving, count: LIFXZones.count)
        }
        let light = records.color(of: bulb.light.id, in: state, model: bulb.light.model)
        return LIFXZones.current(records.zoneStates.withLock { $0[bulb.light.id] }, light: light).shown(atMs: nowMs)
    }

    /// Sets the zones of `bulb` from `index` on to `colors`, as `apply` says, in a turn of `home`. One colour along
    /// the whole strip is a change to the light, made over `durationMs` as `SetColor`'s; zones of different colours
    /// are kept beside the light as the message arrives, each fading over `durationMs` from what it showed.
    ///
    /// Each message is placed over the zones as the one before left them, as it arrives, under the records' lock:
    /// lifxlan sends a message a zone back to back without waiting. A message the bulb then loses is taken back,
    /// unless another was placed since. One colour the light shows already changes nothing: aiolifx follows its
    /// 82 colours with an empty message from zone 82 on, which must not put back the colour the strip showed
    /// while the first was on its way.
    func setZones(
        _ colors: [HSBK], from index: Int, durationMs: UInt32, apply: UInt8, on bulb: LIFXLight,
        from sender: () -> String, in home: isolated Home
    ) -> Started {
        let id = bulb.light.id
        let light = records.color(of: id, in: reportedState(of: bulb, in: home), model: bulb.light.model)
        let now = home.nowMilliseconds
        let (before, after, oneColour, shownNow) = records.zoneStates.withLock { kept in
            let before = kept[id]
            var zones = LIFXZones.current(before, light: light)
            let shown = zones.set(colors, from: index, apply: apply)
            let oneColour = shown.flatMap { shown in shown.allSatisfy { $0 == shown.first } ? shown.first : nil }
            if oneColour != nil {
                // The zones show what they did until the light takes the colour, as the light does: only what was
                // kept for later is spent. Zones following the light go on following it.
                kept[id] = before == nil ? nil : zones
            } else {
                // Zones of different colours fade from the message's arrival, as the bulb starts on it.
                if let shown { zones.show(shown, atMs: now, durationMs: Double(durationMs)) }
                kept[id] = zones
            }
            return (before, kept[id], oneColour, shown)
        }
        let takeBack: @Sendable () -> Void = { [records] in
            records.zoneStates.withLock { kept in if kept[id] == after { kept[id] = before } }
        }
        // Zones of different colours at one brightness (a painted strip dimmed): the strip reports that brightness
        // however it sums its zones up, so the light takes it, its colour and the zones' own kept.
        if oneColour == nil, let level = shownNow.flatMap(Self.commonBrightness), level != light.brightness {
            var levelled = light
            levelled.brightness = level
            var change = LightChange()
            change.brightness = levelled.change(for: bulb.light.model.kind).brightness
            return Started(
                awaiting: sendingColor((change, levelled, Double(durationMs)), to: bulb, from: sender, in: home),
                takeBack: takeBack)
        }
        let started = placing(
            oneColour, over: light, durationMs: durationMs, on: bulb, from: sender, in: home, takeBack: takeBack)
        if oneColour != nil {
            started.awaiting.whenTaken { _ in self.followLight(bulb, unlessChangedFrom: after, pixels: nil) }
        }
        return started
    }

    /// The brightness every one of `colors` has, if they share one.
    static func commonBrightness(_ colors: [HSBK]) -> UInt16? {
        guard let first = colors.first?.brightness, colors.allSatisfy({ $0.brightness == first }) else { return nil }
        return first
    }

    /// Once `bulb` took one colour for the whole light, its zones and pixels follow the light again, as a strip's
    /// zones all take the colour of a `SetColor`: even one that changes only the brightness, which leaves the
    /// zones' own colour as it was. Zones or pixels a later message placed meanwhile (other than `zones` and
    /// `pixels`, as this message's arrival left them) are that message's to show, and are left.
    func followLight(_ bulb: LIFXLight, unlessChangedFrom zones: LIFXZones?, pixels: LIFXMatrix?) {
        let id = bulb.light.id
        records.zoneStates.withLock { kept in
            if kept[id] == zones { kept[id] = nil }
        }
        records.matrixStates.withLock { kept in
            if kept[id] == pixels { kept[id] = nil }
        }
    }

    /// Starts a zone or pixel message whose colours were placed as it arrived, in a turn of `home`: one colour
    /// over the whole light, other than the one it shows, is a change to the light made over `durationMs`;
    /// anything else waits for the bulb to get the message. A message the bulb never takes is taken back
    /// (`takeBack`).
    func placing(
        _ oneColour: HSBK?, over light: HSBK, durationMs: UInt32, on bulb: LIFXLight, from sender: () -> String,
        in home: isolated Home, takeBack: @escaping @Sendable () -> Void
    ) -> Started {
        guard let oneColour, oneColour != light else {
            return Started(awaiting: delivery(to: bulb, in: home), takeBack: takeBack)
        }
        let change = oneColour.change(for: bulb.light.model.kind)
        return Started(
            awaiting: sending((change, oneColour, Double(durationMs)), to: bulb, from: sender, in: home),
            takeBack: takeBack)
    }

    /// The state messages that answer a zone message: `StateZone` for one zone, else a `StateMultiZone` for each
    /// eight from the first asked; `StateExtendedColorZones` for them all. Read in a turn of `home`.
    func zoneStates(
        answering request: LIFXRequest, of bulb: LIFXLight, after state: LightState, in home: isolated Home
    ) -> [LIFXReply] {
        let colors = zones(of: bulb, from: state, atMs: home.nowMilliseconds, in: home)
        let count = UInt8(colors.count)
        switch request {
        case .getColorZones(let start, let end), .setColorZones(let start, let end, _, _, _):
            let first = Int(start)
            let last = min(Int(end), colors.count - 1)
            guard first <= last else { return [] }
            if first == last { return [.stateZone(count: count, index: start, colors[first])] }
            return stride(from: first, through: last, by: 8).map { index in
                .stateMultiZone(
                    count: count, index: UInt8(index), Array(colors[index..<min(index + 8, last + 1)]))
            }
        default:
            return [.stateExtendedColorZones(count: UInt16(count), index: 0, colors)]
        }
    }
}
