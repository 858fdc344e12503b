import LumenModel
import LumenProtocol

extension Home {
    /// Asks a light for its state, as a device's client does (a LIFX `Get`): the answer comes after the light's
    /// latency, as a command's would, and not before a change sent earlier is taken; it counts against its rate
    /// limit (a bulb counts every message). Changes no state of the light and is not in the command record.
    /// - Parameter holdingLater: the question is a message the light acts on as it takes it (a LIFX wave that
    ///   comes back): a question or change sent after it waits until the light took it, as one sent after a change
    ///   does.
    /// - Returns: a ticket settled with the light's state when the answer comes; `nil` when none will (the
    ///   light cannot be reached, or drops the question).
    /// - Throws: ``LumenError`` `noSuchEntity` for an unknown light, `shuttingDown` while the home stops.
    package func query(_ id: LightID, holdingLater: Bool = false) throws(LumenError) -> CommandTicket? {
        guard let (slot, latency) = try receiveQuestion(to: id) else { return nil }
        // Not before a change sent earlier: a device takes its messages in the order they came.
        let due = max(nowMicros + latency, lights[slot: slot].lastApplyAt)
        if holdingLater { lights[slot: slot].lastApplyAt = due }
        let ticket = answer(id, at: due)
        if clockMode == .real, latency <= 0 { runEvents(notAfter: nowMicros) }
        armRealClock()
        return ticket
    }

    /// When light `id` takes the last message sent to it that later ones wait for (a change, a question that holds
    /// them), in simulation milliseconds; now, when it has taken every one. A front that draws what such a message
    /// starts (a LIFX wave) draws it from then.
    /// - Throws: ``LumenError`` `noSuchEntity` for an unknown light.
    package func messagesTakenMs(of id: LightID) throws(LumenError) -> Double {
        guard let slot = lights.slot(of: id) else { throw Self.noSuchLight(id) }
        refreshRealTime()
        return Double(max(nowMicros, lights[slot: slot].lastApplyAt)) / 1_000
    }

    /// A ticket settled with light `id`'s state at `due`, by the event queue: after anything due at the same moment
    /// that was queued before (a change sent earlier).
    private func answer(_ id: LightID, at due: Int64) -> CommandTicket {
        let ticket = CommandTicket()
        queue.schedule(.answerQuery(pending.addQuery(to: id, ticket: ticket)), at: due)
        return ticket
    }

    /// An answer from a light's memory (``Home/queryAtOnce(_:)``): now, or once the light has taken what was sent
    /// to it before.
    package enum MemoryAnswer: Sendable {
        /// The light's state now.
        case now(LightState)
        /// A change sent to the light before is still on its way: settled with the light's state once the light
        /// has taken it, as a device takes its messages one after another.
        case afterEarlierChanges(CommandTicket)
    }

    /// Asks a light for its state as a client asks a device's firmware (a LIFX `Get`), which answers from memory:
    /// at once, without the light's latency (which models carrying out a change), though the question still counts
    /// against the rate limit and may be lost, as every message to a bulb does. A device takes its messages in the
    /// order they came, so a change sent before and still on its way is taken first: the answer then comes as the
    /// light takes it. Changes nothing and is not in the command record. What fell due by now is carried out first,
    /// on either clock: on the real one, though its timer has not yet woken for it; on the virtual one, a command of
    /// no latency sent at this moment.
    /// - Returns: the answer; `nil` when none comes (the light cannot be reached, or drops the question).
    /// - Throws: ``LumenError`` `noSuchEntity` for an unknown light, `shuttingDown` while the home stops.
    package func queryAtOnce(_ id: LightID) throws(LumenError) -> MemoryAnswer? {
        // The real clock wakes for what falls due a moment late: the answer is the light as it is now, with what
        // fell due by now (a fade's last step, say) done.
        if !isShutDown {
            refreshRealTime()
            runEvents(notAfter: nowMicros)
        }
        guard let slot = try receiveQuestion(to: id)?.slot else { return nil }
        let earlierTaken = lights[slot: slot].lastApplyAt
        guard earlierTaken > nowMicros else { return .now(lights[slot: slot].state) }
        let ticket = answer(id, at: earlierTaken)
        armRealClock()
        return .afterEarlierChanges(ticket)
    }

    /// A question reaching light `id`, as every message to a bulb does: it counts against the rate limit and may
    /// be lost. Returns the light's slot and the latency of an answer that waits for it; `nil` when no answer
    /// comes (the light cannot be reached, or drops the question).
    /// - Throws: ``LumenError`` `noSuchEntity` for an unknown light, `shuttingDown` while the home stops.
    private func receiveQuestion(to id: LightID) throws(LumenError) -> (slot: LightTable.Slot, latency: Int64)? {
        guard !isShutDown else { throw LumenError.shuttingDown }
        guard let index = lights.slot(of: id) else { throw Self.noSuchLight(id) }
        refreshRealTime()
        let settings = governingSettings(at: index)
        if let rate = settings.rateLimitPerSecond, !takeToken(for: id, rate: rate) { return nil }
        // Drawn for a question answered at once too, so that the simulation's random sequence does not depend on
        // which messages a client sends as questions.
        let (latency, dropped) = lights[slot: index].drawDelivery(settings)
        guard lights[slot: index].isReachable, !dropped else { return nil }
        return (index, latency)
    }

    /// A question reaches its light, which answers with its state, unless it went away meanwhile.
    func answerQuery(_ number: UInt64) {
        guard let (light, ticket) = pending.removeQuery(number) else { return }
        guard let index = lights.slot(of: light), lights[slot: index].isReachable else {
            ticket.settle(.failure(LumenError(.unreachable, "light '\(light)' did not answer")))
            return
        }
        ticket.settle(.success(lights[slot: index].state))
    }
}
