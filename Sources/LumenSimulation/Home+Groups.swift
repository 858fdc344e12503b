import LumenModel
import LumenProtocol

/// What one light did with a room's group command.
public struct GroupDelivery: Sendable, Hashable {
    /// Why a light missed a group command.
    public enum Miss: String, Sendable, Hashable {
        /// It could not be reached (a group command is not acknowledged, so nobody waits for it).
        case unreachable
        /// The frame was lost on the way (its `dropProbability`).
        case lost
        /// It was beyond its rate limit and had no room for one more command.
        case overloaded
        /// It is off and does not take brightness or colour while off.
        case off
    }

    /// The light.
    public var light: LightID
    /// The properties it applied.
    public var applied: [LightProperty]
    /// The properties it cannot do, left out for it.
    public var ignored: [LightProperty]
    /// Why it missed the command, if it did.
    public var missed: Miss?

    /// A delivery.
    public init(light: LightID, applied: [LightProperty], ignored: [LightProperty], missed: Miss?) {
        self.light = light
        self.applied = applied
        self.ignored = ignored
        self.missed = missed
    }

    /// The delivery as the `setAll` reply lists it.
    public var jsonValue: JSONValue {
        var object: JSONObject = ["light": .string(light.rawValue)]
        if let missed {
            object["missed"] = .string(missed.rawValue)
        } else {
            object["applied"] = .array(applied.map { .string($0.rawValue) })
        }
        if !ignored.isEmpty { object["ignored"] = .array(ignored.map { .string($0.rawValue) }) }
        return .object(object)
    }
}

/// A group command under way: one ticket per light that was sent it.
public struct GroupTicket: Sendable {
    let deliveries: [(delivery: GroupDelivery, ticket: CommandTicket?)]
    /// Settles when the last of those tickets does; `nil` when no light was sent the command.
    let completion: GroupCompletion?

    /// Waits until every light has applied or missed the command; the lights in the room's order.
    /// - Throws: ``LumenError`` `shuttingDown` when the home shut down before every light had its turn.
    public var outcome: [GroupDelivery] {
        get async throws(LumenError) {
            // Woken once, when the last light answers: every ticket is settled by then.
            if let completion { _ = await completion.ticket.result }
            return try settledOutcome.get()
        }
    }

    /// Calls `observer` with the outcome once every light has applied or missed the command, as
    /// ``CommandTicket/whenSettled(_:)`` does: on the home's executor as the last light answers, or now.
    public func whenSettled(_ observer: @escaping @Sendable (Result<[GroupDelivery], LumenError>) -> Void) {
        guard let completion else { return observer(settledOutcome) }
        completion.ticket.whenSettled { [self] _ in observer(settledOutcome) }
    }

    /// The outcome, once every ticket has settled.
    private var settledOutcome: Result<[GroupDelivery], LumenError> {
        var result: [GroupDelivery] = []
        for (delivery, ticket) in deliveries {
            var delivery = delivery
            if let ticket, case .failure(let error) = ticket.settledResult {
                switch error.code {
                case .shuttingDown: return .failure(error)
                case .deviceOff: delivery.missed = .off
                default: delivery.missed = .unreachable
                }
                delivery.applied = []
            }
            result.append(delivery)
        }
        return .success(result)
    }
}

extension Home {
    /// Sends `change` to every light of a room at once, as a Zigbee group command does: one broadcast that
    /// each light applies after its own latency.
    ///
    /// Lights that cannot be reached, lose the frame or are beyond their rate limit miss it silently; a light
    /// leaves out the properties it cannot do. Commands to each light still take effect in order.
    /// - Throws: ``LumenError`` for an unknown room, an empty change, or a value or transition out of range.
    public func setAll(_ change: LightChange, in roomID: RoomID, transitionMs: Double = 0) throws(LumenError)
        -> GroupTicket
    {
        guard !isShutDown else { throw LumenError.shuttingDown }
        guard let room = rooms[roomID] else { throw Self.noSuchRoom(roomID) }
        guard !change.properties.isEmpty else {
            throw LumenError(
                .invalidParams, "setAll needs at least one of isOn, brightness, colorTemperature, color",
                data: ["room": .string(roomID.rawValue)])
        }
        try change.validate()
        try Self.validateTransition(transitionMs)
        refreshRealTime()
        var deliveries: [(GroupDelivery, CommandTicket?)] = []
        let completion = GroupCompletion()
        for lightID in room.lightIDs {
            guard let index = lights.slot(of: lightID) else { continue }
            let capabilities = lights[slot: index].model.kind.capabilities
            var own = change
            if !capabilities.contains(.brightness) { own.brightness = nil }
            if !capabilities.contains(.colorTemperature) { own.colorTemperature = nil }
            if !capabilities.contains(.color) { own.color = nil }
            var delivery = GroupDelivery(
                light: lightID, applied: own.properties,
                ignored: change.properties.filter { !capabilities.contains($0) }, missed: nil)
            guard !own.properties.isEmpty else {
                deliveries.append((delivery, nil))
                continue
            }
            let settings = governingSettings(at: index)
            // The same draws as a command of its own, so the light's random stream does not depend on how it
            // was addressed.
            let (latency, dropped) = lights[slot: index].drawDelivery(settings)
            if !lights[slot: index].isReachable {
                delivery.missed = .unreachable
            } else if dropped {
                delivery.missed = .lost
            } else if let rate = settings.rateLimitPerSecond, !takeToken(for: lightID, rate: rate) {
                delivery.missed = .overloaded
            }
            let transitionMicros = Self.micros(transitionMs)
            if let missed = delivery.missed {
                delivery.applied = []
                deliveries.append((delivery, nil))
                let outcome: CommandRecord.Outcome = missed == .unreachable ? .unreachable : .dropped
                recordCommand(own, to: lightID, in: roomID, transitionMicros: transitionMicros, outcome)
                continue
            }
            let id = nextCommandID
            nextCommandID += 1
            let ticket = CommandTicket(group: completion)
            let record = recordCommand(own, to: lightID, in: roomID, transitionMicros: transitionMicros)
            pending[id] = PendingCommand(
                light: lightID, change: own, transitionMicros: transitionMicros, submittedAt: nowMicros,
                ticket: ticket, record: record, isGroup: true)
            let due = max(nowMicros + latency, lights[slot: index].lastApplyAt)
            lights[slot: index].lastApplyAt = due
            queue.schedule(.applyCommand(id), at: due)
            deliveries.append((delivery, ticket))
        }
        if clockMode == .real { runEvents(notAfter: nowMicros) }
        armRealClock()
        let sent = deliveries.contains { $0.1 != nil }
        return GroupTicket(deliveries: deliveries, completion: sent ? completion : nil)
    }
}
