import LumenModel
import LumenProtocol
import LumenSimulation

extension LIFXFront {
    /// The zones of `bulb` (a strip) whose light is in `state`.
    func zones(of bulb: LIFXLight, in state: LightState) -> [HSBK] {
        let light = HSBK(state, kind: bulb.light.model.kind)
        return LIFXZones.current(records.zoneStates.withLock { $0[bulb.light.id] }, light: light).colors
    }

    /// Sets the zones of `bulb` from `index` on to `colors`, as `apply` says, and returns its state after;
    /// `nil` when the bulb never answers. One colour along the whole strip, other than the light's own, is a
    /// change to the light, made over `durationMs` as `SetColor`'s; zones of different colours are kept beside
    /// the light, at once.
    ///
    /// The zones are read, set and kept in one step as the message arrives, so messages to one strip take turns
    /// in the order they came, as in a bulb's queue: one that places nothing (aiolifx follows its 82 colours with
    /// an empty message from zone 82 on) finds the zones the message before it left, not those the light still
    /// shows while that message's colour is on its way.
    func setZones(
        _ colors: [HSBK], from index: Int, durationMs: UInt32, apply: UInt8, on bulb: LIFXLight,
        from sender: @escaping @Sendable () -> String
    ) async -> LightState? {
        let kind = bulb.light.model.kind
        let id = bulb.light.id
        let light = HSBK(bulb.light.state, kind: kind)
        let newColor: HSBK? = records.zoneStates.withLock { kept in
            var zones = LIFXZones.current(kept[id], light: light)
            guard let shown = zones.set(colors, from: index, apply: apply) else {
                kept[id] = zones
                return nil
            }
            if let first = shown.first, shown.allSatisfy({ $0 == first }) {
                // The zones follow the light again; a colour the light shows already changes nothing.
                kept[id] = nil
                return first == light ? nil : first
            }
            zones.colors = shown
            kept[id] = zones
            return nil
        }
        guard let newColor else { return await delivered(to: bulb) }
        do {
            return try await scopeContext.perform(
                newColor.change(for: kind), to: id,
                transitionMs: min(Double(durationMs), SimulatedDurations.longestMs), from: sender())
        } catch {
            return nil
        }
    }

    /// The state messages that answer a zone message: `StateZone` for one zone, else a `StateMultiZone` for each
    /// eight from the first asked; `StateExtendedColorZones` for them all.
    func zoneStates(answering request: LIFXRequest, of bulb: LIFXLight, after state: LightState) -> [LIFXReply] {
        let colors = zones(of: bulb, in: state)
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
