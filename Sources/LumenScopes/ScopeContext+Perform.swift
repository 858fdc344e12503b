import LumenModel
import LumenProtocol
import LumenSimulation

/// The door through which a front that answers each request on its own (the Hue bridge, the LIFX bulbs) changes
/// the home: it sends the command as its sender, so that the command record names who sent it, waits for the
/// device, and makes the change durable as the home's durability asks before it returns. The front only turns
/// its wire into a change and the outcome back into its wire.
///
/// ```swift
/// let state = try await scopeContext.perform(change, to: light, transitionMs: 400, from: "hue 1f52a0c3")
/// ```
///
/// The scope protocol's sessions do the same steps themselves, since they answer a pipeline of requests in
/// order and make several answers durable with one commit.
extension ScopeContext {
    /// Sends `change` to `light` as `sender`, waits until the device took it, and makes it durable; returns the
    /// light's state after.
    /// - Parameter sender: who sent it, as the command record shows it (`hue 1f52a0c3`, `lifx 127.0.0.1:51234`).
    /// - Throws: ``LumenError`` for a command the home refuses, a device that did not take it (unreachable,
    ///   timed out), or a change that could not be made durable.
    public func perform(
        _ change: LightChange, to light: LightID, transitionMs: Double = 0, from sender: String
    ) async throws(LumenError) -> LightState {
        let receipt = try await Self.sending(as: sender) { [home] () throws(LumenError) in
            try await home.send(change, to: light, transitionMs: transitionMs)
        }
        return try await settle(receipt)
    }

    /// What `work` returns, with every command it sends recorded as `sender`'s: for a front that finds its light
    /// and sends it a command in one turn of the home (``Home/reading(_:)``), then waits with ``settle(_:)``.
    public func sending<Result: Sendable>(as sender: String, _ work: @Sendable () async throws -> Result)
        async rethrows -> Result
    {
        try await CommandSource.$current.withValue(sender, operation: work)
    }

    /// What `work` returns, with every command it sends recorded as `sender`'s, for work already in a turn of the
    /// home (a front that finds its light and sends it a command in that one turn, with no `await` between them in
    /// which a later request could reach the light first); then ``settle(_:)``.
    public func sending<Result>(as sender: String, _ work: () throws -> Result) rethrows -> Result {
        try CommandSource.$current.withValue(sender, operation: work)
    }

    /// Waits until the device took the command of `receipt`, and makes the change durable; returns the light's
    /// state after.
    /// - Throws: ``LumenError`` for a device that did not take it, or a change that could not be made durable.
    public func settle(_ receipt: CommandReceipt) async throws(LumenError) -> LightState {
        let state = try await receipt.ticket.value
        try await commit()
        return state
    }

    /// Sends `change` to every light of `room` (every light of the home when `nil`) reached over `network`, as
    /// one group command from `sender`; waits until each light took or missed it, and makes the changes durable.
    /// - Returns: each light's delivery, in the room's order.
    /// - Throws: ``LumenError`` as ``Home/setAll(_:in:transitionMs:network:)`` does, or for a change that
    ///   could not be made durable.
    @discardableResult
    public func performGroup(
        _ change: LightChange, in room: RoomID?, transitionMs: Double = 0, network: LightNetwork? = nil,
        from sender: String
    ) async throws(LumenError) -> [GroupDelivery] {
        let ticket = try await Self.sending(as: sender) { [home] () throws(LumenError) in
            if let room {
                try await home.setAll(change, in: room, transitionMs: transitionMs, network: network)
            } else {
                try await home.setAllLights(change, transitionMs: transitionMs, network: network)
            }
        }
        let deliveries = try await ticket.outcome
        try await commit()
        return deliveries
    }

    /// Starts or stops effects on each of `lights` (``Home/setEffect(colorLoop:breathing:on:)``); a colour loop
    /// only on those with colour, as a bridge's group does. Effects are not saved, so nothing is committed.
    public func setEffect(colorLoop: Bool?, breathing: LightEffect.Breathing??, on lights: [LightID]) async {
        for light in lights {
            let hasColor = (try? await home.light(light).model.kind.supports(.color)) ?? false
            try? await home.setEffect(colorLoop: hasColor ? colorLoop : nil, breathing: breathing, on: light)
        }
    }

    /// Sends each light of `changes` its own change as one group command from `sender` (a Hue scene's recall),
    /// waits until each light took or missed it, and makes the changes durable.
    /// - Returns: each light's delivery, in the order of `changes`.
    /// - Throws: ``LumenError`` as ``Home/setEach(_:transitionMs:network:)`` does, or for a change that could not
    ///   be made durable.
    @discardableResult
    public func performEach(
        _ changes: [(light: LightID, change: LightChange)], transitionMs: Double = 0, network: LightNetwork? = nil,
        from sender: String
    ) async throws(LumenError) -> [GroupDelivery] {
        let ticket = try await Self.sending(as: sender) { [home] () throws(LumenError) in
            try await home.setEach(changes, transitionMs: transitionMs, network: network)
        }
        let deliveries = try await ticket.outcome
        try await commit()
        return deliveries
    }

    /// Renames `entity` and makes the new name durable.
    /// - Throws: ``LumenError`` for a name the home refuses, or one that could not be made durable.
    public func rename(_ entity: Entity, to name: String) async throws(LumenError) {
        try await home.setName(name, of: entity)
        try await commit()
    }

    /// What `work` returns, with every command it sends recorded as `sender`'s.
    private static func sending<Result: Sendable>(
        as sender: String, _ work: @Sendable () async throws(LumenError) -> Result
    ) async throws(LumenError) -> Result {
        do {
            return try await CommandSource.$current.withValue(sender) { try await work() }
        } catch let error as LumenError {
            throw error
        } catch {
            // `withValue` forgets the error's type; `work` throws nothing else.
            throw LumenError(.internalError, "\(error)")
        }
    }
}
