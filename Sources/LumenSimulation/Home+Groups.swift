import LumenModel
import LumenProtocol

/// What one light did with a room's group command.
public struct GroupDelivery: Sendable, Hashable {
    /// Why a light missed a group command.
    package enum Miss: String, Sendable, Hashable {
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
    package var light: LightID
    /// The properties it applied.
    package var applied: [LightProperty]
    /// The properties it cannot do, left out for it.
    var ignored: [LightProperty]
    /// Why it missed the command, if it did.
    package var missed: Miss?

    /// A delivery.
    package init(light: LightID, applied: [LightProperty], ignored: [LightProperty], missed: Miss?) {
        self.light = light
        self.applied = applied
        self.ignored = ignored
        self.missed = missed
    }

    /// The delivery as the `setAll` reply lists it.
    package var jsonValue: JSONValue {
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
package struct GroupTicket: Sendable {
    /// Each light's delivery, the ticket of the command it was sent, and whether its family tells the sender
    /// that it missed the command (``DeviceFamily/reportsGroupMisses``).
    let deliveries: [(delivery: GroupDelivery, ticket: CommandTicket?, reportsMiss: Bool)]
    /// Settles when the last of those tickets does; `nil` when no light was sent the command.
    let completion: GroupCompletion?

    /// Waits until every light has applied or missed the command; the lights in the room's order.
    /// - Throws: ``LumenError`` `shuttingDown` when the home shut down before every light had its turn.
    package var outcome: [GroupDelivery] {
        get async throws(LumenError) {
            // Woken once, when the last light answers: every ticket is settled by then.
            if let completion { _ = await completion.ticket.result }
            return try settledOutcome.get()
        }
    }

    /// Calls `observer` with the outcome once every light has applied or missed the command, as
    /// ``CommandTicket/whenSettled(_:)`` does: on the home's executor as the last light answers, or now.
    package func whenSettled(_ observer: @escaping @Sendable (Result<[GroupDelivery], LumenError>) -> Void) {
        guard let completion else { return observer(settledOutcome) }
        completion.ticket.whenSettled { [self] _ in observer(settledOutcome) }
    }

    /// The outcome, once every ticket has settled.
    private var settledOutcome: Result<[GroupDelivery], LumenError> {
        var result: [GroupDelivery] = []
        for (delivery, ticket, reportsMiss) in deliveries {
            var delivery = delivery
            if let ticket, case .failure(let error) = ticket.settledResult {
                if error.code == .shuttingDown { return .failure(error) }
                if reportsMiss {
                    delivery.missed = error.code == .deviceOff ? .off : .unreachable
                    delivery.applied = []
                }
            }
            result.append(delivery)
        }
        return .success(result)
    }
}

extension Home {
    /// Sends `change` to every light of a room at once, as a group command: each light takes it as its family
    /// takes one (``DeviceFamily``).
    ///
    /// Lights whose group command is a broadcast (a Zigbee or Matter group) take it together, after one
    /// latency; the others each after their own. Lights that cannot be reached, lose the frame or are beyond
    /// their rate limit miss it, and only a generic light's miss is reported (a broadcast is not acknowledged);
    /// the command record keeps what really became of each. A light leaves out the properties it cannot do.
    /// Commands to each light still take effect in order.
    /// - Throws: ``LumenError`` for an unknown room, an empty change, a value or transition out of range, or a
    ///   bridge beyond its group-command budget (`busy`).
    /// - Parameter network: when given, only the room's lights reached over that network take part (the
    ///   Hue bridge's group holds the room's lights behind it).
    package func setAll(
        _ change: LightChange, in roomID: RoomID, transitionMs: Double = 0, network: LightNetwork? = nil
    ) throws(LumenError) -> GroupTicket {
        guard !isShutDown else { throw LumenError.shuttingDown }
        guard let room = rooms[roomID] else { throw Self.noSuchRoom(roomID) }
        try Self.requireProperties(of: change, room: roomID)
        return try groupCommand(
            room.lightIDs.map { ($0, change) }, of: roomID, transitionMs: transitionMs, network: network)
    }

    /// Sends `change` to every light of the home as one group command, as ``setAll(_:in:transitionMs:network:)``
    /// does to a room's (a Hue bridge's group 0).
    package func setAllLights(_ change: LightChange, transitionMs: Double = 0, network: LightNetwork? = nil)
        throws(LumenError) -> GroupTicket
    {
        guard !isShutDown else { throw LumenError.shuttingDown }
        try Self.requireProperties(of: change, room: nil)
        let all = roomOrder.flatMap { rooms[$0]?.lightIDs ?? [] }
        return try groupCommand(all.map { ($0, change) }, of: nil, transitionMs: transitionMs, network: network)
    }

    /// Sends each light of `changes` its own change, together, as one group command: a Hue bridge's scene
    /// recall, which its lights take as they take a group command (``setAll(_:in:transitionMs:network:)``).
    /// - Throws: ``LumenError`` as ``setAll(_:in:transitionMs:network:)`` does, or when no change is given.
    package func setEach(
        _ changes: [(light: LightID, change: LightChange)], transitionMs: Double = 0, network: LightNetwork? = nil
    ) throws(LumenError) -> GroupTicket {
        guard !isShutDown else { throw LumenError.shuttingDown }
        guard changes.contains(where: { !$0.change.properties.isEmpty }) else {
            throw LumenError(.invalidParams, "a group command needs a change for at least one light")
        }
        return try groupCommand(
            changes.map { ($0.light, $0.change) }, of: nil, transitionMs: transitionMs, network: network)
    }

    /// Refuses a group command that changes nothing.
    private static func requireProperties(of change: LightChange, room roomID: RoomID?) throws(LumenError) {
        guard change.properties.isEmpty else { return }
        throw LumenError(
            .invalidParams, "setAll needs at least one of isOn, brightness, colorTemperature, color",
            data: roomID.map { ["room": .string($0.rawValue)] } ?? [:])
    }

    /// A group command giving each light of `requested` its change, a room's when `roomID` is given; only those
    /// reached over `network`, when it is given. Sent through the bridge (a Hue family light among them, or the
    /// bridge's own network), it takes one of the bridge's group commands.
    private func groupCommand(
        _ requested: [(LightID, LightChange)], of roomID: RoomID?, transitionMs: Double, network: LightNetwork?
    ) throws(LumenError) -> GroupTicket {
        for (_, change) in requested { try change.validate() }
        try Self.validateTransition(transitionMs)
        refreshRealTime()
        let members = requested.compactMap { id, change in lights.slot(of: id).map { (id, $0, change) } }.filter {
            member in network.map { governingSettings(at: member.1).network == $0 } ?? true
        }
        // Checked for every light before any is sent it, so a refusal leaves the room as it was.
        var changes: [LightChange] = []
        for (id, index, change) in members {
            var own = change
            let capabilities = lights[slot: index].model.kind.capabilities
            if !capabilities.contains(.brightness) { own.brightness = nil }
            if !capabilities.contains(.colorTemperature) { own.colorTemperature = nil }
            if !capabilities.contains(.color) { own.color = nil }
            // One value for lights of several families: each brings it into its own range, as a broadcast does.
            if let mireds = own.colorTemperature {
                let range = governingSettings(at: index).family.colorTemperatureRange(of: lights[slot: index].model)
                own.colorTemperature = range.clamping(mireds)
            }
            changes.append(try own.levelZeroResolved(for: governingSettings(at: index).family, light: id))
        }
        if network == .hueBridge || members.contains(where: { governingSettings(at: $0.1).family.isBehindBridge }) {
            try bridge.take(group: true, at: nowMicros)
        }
        let transitionMicros = Self.micros(transitionMs)
        // One frame a family: Hue lights and Matter lights hear their own group's broadcast.
        var broadcastDue: [DeviceFamily: Int64] = [:]
        var deliveries: [(GroupDelivery, CommandTicket?, Bool)] = []
        let completion = GroupCompletion()
        for ((lightID, index, change), own) in zip(members, changes) {
            let capabilities = lights[slot: index].model.kind.capabilities
            let settings = governingSettings(at: index)
            let family = settings.family
            var delivery = GroupDelivery(
                light: lightID, applied: own.properties,
                ignored: change.properties.filter { !capabilities.contains($0) }, missed: nil)
            guard !own.properties.isEmpty else {
                deliveries.append((delivery, nil, family.reportsGroupMisses))
                continue
            }
            // The same draws as a command of its own, so the light's random stream does not depend on how it
            // was addressed.
            var (latency, dropped) = lights[slot: index].drawDelivery(settings)
            if family.groupCommandIsBroadcast {
                // One frame for the whole group: its latency is drawn once, by the bridge.
                let due =
                    broadcastDue[family] ?? nowMicros + Self.micros(settings.latency.sample(using: &bridge.random))
                broadcastDue[family] = due
                latency = due - nowMicros
            }
            var missed: GroupDelivery.Miss?
            if !lights[slot: index].isReachable {
                missed = .unreachable
            } else if dropped {
                missed = .lost
            } else if let rate = settings.rateLimitPerSecond, !takeToken(for: lightID, rate: rate) {
                missed = .overloaded
            }
            if let missed {
                if family.reportsGroupMisses {
                    delivery.missed = missed
                    delivery.applied = []
                }
                deliveries.append((delivery, nil, family.reportsGroupMisses))
                let outcome: CommandRecord.Outcome = missed == .unreachable ? .unreachable : .dropped
                recordCommand(own, to: lightID, in: roomID, transitionMicros: transitionMicros, outcome)
                continue
            }
            let id = pending.takeNumber()
            let ticket = CommandTicket(group: completion)
            let record = recordCommand(own, to: lightID, in: roomID, transitionMicros: transitionMicros)
            pending.add(
                PendingCommand(
                    light: lightID, change: own, transitionMicros: transitionMicros, submittedAt: nowMicros,
                    ticket: ticket, record: record, isGroup: true),
                as: id)
            let due = max(nowMicros + latency, lights[slot: index].lastApplyAt)
            lights[slot: index].lastApplyAt = due
            queue.schedule(.applyCommand(id), at: due)
            deliveries.append((delivery, ticket, family.reportsGroupMisses))
        }
        if clockMode == .real { runEvents(notAfter: nowMicros) }
        armRealClock()
        let sent = deliveries.contains { $0.1 != nil }
        return GroupTicket(deliveries: deliveries, completion: sent ? completion : nil)
    }
}
