import LumenModel
import LumenProtocol

extension Home {
    /// The settings that govern a light: its own, then its room's, then the home's.
    func effectiveSettings(of light: SimulatedLight, own: DeviceSettings? = nil) -> DeviceSettings {
        effectiveSettings(of: light.id, in: light.room, own: own)
    }

    /// The settings that govern the light `id` of the room `room`, worked out afresh.
    func effectiveSettings(of id: LightID, in room: RoomID, own: DeviceSettings? = nil) -> DeviceSettings {
        (own ?? lightSettings[id] ?? DeviceSettings())
            .inheriting(from: rooms[room]?.defaults ?? DeviceSettings()).inheriting(from: defaults)
    }

    /// The settings that govern the light at `index` of `lights`, kept on the light from its first command
    /// until its own settings change (a room's defaults and the home's do not change while lumend runs).
    func governingSettings(at index: LightTable.Slot) -> GoverningSettings {
        if let known = lights[slot: index].governingSettings { return known }
        let settings = GoverningSettings(effectiveSettings(of: lights[slot: index].id, in: lights[slot: index].room))
        lights[slot: index].governingSettings = settings
        return settings
    }

    /// Queues a command to a light and returns at once with a ticket for its outcome.
    ///
    /// Commands to one light take effect in the order they were submitted, whatever their sampled latency.
    /// - Parameters:
    ///   - change: what to change.
    ///   - light: the light.
    ///   - transitionMs: how long brightness and colour take to reach their targets; 0 for at once.
    /// - Throws: ``LumenError`` at once for an unknown light (`noSuchEntity`), a property the device lacks
    ///   (`notSupported`), a value out of range (`invalidParams`) or a full rate limit (`busy`). Unreachable
    ///   devices and dropped commands fail later, through the ticket, after the device's timeout.
    public func submit(_ change: LightChange, to light: LightID, transitionMs: Double = 0) throws(LumenError)
        -> CommandTicket
    {
        try send(change, to: light, transitionMs: transitionMs).ticket
    }

    /// Queues a command to a light, as ``submit(_:to:transitionMs:)`` does, and returns its outcome itself when
    /// the device took it as it was made (an instant device on the real clock, nothing else due first).
    /// - Throws: as ``submit(_:to:transitionMs:)`` does.
    public func send(_ change: LightChange, to light: LightID, transitionMs: Double = 0) throws(LumenError)
        -> CommandReceipt
    {
        do {
            return try dispatch(change, to: light, transitionMs: transitionMs)
        } catch {
            // Only a command a light received: not one to a light that is not there, nor one lumend stopped.
            guard !isShutDown, lights.slot(of: light) != nil else { throw error }
            let transitionMicros = transitionMs.isFinite ? Self.micros(min(max(transitionMs, 0), 1e12)) : 0
            recordCommand(change, to: light, transitionMicros: transitionMicros, .refused(error.code))
            throw error
        }
    }

    private func dispatch(_ change: LightChange, to light: LightID, transitionMs: Double) throws(LumenError)
        -> CommandReceipt
    {
        guard !isShutDown else { throw LumenError.shuttingDown }
        guard let index = lights.slot(of: light) else { throw Self.noSuchLight(light) }
        // The light's fields are read where they are, not copied out whole: every command comes this way.
        let kind = lights[slot: index].model.kind
        try change.validate()
        if let property = change.firstUnsupported(by: kind) {
            throw LumenError(
                .notSupported,
                "light '\(light)' (kind \(kind.rawValue)) has no \(property.rawValue)",
                data: ["light": .string(light.rawValue), "connection": .string(property.rawValue)])
        }
        try Self.validateTransition(transitionMs)
        refreshRealTime()
        let settings = governingSettings(at: index)
        // Beyond the rate limit a device either answers busy at once or drops the command unanswered.
        var overloaded = false
        if let rate = settings.rateLimitPerSecond, !takeToken(for: light, rate: rate) {
            guard settings.overload == .drop else {
                throw LumenError(
                    .busy,
                    "light '\(light)' accepts at most \(JSONNumber(rate)) command\(rate == 1 ? "" : "s") a second; "
                        + "slow down and retry",
                    data: ["light": .string(light.rawValue)])
            }
            overloaded = true
        }
        let now = nowMicros
        let transitionMicros = Self.micros(transitionMs)
        let delivery = lights[slot: index].deliver(at: now, settings: settings, overloaded: overloaded)
        if case .due(let due) = delivery, clockMode == .real, due <= now, !queue.hasEvent(notAfter: now) {
            // Due now (an instant device) with nothing else due before it: carried out at once, as the queue
            // would have, without passing through it, and answered with no ticket.
            let result = carryOut(change, transitionMicros: transitionMicros, to: light, at: index)
            recordCommand(change, to: light, transitionMicros: transitionMicros, Self.outcome(of: result))
            return .settled(result)
        }
        let id = nextCommandID
        nextCommandID += 1
        let ticket = CommandTicket()
        let record = recordCommand(change, to: light, transitionMicros: transitionMicros)
        pending[id] = PendingCommand(
            light: light, change: change, transitionMicros: transitionMicros, submittedAt: now, ticket: ticket,
            record: record)
        let timeout = settings.timeoutMicros
        let (event, due): (SimulationEvent, Int64) =
            switch delivery {
            case .unreachable: (.failCommand(id, LumenErrorCodeBox(rawValue: Self.unreachableCode)), now + timeout)
            case .lost: (.failCommand(id, LumenErrorCodeBox(rawValue: Self.timedOutCode)), now + timeout)
            case .due(let due): (.applyCommand(id), due)
            }
        queue.schedule(event, at: due)
        if clockMode == .real, due <= now {
            // Already due: handled now rather than after a timer task's round trip. Anything else due by now goes
            // first, in queue order, as a wake-up would have done.
            runEvents(notAfter: now)
        }
        armRealClock()
        return .waiting(ticket)
    }

