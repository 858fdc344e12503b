import LumenModel
import LumenProtocol

extension Home {
    /// The settings that govern the light `id` of the room `room`, worked out afresh: `own` (by default the
    /// light's own), then its room's, then the home's.
    func effectiveSettings(of id: LightID, in room: RoomID, own: DeviceSettings? = nil) -> DeviceSettings {
        (own ?? lightSettings[id] ?? DeviceSettings())
            .inheriting(from: rooms[room]?.defaults ?? DeviceSettings()).inheriting(from: defaults)
    }

    /// The settings that govern the light at `index` of `lights`, kept on the light from its first command
    /// until its own settings change (a room's defaults and the home's do not change while lumend runs).
    func governingSettings(at index: LightTable.Slot) -> GoverningSettings {
        if let known = lights[slot: index].governingSettings { return known }
        let settings = GoverningSettings(
            effectiveSettings(of: lights[slot: index].id, in: lights[slot: index].room),
            manufacturer: lights[slot: index].model.manufacturer)
        lights[slot: index].governingSettings = settings
        return settings
    }

    /// Queues a command to a light and returns its outcome itself when the device took it as it was made (an
    /// instant device on the real clock, nothing else due first), else a ticket for its outcome.
    ///
    /// Commands to one light take effect in the order they were submitted, whatever their sampled latency.
    /// - Parameters:
    ///   - change: what to change.
    ///   - light: the light.
    ///   - transitionMs: how long brightness and colour take to reach their targets; 0 for at once.
    ///   - throughBridge: sent through the Hue bridge (its API), so it takes one of the bridge's light
    ///     commands whatever the light's family; a Hue family light's always does.
    /// - Throws: ``LumenError`` at once for an unknown light (`noSuchEntity`), a property the device lacks
    ///   (`notSupported`), a value out of range (`invalidParams`) or a full rate limit (`busy`). Unreachable
    ///   devices and dropped commands fail later, through the ticket, after the device's timeout.
    package func send(_ change: LightChange, to light: LightID, transitionMs: Double = 0, throughBridge: Bool = false)
        throws(LumenError) -> CommandReceipt
    {
        do {
            return try dispatch(change, to: light, transitionMs: transitionMs, throughBridge: throughBridge)
        } catch {
            // Only a command a light received: not one to a light that is not there, nor one lumend stopped.
            guard !isShutDown, lights.slot(of: light) != nil else { throw error }
            let transitionMicros = transitionMs.isFinite ? Self.micros(min(max(transitionMs, 0), 1e12)) : 0
            recordCommand(change, to: light, transitionMicros: transitionMicros, .refused(error.code))
            throw error
        }
    }

    private func dispatch(_ change: LightChange, to light: LightID, transitionMs: Double, throughBridge: Bool)
        throws(LumenError) -> CommandReceipt
    {
        guard !isShutDown else { throw LumenError.shuttingDown }
        guard let index = lights.slot(of: light) else { throw Self.noSuchLight(light) }
        // The light's fields are read where they are, not copied out whole: every command comes this way.
        let kind = lights[slot: index].model.kind
        try change.validate(
            colorTemperatures: governingSettings(at: index).family.colorTemperatureRange(of: lights[slot: index].model))
        if let property = change.firstUnsupported(by: kind) { throw Self.notSupported(property, by: light, kind) }
        try Self.validateTransition(
            transitionMs,
            longest: change.timedEffect == nil ? SimulatedDurations.longestTransitionMs : TimedEffect.longestMs)
        refreshRealTime()
        let settings = governingSettings(at: index)
        let change = try change.levelZeroResolved(for: settings.family, light: light)
        if settings.family.isBehindBridge || throughBridge { try bridge.take(group: false, at: nowMicros) }
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
        if case .due(let due) = delivery, clockMode == .real, due <= now, (queue.nextDue ?? .max) > now {
            // Due now (an instant device) with nothing else due before it: carried out at once, as the queue
            // would have, without passing through it, and answered with no ticket.
            let result = carryOut(change, transitionMicros: transitionMicros, to: light, at: index)
            recordCommand(change, to: light, transitionMicros: transitionMicros, Self.outcome(of: result))
            return .settled(result)
        }
        let id = pending.takeNumber()
        let ticket = CommandTicket()
        let record = recordCommand(change, to: light, transitionMicros: transitionMicros)
        var command = PendingCommand(
            light: light, change: change, transitionMicros: transitionMicros, submittedAt: now, ticket: ticket,
            record: record)
        let timeout = now + settings.timeoutMicros
        let events: [(SimulationEvent, Int64)]
        switch (delivery, settings.family.faultReport) {
        case (.due(let due), _):
            events = [(.applyCommand(id), due)]
        case (.answerLost(let due), _):
            // The light takes it, but its acknowledgement is lost: the sender times out all the same.
            command.fate = .answerLost
            events = [(.applyCommand(id), due), (.failCommand(id, Self.timedOutBox), max(timeout, due))]
        case (.unreachable(let due), .bridgeAnswers), (.lost(let due), .bridgeAnswers):
            // A bridge answers once it has sent the command, whether or not the light took it.
            command.fate = .missed(delivery.isUnreachable ? .unreachable : .dropped)
            events = [(.applyCommand(id), due)]
        case (.unreachable, .exact):
            events = [(.failCommand(id, Self.unreachableBox), timeout)]
        case (.unreachable, _):
            command.truth = .unreachable
            events = [(.failCommand(id, Self.timedOutBox), timeout)]
        case (.lost, _):
            events = [(.failCommand(id, Self.timedOutBox), timeout)]
        }
        pending.add(command, as: id)
        for (event, due) in events { queue.schedule(event, at: due) }
        if clockMode == .real, events.contains(where: { $0.1 <= now }) {
            // Already due: handled now rather than after a timer task's round trip. Anything else due by now goes
            // first, in queue order, as a wake-up would have done.
            runEvents(notAfter: now)
        }
        armRealClock()
        return .waiting(ticket)
    }

