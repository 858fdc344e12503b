import LumenModel

/// A command on its way to its light: what it changes, who waits for its answer, and what the sender will hear.
struct PendingCommand: Sendable {
    let light: LightID
    let change: LightChange
    let transitionMicros: Int64
    let submittedAt: Int64
    let ticket: CommandTicket
    /// Its number in ``Home/commandLog``.
    let record: UInt64
    /// Part of a room's group command: a light that cannot be reached misses it at once, unanswered, rather
    /// than failing after its timeout.
    var isGroup = false
    /// What the sender will hear of it, beside what the light does.
    var fate = Fate.arrives
    /// What really became of it, when the error its sender hears does not say (a timeout for a light that
    /// could not be reached).
    var truth: CommandRecord.Outcome?

    /// What the sender hears of a command, beside what the light does with it.
    enum Fate: Sendable, Equatable {
        /// The light's answer, when it comes.
        case arrives
        /// Nothing: the light takes it but its acknowledgement is lost, and the sender times out.
        case answerLost
        /// The bridge's confirmation, though the light never saw it (it was unreachable, or the frame was
        /// lost): the record keeps what really became of it.
        case missed(CommandRecord.Outcome)
    }
}

/// Everyone waiting on the simulation: commands on their way to their lights, questions to lights
/// (``Home/query(_:)``) and sleepers on its clock (``Home/sleep(milliseconds:)``), each under a number from
/// one stream, which the events that end their waits carry.
///
/// The home settles what this gives back (tickets, continuations); this only keeps who waits, and in which
/// order they are told when the home stops.
struct PendingCommands: Sendable {
    private var commands: [UInt64: PendingCommand] = [:]
    private var queries: [UInt64: (light: LightID, ticket: CommandTicket)] = [:]
    private var sleepers: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    private var nextNumber: UInt64 = 1

    /// How many wait, of every kind: what a clock that runs itself jumps for.
    var count: Int { commands.count + queries.count + sleepers.count }

    /// How many sleep on the clock.
    var sleeperCount: Int { sleepers.count }

    /// Takes the next number, for a command, a question or a sleeper.
    mutating func takeNumber() -> UInt64 {
        defer { nextNumber += 1 }
        return nextNumber
    }

    /// Keeps `command` under `number` (one ``takeNumber()`` gave), until it is taken out.
    mutating func add(_ command: PendingCommand, as number: UInt64) {
        commands[number] = command
    }

    /// Takes out the command numbered `number`; `nil` when it was taken out already.
    mutating func removeCommand(_ number: UInt64) -> PendingCommand? {
        commands.removeValue(forKey: number)
    }

    /// Takes out every command to `light`, in the order they were numbered.
    mutating func removeCommands(to light: LightID) -> [(number: UInt64, command: PendingCommand)] {
        let orphaned = commands.filter { $0.value.light == light }.sorted { $0.key < $1.key }
        for (number, _) in orphaned { commands[number] = nil }
        return orphaned.map { (number: $0.key, command: $0.value) }
    }

    /// Keeps a question to `light`, whose answer `ticket` waits for; returns its number.
    mutating func addQuery(to light: LightID, ticket: CommandTicket) -> UInt64 {
        let number = takeNumber()
        queries[number] = (light, ticket)
        return number
    }

    /// Takes out the question numbered `number`.
    mutating func removeQuery(_ number: UInt64) -> (light: LightID, ticket: CommandTicket)? {
        queries.removeValue(forKey: number)
    }

    /// Keeps a sleeper under `number` (one ``takeNumber()`` gave).
    mutating func addSleeper(_ sleeper: CheckedContinuation<Bool, Never>, as number: UInt64) {
        sleepers[number] = sleeper
    }

    /// Takes out the sleeper numbered `number`.
    mutating func removeSleeper(_ number: UInt64) -> CheckedContinuation<Bool, Never>? {
        sleepers.removeValue(forKey: number)
    }

    /// Takes out everyone waiting, as the home stops, in the order they are told: questions in the order they
    /// were asked, commands in the order they were recorded, sleepers in the order they lay down.
    mutating func removeAll() -> (
        queries: [CommandTicket], commands: [PendingCommand], sleepers: [CheckedContinuation<Bool, Never>]
    ) {
        defer {
            commands.removeAll()
            queries.removeAll()
            sleepers.removeAll()
        }
        return (
            queries.sorted { $0.key < $1.key }.map(\.value.ticket), commands.values.sorted { $0.record < $1.record },
            sleepers.sorted { $0.key < $1.key }.map(\.value)
        )
    }
}
