import LumenModel
import LumenProtocol

extension Home {
    /// How many commands the command record keeps unless told otherwise.
    package static let defaultCommandRecordLimit = 1_000

    /// The commands kept, oldest first: only those for `light`, in `room` (the light's room, or the room whose
    /// group command it was part of) or received at or after `sinceMs`, when given.
    package func commandRecords(light: LightID? = nil, room: RoomID? = nil, sinceMs: Double? = nil)
        -> [CommandRecord]
    {
        commandLog.records.filter { record in
            if let light, record.light != light { return false }
            if let room, record.room != room, lights[record.light]?.room != room { return false }
            if let sinceMs, record.atMs < sinceMs { return false }
            return true
        }
    }

    /// Empties the command record, so that a test's next assertions see only what came after; returns how many
    /// records it held. The last command whose outcome became known (`lastCommand`) stays what it was.
    @discardableResult
    package func clearCommandRecords() -> Int { commandLog.removeAll() }

    /// Records a command as received, from the current task's ``CommandSource``; returns its number. A
    /// command whose outcome is known already is announced at once.
    @discardableResult
    func recordCommand(
        _ change: LightChange, to light: LightID, in room: RoomID? = nil, transitionMicros: Int64,
        _ outcome: CommandRecord.Outcome = .pending
    ) -> UInt64 {
        let number = commandLog.append(
            at: nowMilliseconds, wall: wallClock.time(atMicros: nowMicros), source: CommandSource.current, light: light,
            room: room, change: change,
            transitionMs: Double(transitionMicros) / 1_000, outcome: outcome)
        if outcome != .pending { announceCommand(number, outcome) }
        return number
    }

    /// Settles a pending command: its record (with what `result` says became of it unless `outcome` says what
    /// really did), then its ticket, so the `lastCommand` notice of a command reaches the sessions' loops before
    /// the ticket's observers hand them its answer.
    func settle(
        _ command: PendingCommand, _ result: Result<LightState, LumenError>, outcome: CommandRecord.Outcome? = nil
    ) {
        announceCommand(command.record, outcome ?? Self.outcome(of: result))
        command.ticket.settle(result)
    }

    /// What a command's result says became of it.
    static func outcome(of result: Result<LightState, LumenError>) -> CommandRecord.Outcome {
        switch result {
        case .success: .applied
        case .failure(let error) where error.code == .unreachable: .unreachable
        // Only a command the light never got times out: lost on the way, or beyond its rate limit.
        case .failure(let error) where error.code == .timedOut: .dropped
        case .failure(let error): .refused(error.code)
        }
    }

    /// Records what became of the command numbered `number`, its ticket left as it is.
    func announceCommand(_ number: UInt64, _ outcome: CommandRecord.Outcome) {
        // Told to the watchers only, and only once someone subscribed: a record is not a change of the home's
        // state (observers, which hear every change, do not hear it), and no command pays for an unread copy.
        guard let record = commandLog.settle(number, outcome), isLastCommandWatched else { return }
        let event = ChangeEvent(.property(.home(.lastCommand), record.jsonValue), timeMicros: nowMicros)
        listeners.tellWatchers(event)
    }
}
