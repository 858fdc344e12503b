import LumenModel

extension LIFXDeviceRecords {
    /// Which of a device's firmware effects: a strip's (`SetMultiZoneEffect`) or a matrix's (`SetTileEffect`).
    enum EffectKind: Sendable, Hashable {
        case multiZone
        case tile
    }

    /// The effect types a device of each kind has: on a strip none (0) and move (1); on a matrix none, morph (2),
    /// flame (3) and sky (5). The protocol reserves the others, and Home Assistant fails on every poll of a device
    /// that reports one.
    static func effectTypes(of kind: EffectKind) -> Set<UInt8> {
        switch kind {
        case .multiZone: [0, 1]
        case .tile: [0, 2, 3, 5]
        }
    }

    /// An effect given a duration, with when it ends, in simulation milliseconds.
    struct TimedEffect: Sendable, Hashable {
        var effect: LIFXEffect
        var endsAtMs: Double
    }

    /// Keeps `effect` as the one `light` runs, from `nowMs`: for ever when it has no duration, which is saved
    /// with the bulb; else until its duration ends, and not saved, as it would not outlive the run it is part of.
    func setEffect(_ effect: LIFXEffect, _ kind: EffectKind, of light: LightID, atMs nowMs: Double) {
        let endless = effect.durationNs == 0 ? effect : nil
        switch kind {
        case .multiZone: multiZoneEffects.withLock { $0[light] = endless }
        case .tile: tileEffects.withLock { $0[light] = endless }
        }
        let timed =
            endless == nil ? TimedEffect(effect: effect, endsAtMs: nowMs + Double(effect.durationNs) / 1e6) : nil
        timedEffects.withLock { $0[light, default: [:]][kind] = timed }
    }

    /// The effect `light` runs at `nowMs`: one given a duration stops when it ends, as firmware's does, and the
    /// device then reports none.
    func effect(_ kind: EffectKind, of light: LightID, atMs nowMs: Double) -> LIFXEffect {
        let timed = timedEffects.withLock { timed -> LIFXEffect?? in
            guard let running = timed[light]?[kind] else { return nil }
            guard nowMs < running.endsAtMs else {
                timed[light]?[kind] = nil
                return .some(nil)
            }
            return running.effect
        }
        if let timed { return timed ?? .none }
        switch kind {
        case .multiZone: return multiZoneEffects.withLock { $0[light] } ?? .none
        case .tile: return tileEffects.withLock { $0[light] } ?? .none
        }
    }
}
