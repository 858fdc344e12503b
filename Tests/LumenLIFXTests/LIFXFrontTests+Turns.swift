import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import Testing

@testable import LumenLIFX

/// What a message costs the home: a query one turn, in which the bulb is found, asked and read, whatever its reply
/// needs; a change's reply that needs nothing of the home, no turn of its own.
extension LIFXFrontTests {
    /// Runs `body` with a home on a ``TurnCountingExecutor``, whose loop is shut down however `body` ends, a
    /// failed requirement too.
    func withCountedTurns(_ body: (TurnCountingExecutor, Home) async throws -> Void) async throws {
        let executor = TurnCountingExecutor()
        let failure: (any Error)?
        do {
            let home = Home(fixture: try Fixture(json: Array(Self.home.utf8)), clock: .virtual, executor: executor)
            try await body(executor, home)
            failure = nil
        } catch {
            failure = error
        }
        await executor.loop.shutDown()
        if let failure { throw failure }
    }

    @Test func aQueryIsAnsweredInOneTurnOfTheHome() async throws {
        try await withCountedTurns { executor, home in try await checkQueryTurns(on: executor, home) }
    }

    /// A change's state reply that needs nothing of the home costs no turn of it: here, a strip's message to a
    /// bulb, taken as one it does not handle and answered `StateUnhandled` as soon as the bulb is asked.
    @Test func aChangesPlainReplyTakesNoTurnOfTheHome() async throws {
        try await withCountedTurns { executor, home in
            let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
            let red = HSBK(hue: 0, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
            let setZones = LIFXPacket(
                source: 1, target: bulbSerial + [0, 0], wantsReply: true, wantsAcknowledgement: true, sequence: 1,
                type: 501, payload: LIFXZoneTests.setZones(0, 7, red))
            let before = executor.turns.load(ordering: .relaxed)
            let replies = try await front.answer(setZones).map { try LIFXPacket(bytes: $0).type }
            let turns = executor.turns.load(ordering: .relaxed) - before
            #expect(replies == [45, 223])
            // One to find the bulb and ask it; none to read its reply.
            #expect(turns == 1, "\(turns) turns")
        }
    }

    /// Checks the turns of the home that queries take, with `home` on `executor`.
    func checkQueryTurns(on executor: TurnCountingExecutor, _ home: Home) async throws {
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
        /// The replies to `packet` and the turns of the home they took.
        func answered(_ packet: LIFXPacket) async -> (replies: Int, turns: Int) {
            let before = executor.turns.load(ordering: .relaxed)
            let replies = await front.answer(packet)
            return (replies.count, executor.turns.load(ordering: .relaxed) - before)
        }
        // GetColor, GetPower, GetLabel, GetInfo, GetLocation, GetGroup, GetService; GetColorZones, which a bulb
        // that is no strip answers as unhandled.
        for type: UInt16 in [101, 20, 23, 34, 48, 51, 2, 502] {
            let (replies, turns) = await answered(
                LIFXPacket(source: 1, target: bulbSerial + [0, 0], wantsAcknowledgement: true, sequence: 1, type: type))
            #expect(replies == 2 && turns == 1, "type \(type): \(replies) replies in \(turns) turns")
        }
        let (found, turns) = await answered(LIFXPacket(tagged: true, source: 7, sequence: 1, type: 2))
        #expect(found == 2 && turns == 1, "discovery: \(found) replies in \(turns) turns")

        // A bulb drawing a wave reads it, and where the light lands, in that turn too.
        let red = HSBK(hue: 0, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
        _ = try await front.replies(
            to: waveformOptional(red, fields: [.hue, .saturation], transient: true), movingClockOf: home)
        let nowMs = await home.nowMilliseconds
        try #require(front.records.waveforms.withLock { $0["den.bulb"].map { nowMs < $0.waveform.endMs } } == true)
        let color = await answered(LIFXPacket(source: 1, target: bulbSerial + [0, 0], sequence: 2, type: 101))
        #expect(color.replies == 1 && color.turns == 1, "a Get during a wave: \(color.turns) turns")
    }
}