    static let unreachableBox = LumenErrorCodeBox(rawValue: LumenError.Code.unreachable.rawValue)
    static let timedOutBox = LumenErrorCodeBox(rawValue: LumenError.Code.timedOut.rawValue)

    /// Checks a transition of `transitionMs` milliseconds: from 0 to `longest`, by default a client's longest
    /// (``SimulatedDurations/longestTransitionMs``, two hours).
    static func validateTransition(
        _ transitionMs: Double, longest: Double = SimulatedDurations.longestTransitionMs
    ) throws(LumenError) {
        guard transitionMs.isFinite, (0...longest).contains(transitionMs) else {
            let hours = longest == SimulatedDurations.longestTransitionMs ? " (two hours)" : ""
            throw LumenError(
                .invalidParams, "transitionMs must be 0–\(JSONNumber(longest))\(hours), got \(JSONNumber(transitionMs))"
            )
        }
    }

    /// Takes a token from the bucket of a light whose rate limit is `rate`; `false` when it has none.
    func takeToken(for light: LightID, rate: Double) -> Bool {
        RateBucket.take(from: &rateBuckets[light], rate: rate, at: nowMicros)
    }

    /// Carries out the command `id`, which has fallen due.
    func applyCommand(_ id: UInt64) {
        guard let command = pending.removeCommand(id) else { return }
        guard let index = lights.slot(of: command.light) else {
            settle(command, .failure(Self.noSuchLight(command.light)))
            return
        }
        apply(command, id: id, at: index)
    }

    /// Carries out a command to the light at `index` of `lights`.
    func apply(_ command: PendingCommand, id: UInt64, at index: LightTable.Slot) {
        let reachable = lights[slot: index].isReachable
        let settings = governingSettings(at: index)
        switch command.fate {
        case .missed(let truth):
            // The bridge confirms what it sent; the light never saw it.
            settle(command, .success(command.change.applied(to: savedState(at: index))), outcome: truth)
            return
        case .answerLost:
            // The record says what the light did now; the sender's ticket waits for its timeout, scheduled already.
            let result = reachable ? carryOut(command, at: index) : .failure(LumenError(.unreachable, "missed"))
            pending.add(command, as: id)
            announceCommand(command.record, Self.outcome(of: result))
            return
        case .arrives:
            break
        }
        guard reachable else {
            if command.isGroup {
                settle(command, .failure(LumenError(.unreachable, "missed")))
            } else if settings.family.faultReport == .bridgeAnswers {
                // It went away while the bridge was sending: the bridge confirms it all the same.
                settle(command, .success(command.change.applied(to: savedState(at: index))), outcome: .unreachable)
            } else {
                // It went away while the command was in flight: the sender hears nothing until its timeout.
                var command = command
                command.truth = .unreachable
                pending.add(command, as: id)
                let code = settings.family.faultReport == .exact ? Self.unreachableBox : Self.timedOutBox
                schedule(.failCommand(id, code), at: max(nowMicros, command.submittedAt + settings.timeoutMicros))
            }
            return
        }
        settle(command, carryOut(command, at: index))
    }