    private static let unreachableCode = LumenError.Code.unreachable.rawValue
    private static let timedOutCode = LumenError.Code.timedOut.rawValue

    static func validateTransition(_ transitionMs: Double) throws(LumenError) {
        guard transitionMs.isFinite, SimulatedDurations.milliseconds.contains(transitionMs) else {
            throw LumenError(
                .invalidParams,
                "transitionMs must be 0–\(JSONNumber(SimulatedDurations.longestMs)), got \(JSONNumber(transitionMs))",
                data: ["argument": "transitionMs"])
        }
    }

    /// Takes a token from the bucket of a light whose rate limit is `rate`; `false` when it has none.
    func takeToken(for light: LightID, rate: Double) -> Bool {
        let capacity = max(1, rate)
        var bucket = rateBuckets[light] ?? RateBucket(tokens: capacity, updatedAt: nowMicros)
        let elapsed = Double(nowMicros - bucket.updatedAt) / 1_000_000
        bucket.tokens = min(capacity, bucket.tokens + elapsed * rate)
        bucket.updatedAt = nowMicros
        defer { rateBuckets[light] = bucket }
        guard bucket.tokens >= 1 else { return false }
        bucket.tokens -= 1
        return true
    }

    func applyCommand(_ id: UInt64) {
        guard let command = pending.removeValue(forKey: id) else { return }
        apply(command, id: id)
    }

    /// Carries out a command that has fallen due.
    func apply(_ command: PendingCommand, id: UInt64) {
        guard let index = lights.slot(of: command.light) else {
            settle(command, .failure(Self.noSuchLight(command.light)))
            return
        }
        apply(command, id: id, at: index)
    }

    /// Carries out a command to the light at `index` of `lights`.
    func apply(_ command: PendingCommand, id: UInt64, at index: LightTable.Slot) {
        guard lights[slot: index].isReachable else {
            if command.isGroup {
                settle(command, .failure(LumenError(.unreachable, "missed")))
                return
            }
            // It went away while the command was in flight: the sender hears nothing until its timeout.
            pending[id] = command
            let timeout = governingSettings(at: index).timeoutMicros
            schedule(
                .failCommand(id, LumenErrorCodeBox(rawValue: LumenError.Code.unreachable.rawValue)),
                at: max(nowMicros, command.submittedAt + timeout))
            return
        }
        settle(
            command,
            carryOut(command.change, transitionMicros: command.transitionMicros, to: command.light, at: index))
    }

    /// Makes `change` to the reachable light `light`, at `index` of `lights`, and returns the state it lands
    /// on, or why the light refused it.
    func carryOut(_ change: LightChange, transitionMicros: Int64, to light: LightID, at index: LightTable.Slot)
        -> Result<LightState, LumenError>
    {
        // A new command ends a running fade where it stands: what it does not change stays at the fade's
        // current step, not its target.
        let running = transitions.isEmpty ? nil : transitions.removeValue(forKey: light)
        // No closures on this path: one that reads the actor's state is checked for isolation when called.
        let current = if let running { running.state(at: nowMicros) } else { lights[slot: index].state }
        if let refusal = refusalWhileOff(change, toLightAt: index, current: current) {
            if let running { transitions[light] = running }
            return .failure(refusal)
        }
        let landing = change.applied(to: current)
        let generation = lights[slot: index].startTransition()
        if let transition = Transition(
            current: current, landing: landing, kind: lights[slot: index].model.kind, start: nowMicros,
            duration: transitionMicros)
        {
            transitions[light] = transition
            setState(at: index, to: transition.state(at: nowMicros))
            persistLight(at: index, savedState: landing)
            schedule(
                .transitionStep(light, generation: generation),
                at: nowMicros + min(Transition.stepMicros, transitionMicros))
        } else {
            setState(at: index, to: landing)
            persistLight(at: index, savedState: landing)
        }
        return .success(landing)
    }

