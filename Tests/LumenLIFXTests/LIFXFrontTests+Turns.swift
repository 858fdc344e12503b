import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import Testing

@testable import LumenLIFX

/// What a query costs the home: one turn, in which the bulb is found, asked and read, whatever its reply needs.
extension LIFXFrontTests {
    @Test func aQueryIsAnsweredInOneTurnOfTheHome() async throws {
        let executor = TurnCountingExecutor()
        let home = Home(fixture: try Fixture(json: Array(Self.home.utf8)), clock: .virtual, executor: executor)
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
        await executor.loop.shutDown()
    }
}