    /// Carries out a pending command on the reachable light at `index` of `lights`.
    private func carryOut(_ command: PendingCommand, at index: LightTable.Slot) -> Result<LightState, LumenError> {
        carryOut(command.change, transitionMicros: command.transitionMicros, to: command.light, at: index)
    }

    /// Makes `change` to the reachable light `light`, at `index` of `lights`, and returns the state it lands
    /// on, or why the light refused it.
    ///
    /// The change ends the fades its family says it ends (``DeviceFamily/fadesEnded(bySetting:)``) where they
    /// stand; other fades run on.
    func carryOut(_ change: LightChange, transitionMicros: Int64, to light: LightID, at index: LightTable.Slot)
        -> Result<LightState, LumenError>
    {
        let now = nowMicros
        var fades = transitions.isEmpty ? LightFades() : transitions[light] ?? LightFades()
        let shown = lights[slot: index].state
        // No closures on this path: one that reads the actor's state is checked for isolation when called.
        var current = fades.isEmpty ? shown : fades.state(at: now, over: shown)
        if let refusal = refusalWhileOff(change, toLightAt: index, current: current) { return .failure(refusal) }
        let hadFades = !fades.isEmpty
        // A timed effect is the light's own: any command ends it, every ramp where it stands. A sunrise starts
        // from the dark, whatever the light showed and whatever fades it had.
        let endsTimedEffect = fades.runningTimedEffect != nil
        let startsSunrise = change.timedEffect?.kind == .sunrise
        if endsTimedEffect || startsSunrise { fades = LightFades() }
        if startsSunrise { current = sunriseDawn(at: index, from: current) }
        if hadFades {
            let family = governingSettings(at: index).family
            for property in change.properties where property != .isOn {
                for ended in family.fadesEnded(bySetting: property) { fades.end(ended) }
            }
            // Switching on or off moves the level, which ends its fade; so does switching on a light fading off,
            // which is still on until the fade lands.
            if let isOn = change.isOn, isOn != current.isOn || (isOn && fades.offLevel != nil) {
                fades.end(.brightness)
            }
        }
        var change = change
        // Checked when sent; the light's family may have changed on its way (setFaults), and a bulb takes a value
        // past its range as the nearer end.
        if let mireds = change.colorTemperature {
            change.colorTemperature = governingSettings(at: index).family
                .colorTemperatureRange(of: lights[slot: index].model).clamping(mireds)
        }
        // A colour light set to a colour temperature shows that white: its colour moves there too.
        if let mireds = change.colorTemperature, change.color == nil, lights[slot: index].model.kind.supports(.color) {
            change.color = CIEColor(mireds: mireds)
        }
        let target = change.applied(to: current)
        let startShown = fades.start(
            change, from: current, to: target, kind: lights[slot: index].model.kind, at: now,
            duration: transitionMicros)
        if let effect = change.timedEffect { fades.timedEffect = effect }
        let landing = fades.landing(over: startShown)
        if fades.isEmpty {
            if hadFades {
                transitions[light] = nil
                _ = lights[slot: index].startTransition()
            }
        } else {
            transitions[light] = fades
            let generation = lights[slot: index].startTransition()
            if let next = fades.nextStep(after: now) {
                schedule(.transitionStep(light, generation: generation), at: next)
            }
        }
        setState(at: index, to: fades.state(at: now, over: startShown))
        persistLight(at: index, savedState: landing)
        if endsTimedEffect || fades.runningTimedEffect != nil { tellFronts(.timedEffectChanged(light)) }
        return .success(landing)
    }

    /// Where a sunrise starts on the light at `index`, from `state`: on, at its dimmest, in the warmest white
    /// its family and model take (a colour light showing that white).
    private func sunriseDawn(at index: LightTable.Slot, from state: LightState) -> LightState {
        var dawn = state
        dawn.isOn = true
        dawn.brightness = LightState.brightnessRange.lowerBound
        let model = lights[slot: index].model
        if model.kind.supports(.colorTemperature) {
            dawn.colorTemperature = governingSettings(at: index).family.colorTemperatureRange(of: model).upperBound
            if model.kind.supports(.color) { dawn.color = CIEColor(mireds: dawn.colorTemperature) }
        }
        return dawn
    }

