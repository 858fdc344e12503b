import LumenModel
import LumenProtocol
import Testing

@testable import LumenSimulation

/// Who waits on the simulation, without a home: one stream of numbers, and the order each is told.
@Suite("Commands under way")
struct PendingCommandsTests {
    static func command(to light: LightID, record: UInt64) -> PendingCommand {
        PendingCommand(
            light: light, change: LightChange(isOn: true), transitionMicros: 0, submittedAt: 0, ticket: CommandTicket(),
            record: record)
    }

    @Test func commandsQuestionsAndSleepersTakeNumbersFromOneStreamAndAreTakenOutOnce() async {
        let woken = await withCheckedContinuation { (sleeper: CheckedContinuation<Bool, Never>) in
            var pending = PendingCommands()
            let command = pending.takeNumber()
            let query = pending.addQuery(to: "a", ticket: CommandTicket())
            let sleeping = pending.takeNumber()
            pending.add(Self.command(to: "a", record: 1), as: command)
            pending.addSleeper(sleeper, as: sleeping)
            #expect([command, query, sleeping] == [1, 2, 3])
            #expect(pending.count == 3 && pending.sleeperCount == 1)
            #expect(pending.removeQuery(query)?.light == "a")
            #expect(pending.removeQuery(query) == nil)
            #expect(pending.removeCommand(command)?.record == 1)
            #expect(pending.removeCommand(command) == nil)
            #expect(pending.count == 1)
            pending.removeSleeper(sleeping)?.resume(returning: true)
            #expect(pending.removeSleeper(sleeping) == nil)
            #expect(pending.count == 0)
        }
        #expect(woken)
    }

    @Test func aRemovedLightsCommandsAreTakenOutInTheOrderTheyWereNumbered() {
        var pending = PendingCommands()
        for (light, record) in [("a", 10), ("b", 11), ("a", 12), ("a", 13)] as [(LightID, UInt64)] {
            pending.add(Self.command(to: light, record: record), as: pending.takeNumber())
        }
        let orphaned = pending.removeCommands(to: "a")
        #expect(orphaned.map(\.number) == [1, 3, 4])
        #expect(orphaned.map(\.command.record) == [10, 12, 13])
        #expect(pending.count == 1)
        #expect(pending.removeCommands(to: "a").isEmpty)
        #expect(pending.removeCommand(2)?.light == "b")
    }

    @Test func stoppingTellsQuestionsInTheOrderAskedCommandsInTheOrderRecordedAndSleepersLast() async {
        let woken = await withCheckedContinuation { (sleeper: CheckedContinuation<Bool, Never>) in
            var pending = PendingCommands()
            let (first, second) = (CommandTicket(), CommandTicket())
            // A group command's lights are numbered as they are sent, which need not be the order recorded.
            pending.add(Self.command(to: "a", record: 7), as: pending.takeNumber())
            _ = pending.addQuery(to: "a", ticket: first)
            pending.add(Self.command(to: "b", record: 5), as: pending.takeNumber())
            pending.addSleeper(sleeper, as: pending.takeNumber())
            _ = pending.addQuery(to: "b", ticket: second)
            let waiting = pending.removeAll()
            #expect(
                waiting.queries.map { ObjectIdentifier($0) } == [ObjectIdentifier(first), ObjectIdentifier(second)])
            #expect(waiting.commands.map(\.record) == [5, 7])
            #expect(waiting.sleepers.count == 1)
            #expect(pending.count == 0)
            for sleeper in waiting.sleepers { sleeper.resume(returning: false) }
        }
        #expect(!woken)
    }
}
