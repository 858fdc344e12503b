import LumenModel
import LumenProtocol
import LumenSimulation

extension Home {
    /// Queues a command to a light and returns at once with a ticket for its outcome, as
    /// ``Home/send(_:to:transitionMs:throughBridge:)`` does.
    public func submit(_ change: LightChange, to light: LightID, transitionMs: Double = 0) throws(LumenError)
        -> CommandTicket
    {
        try send(change, to: light, transitionMs: transitionMs).ticket
    }

    /// The light IDs of a room, in order, as its `lightIDs` value shows them.
    /// - Throws: ``LumenError`` `noSuchEntity` for an unknown room.
    public func lightIDs(in room: RoomID) throws(LumenError) -> [LightID] {
        (try value(of: .room(room, .lightIDs))).arrayValue?.compactMap { $0.stringValue.map { LightID($0) } } ?? []
    }

    /// What a light does besides holding its state, as the front that answers for its device sees it.
    /// - Throws: ``LumenError`` `noSuchEntity` for an unknown light.
    public func effect(of light: LightID) throws(LumenError) -> LightEffect {
        for network in LightNetwork.allCases {
            if let device = device(light, on: network) { return device.effect }
        }
        throw LumenError(.noSuchEntity, "no light '\(light)'")
    }
}