    /// Drops the light's fades where they stand; a timed effect they played ends with them, which the fronts
    /// hear.
    func dropTransitions(of id: LightID) {
        if transitions.removeValue(forKey: id)?.runningTimedEffect != nil { tellFronts(.timedEffectChanged(id)) }
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
        guard let command = pending.removeCommand(id) else { return }
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
        switch command.fate {
        // The record said what the light did when it did it; the sender hears only its timeout.
        case .answerLost: command.ticket.settle(.failure(error))
        default: settle(command, .failure(error), outcome: command.truth)
        }
    }

    func stepTransition(_ id: LightID, generation: UInt32) {
        guard let index = lights.slot(of: id), lights[slot: index].transitionGeneration == generation,
            var fades = transitions[id]
        else { return }
        let now = nowMicros
        let shown = lights[slot: index].state
        if let ramp = fades.brightness, fades.offLevel != nil, ramp.end <= now {
            // Fading off reaches the lowest level before it switches off.
            var lowest = shown
            lowest.brightness = ramp.to
            setState(at: index, to: lowest)
        }
        let state = fades.state(at: now, over: shown)
        let playing = fades.runningTimedEffect != nil
        fades.dropLanded(at: now)
        if let next = fades.nextStep(after: now) {
            transitions[id] = fades
            schedule(.transitionStep(id, generation: generation), at: next)
        } else {
            transitions[id] = nil
        }
        setState(at: index, to: state)
        // Its last steps may move nothing the light shows (a long sunrise's last tenth of a per cent): its end is
        // news all the same.
        if playing, transitions[id]?.runningTimedEffect == nil { tellFronts(.timedEffectChanged(id)) }
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
    package func setName(_ newName: String, of entity: Entity) throws(LumenError) {
        if let problem = EntityName.validate(newName) { throw LumenError(.invalidParams, problem) }
        switch entity {
        case .home:
            guard name != newName else { return }
            name = newName
            emit(.home(.name), .string(newName))
        case .room(let id):
            guard let room = rooms[id] else { throw Self.noSuchRoom(id) }
            guard room.name != newName else { return }
            rooms[id]?.name = newName
            emit(.room(id, .name), .string(newName))
        case .light(let id):
            guard let light = lights[id] else { throw Self.noSuchLight(id) }
            guard light.name != newName else { return }
            lights[id]?.name = newName
            emit(.light(id, .name), .string(newName))
        }
        persist(entity)
    }

    /// Where the advice of an unknown room or light points: what the client that asked can read to find the
    /// IDs there are, in the protocol's words (the home serves clients of every kind, not only lumenctl).
    enum Listing {
        /// A room or light scope's client: the home's `roomIDs`, a room's `lightIDs`.
        case scopes
        /// The simulation's controls, which take any room or light of the home: its `snapshot`.
        case simulation
    }

    static func noSuchLight(_ id: LightID, listedBy listing: Listing = .scopes) -> LumenError {
        let advice =
            switch listing {
            case .scopes: "read a room's lightIDs for the lights there are"
            case .simulation: "call the simulation's snapshot for the lights there are"
            }
        return LumenError(.noSuchEntity, "no light '\(id)'; \(advice)", data: ["light": .string(id.rawValue)])
    }

    /// The error for a property the light `id`, of `kind`, does not have.
    static func notSupported(_ property: LightProperty, by id: LightID, _ kind: LightKind) -> LumenError {
        LumenError(
            .notSupported,
            "light '\(id)' (kind \(kind.rawValue)) has no \(property.rawValue); read its model for what it has",
            data: ["light": .string(id.rawValue), "connection": .string(property.rawValue)])
    }

    static func noSuchRoom(_ id: RoomID, listedBy listing: Listing = .scopes) -> LumenError {
        let advice =
            switch listing {
            case .scopes: "read the home's roomIDs for the rooms there are"
            case .simulation: "call the simulation's snapshot for the rooms there are"
            }
        return LumenError(.noSuchEntity, "no room '\(id)'; \(advice)", data: ["room": .string(id.rawValue)])
    }
}
