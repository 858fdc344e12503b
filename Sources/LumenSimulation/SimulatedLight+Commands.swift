import LumenModel

extension SimulatedLight {
    /// How a command sent to a light fares on its way.
    ///
    /// Each case carries a time in microseconds of simulation time: when it takes effect, or when it would have
    /// reached the light (which is when a bridge answers for it).
    enum Delivery {
        /// The light cannot be reached.
        case unreachable(Int64)
        /// The device drops it (by chance, or beyond its rate limit).
        case lost(Int64)
        /// It takes effect then.
        case due(Int64)
        /// It takes effect then, but its acknowledgement is lost on the way back.
        case answerLost(Int64)

        var isUnreachable: Bool { if case .unreachable = self { true } else { false } }
    }

    /// Sends a command at `now`: draws its latency and whether it is dropped from the light's own random
    /// stream, and gives it the light's next turn, never before the command queued before it.
    ///
    /// Both draws happen for every command, however it fares, so a light's random stream does not depend on
    /// whether it happened to be reachable or busy. A dropped command of a family whose acknowledgements can be
    /// lost draws once more: which of the two was lost. Done in one step on the light where it lies: a command
    /// reads and changes the light once, not field by field.
    mutating func deliver(at now: Int64, settings: GoverningSettings, overloaded: Bool) -> Delivery {
        let (latency, dropped) = drawDelivery(settings)
        guard isReachable else { return .unreachable(now + latency) }
        guard !overloaded else { return .lost(now + latency) }
        let due = max(now + latency, lastApplyAt)
        if dropped {
            let share = settings.family.acknowledgementLossShare
            guard share > 0, Double.random(in: 0..<1, using: &random) < share else { return .lost(now + latency) }
            lastApplyAt = due
            return .answerLost(due)
        }
        lastApplyAt = due
        return .due(due)
    }

    /// A command's two draws from the light's random stream: its latency, in microseconds, and whether the
    /// device drops it.
    mutating func drawDelivery(_ settings: GoverningSettings) -> (latencyMicros: Int64, dropped: Bool) {
        let latency = settings.fixedLatencyMicros ?? Home.micros(settings.latency.sample(using: &random))
        let drop = settings.dropProbability
        let dropped = drop > 0 && Double.random(in: 0..<1, using: &random) < drop
        return (latency, dropped)
    }

    /// Starts a new transition (or a change at once), so the steps of any running one are ignored; returns its
    /// generation.
    mutating func startTransition() -> UInt32 {
        transitionGeneration &+= 1
        return transitionGeneration
    }
}

extension SimulatedLight {
    /// What announcing a change of a light's state needs to know of the light.
    struct StateChange {
        /// The state it had.
        let old: LightState
        let id: LightID
        let kind: LightKind
        let room: RoomID
        let audience: PropertyAudience
    }

    /// Takes `newState` as its state, in one step on the light where it lies; `nil` when it had that state
    /// already.
    mutating func take(_ newState: LightState) -> StateChange? {
        guard state != newState else { return nil }
        defer { state = newState }
        return StateChange(old: state, id: id, kind: model.kind, room: room, audience: audience)
    }
}
