import LumenModel
import LumenProtocol

/// One command a light received, and what became of it: the record a test asserts on ("the kitchen was
/// dimmed to 40 % over 2 s, once").
package struct CommandRecord: Sendable, Hashable {
    /// What became of a command.
    package enum Outcome: Sendable, Hashable {
        /// Sent and not yet answered.
        case pending
        /// The light applied it.
        case applied
        /// Refused, at once or by the light: the error's code.
        case refused(LumenError.Code)
        /// Lost on the way or beyond the light's rate limit: the sender hears nothing until its timeout.
        case dropped
        /// The light could not be reached.
        case unreachable

        /// The outcome's name on the wire.
        var name: String {
            switch self {
            case .pending: "pending"
            case .applied: "applied"
            case .refused: "refused"
            case .dropped: "dropped"
            case .unreachable: "unreachable"
            }
        }
    }

    /// The record's place in the home's sequence of commands, from 1.
    package let number: UInt64
    /// When the home received it, on the simulation clock.
    package let atMs: Double
    /// When the home received it, on the simulated wall clock.
    let at: WallTime
    /// Who sent it (`session 3`), or empty when nobody said.
    package let source: String
    /// The light it was for.
    let light: LightID
    /// The room whose group command it was part of, if it was.
    package let room: RoomID?
    /// What it asked.
    package let change: LightChange
    /// Its transition.
    package let transitionMs: Double
    /// What became of it.
    package var outcome: Outcome

    /// `{number, atMs, at, source, light, room?, change, transitionMs, outcome, code?}`.
    package var jsonValue: JSONValue {
        var object: JSONObject = [
            "number": .int(Int(number)), "atMs": .double(atMs), "at": .string(at.iso8601), "source": .string(source),
            "light": .string(light.rawValue),
        ]
        if let room { object["room"] = .string(room.rawValue) }
        var asked = JSONObject()
        if let isOn = change.isOn { asked["isOn"] = .bool(isOn) }
        if let brightness = change.brightness { asked["brightness"] = .double(brightness) }
        if let colorTemperature = change.colorTemperature { asked["colorTemperature"] = .int(colorTemperature) }
        if let color = change.color { asked["color"] = color.jsonValue }
        if let effect = change.timedEffect { asked["timedEffect"] = .string(effect.kind.rawValue) }
        object["change"] = .object(asked)
        object["transitionMs"] = .double(transitionMs)
        object["outcome"] = .string(outcome.name)
        if case .refused(let code) = outcome { object["code"] = .int(code.rawValue) }
        return .object(object)
    }
}

/// Who is sending commands, for the command record: a session (or a front) sets it around the work it does
/// for a client, and every command that work sends is recorded as theirs.
package enum CommandSource {
    /// The sender of the commands the current task sends.
    @TaskLocal package static var current = ""
}

/// The last commands a home received, at most `capacity`, oldest first: a ring, so recording one costs the
/// same however many came before.
struct CommandLog: Sendable {
    let capacity: Int
    private var ring: [CommandRecord] = []
    /// Where the oldest record is in `ring`, once it is full.
    private var oldest = 0
    /// The number the next record gets.
    private(set) var nextNumber: UInt64 = 1
    /// The last record whose outcome became known.
    private(set) var lastSettled: CommandRecord?

    init(capacity: Int) { self.capacity = max(0, capacity) }

    /// Records a command; returns its number.
    @discardableResult
    mutating func append(
        at atMs: Double, wall: WallTime, source: String, light: LightID, room: RoomID?, change: LightChange,
        transitionMs: Double, outcome: CommandRecord.Outcome
    ) -> UInt64 {
        let number = nextNumber
        nextNumber += 1
        guard capacity > 0 else { return number }
        let record = CommandRecord(
            number: number, atMs: atMs, at: wall, source: source, light: light, room: room, change: change,
            transitionMs: transitionMs, outcome: outcome)
        if ring.count < capacity {
            ring.append(record)
        } else {
            ring[oldest] = record
            oldest = (oldest + 1) % capacity
        }
        return number
    }

    /// Sets the outcome of record `number`; returns the record, or `nil` once it has left the ring.
    mutating func settle(_ number: UInt64, _ outcome: CommandRecord.Outcome) -> CommandRecord? {
        guard number < nextNumber, nextNumber - 1 - number < UInt64(ring.count) else { return nil }
        let age = nextNumber - 1 - number
        let index = (oldest + ring.count - 1 - Int(age)) % ring.count
        ring[index].outcome = outcome
        lastSettled = ring[index]
        return ring[index]
    }

    /// The records kept, oldest first.
    var records: [CommandRecord] { Array(ring[oldest...] + ring[..<oldest]) }

    /// Forgets every record kept; returns how many there were. Numbers go on from where they were, so a number
    /// still says a command's place among all the home received; a command pending now has left the ring, and
    /// its outcome is not recorded when it comes (`settle` finds its number older than every record kept).
    mutating func removeAll() -> Int {
        let count = ring.count
        ring.removeAll(keepingCapacity: true)
        oldest = 0
        return count
    }
}
