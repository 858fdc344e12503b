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
        guard !isShutDown else { throw LumenError.shuttingDown }
        guard let index = lights.slot(of: id) else { throw Self.noSuchLight(id) }
        refreshRealTime()
        let settings = governingSettings(at: index)
        if let rate = settings.rateLimitPerSecond, !takeToken(for: id, rate: rate) { return nil }
        let (latency, dropped) = lights[slot: index].drawDelivery(settings)
        guard lights[slot: index].isReachable, !dropped else { return nil }
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
    /// command record.
    /// - Returns: the light's state; `nil` when no answer comes (the light cannot be reached, or drops the
    ///   question).
    /// - Throws: ``LumenError`` `noSuchEntity` for an unknown light, `shuttingDown` while the home stops.
    public func queryAtOnce(_ id: LightID) throws(LumenError) -> LightState? {
        guard !isShutDown else { throw LumenError.shuttingDown }
        guard let index = lights.slot(of: id) else { throw Self.noSuchLight(id) }
        refreshRealTime()
        let settings = governingSettings(at: index)
        if let rate = settings.rateLimitPerSecond, !takeToken(for: id, rate: rate) { return nil }
        // Drawn as for a delayed question, so that the simulation's random sequence does not depend on which
        // messages a client sends as questions.
        let (_, dropped) = lights[slot: index].drawDelivery(settings)
        guard lights[slot: index].isReachable, !dropped else { return nil }
        return lights[slot: index].state
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