    /// Why a light that is off will not take `change`, if it will not: a light that refuses changes while
    /// off (as Hue bulbs do) takes no brightness or colour unless the same change turns it on.
    func refusalWhileOff(_ change: LightChange, toLightAt index: LightTable.Slot, current: LightState) -> LumenError? {
        guard !current.isOn, change.isOn != true else { return nil }
        guard governingSettings(at: index).whileOff == .refuse else { return nil }
        let device = lights[slot: index]
        let refused = change.properties.filter { $0 != .isOn }
        guard let first = refused.first else { return nil }
        return LumenError(
            .deviceOff,
            "light '\(device.id)' is off and does not take \(first.rawValue) while off; "
                + "turn it on first, or in the same set",
            data: ["light": .string(device.id.rawValue), "connection": .string(first.rawValue)])
    }

    func failCommand(_ id: UInt64, code: LumenError.Code) {
        guard let command = pending.removeValue(forKey: id) else { return }
        let light = command.light.rawValue
        let error: LumenError
        switch code {
        case .unreachable:
            error = LumenError(
                .unreachable, "light '\(light)' is unreachable; check its power or wait for it to come back",
                data: ["light": .string(light)])
        default:
            error = LumenError(
                .timedOut, "light '\(light)' did not confirm the command in time; retry",
                data: ["light": .string(light)])
        }
        settle(command, .failure(error))
    }

    func stepTransition(_ id: LightID, generation: UInt32) {
        guard let device = lights[id], device.transitionGeneration == generation, let transition = transitions[id]
        else { return }
        let state = transition.state(at: nowMicros)
        if nowMicros >= transition.start + transition.duration {
            transitions[id] = nil
            // Fading off reaches the lowest level before it switches off.
            if transition.landing != transition.fadeTo { setState(of: id, to: transition.fadeTo) }
        } else {
            let next = min(nowMicros + Transition.stepMicros, transition.start + transition.duration)
            schedule(.transitionStep(id, generation: generation), at: next)
        }
        setState(of: id, to: state)
    }

    /// Sets a light's state and emits one event per property that really changed.
    func setState(of id: LightID, to state: LightState) {
        guard let index = lights.slot(of: id) else { return }
        setState(at: index, to: state)
    }

    /// Sets the state of the light at `index` of `lights`, and emits one event per property that really
    /// changed.
    func setState(at index: LightTable.Slot, to state: LightState) {
        guard let change = lights[slot: index].take(state) else { return }
        let (old, id, kind, audience) = (change.old, change.id, change.kind, change.audience)
        // Only switching on or off moves the room's derived values.
        var group: SimulatedRoom.GroupSwitch?
        if old.isOn != state.isOn {
            if let found = rooms.index(forKey: change.room) { group = rooms.values[found].countSwitch(on: state.isOn) }
            emit(.isOn, of: id, .bool(state.isOn), to: audience)
        }
        if kind.supports(.brightness), old.brightness != state.brightness {
            emit(.brightness, of: id, .double(state.brightness), to: audience)
        }
        if kind.supports(.colorTemperature), old.colorTemperature != state.colorTemperature {
            emit(.colorTemperature, of: id, .int(state.colorTemperature), to: audience)
        }
        if kind.supports(.color), old.color != state.color {
            emit(.color, of: id, state.color.jsonValue, to: audience)
        }
        // The room's derived values follow its light's own changes.
        if let group {
            emitGroupChange(of: change.room, from: group.before, to: group.after, audience: group.audience)
        }
    }

    /// Renames the home, a room or a light. Names live on the bridge, so this takes effect at once.
    /// - Throws: ``LumenError`` for an unknown entity or a name ``EntityName`` refuses.
    public func setName(_ newName: String, of entity: Entity) throws(LumenError) {
        if let problem = EntityName.validate(newName) { throw LumenError(.invalidParams, problem) }
        switch entity {
        case .home:
            guard name != newName else { return }
            name = newName
        case .room(let id):
            guard let room = rooms[id] else { throw Self.noSuchRoom(id) }
            guard room.name != newName else { return }
            rooms[id]?.name = newName
        case .light(let id):
            guard let light = lights[id] else { throw Self.noSuchLight(id) }
            guard light.name != newName else { return }
            lights[id]?.name = newName
        }
        switch entity {
        case .home: emit(.home(.name), .string(newName))
        case .room(let id): emit(.room(id, .name), .string(newName))
        case .light(let id): emit(.light(id, .name), .string(newName))
        }
        persist(entity)
    }

    static func noSuchLight(_ id: LightID) -> LumenError {
        LumenError(
            .noSuchEntity, "no light '\(id)'; list lights with 'lumenctl lights'", data: ["light": .string(id.rawValue)]
        )
    }

    static func noSuchRoom(_ id: RoomID) -> LumenError {
        LumenError(
            .noSuchEntity, "no room '\(id)'; list rooms with 'lumenctl rooms'", data: ["room": .string(id.rawValue)])
    }
}
