import LumenModel
import LumenProtocol

extension Home {
    /// Asks a light for its state, as a device's client does (a LIFX `Get`): the answer comes after the light's
    /// latency, as a command's would, and counts against its rate limit (a bulb counts every message). Changes
    /// nothing and is not in the command record.
    /// - Returns: a ticket settled with the light's state when the answer comes; `nil` when none will (the
    ///   light cannot be reached, or drops the question).
    /// - Throws: ``LumenError`` `noSuchEntity` for an unknown light, `shuttingDown` while the home stops.
    public func query(_ id: LightID) throws(LumenError) -> CommandTicket? {
        guard let latency = try receiveQuestion(to: id)?.latency else { return nil }
        let ticket = CommandTicket()
        let number = pending.addQuery(to: id, ticket: ticket)
        queue.schedule(.answerQuery(number), at: nowMicros + latency)
        if clockMode == .real, latency <= 0 { runEvents(notAfter: nowMicros) }
        armRealClock()
        return ticket
    }

    /// Asks a light for its state as a client asks a device's firmware (a LIFX `Get`), which answers from memory:
    /// at once, without the light's latency (which models carrying out a change), though the question still counts
    /// against the rate limit and may be lost, as every message to a bulb does. Changes nothing and is not in the
    /// command record. What fell due by now has happened first, though the real clock has not yet woken for it.
    /// - Returns: the light's state; `nil` when no answer comes (the light cannot be reached, or drops the
    ///   question).
    /// - Throws: ``LumenError`` `noSuchEntity` for an unknown light, `shuttingDown` while the home stops.
    public func queryAtOnce(_ id: LightID) throws(LumenError) -> LightState? {
        // The real clock wakes for what falls due a moment late: the answer is the light as it is now, with what
        // fell due by now (a fade's last step, say) done.
        if !isShutDown {
            refreshRealTime()
            runEvents(notAfter: nowMicros)
        }
        guard let slot = try receiveQuestion(to: id)?.slot else { return nil }
        return lights[slot: slot].state
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
