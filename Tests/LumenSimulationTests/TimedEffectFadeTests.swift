import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

/// A timed effect's fades (a Hue sunrise or sunset): the light's own, so they may run past a client's longest
/// transition, and any command ends every one of them where it stands, whatever the family's rule for fades.
@Suite("Timed effect fades")
struct TimedEffectFadeTests {
    @Test(arguments: ["hue", "generic", "lifx"])
    func anyCommandEndsATimedEffectWhereItStands(family: String) async throws {
        let (home, _) = try await makeHome(
            singleLight(
                settings: #""latency": "instant", "family": "\#(family)""#, state: #"{"isOn": true, "brightness": 1}"#))
        var rise = LightChange(brightness: 100)
        rise.timedEffect = TimedEffect(.sunrise, durationMs: 1_000)
        _ = try await home.submit(rise, to: "bulb", transitionMs: 1_000)
        try await home.advance(byMilliseconds: 500)
        #expect(try await home.groundTruth(of: "bulb").truth.fading == [.brightness])
        // A switch on that changes nothing, which leaves a plain fade running on every family.
        _ = try await home.submit(LightChange(isOn: true), to: "bulb")
        try await home.advance(byMilliseconds: 0)
        #expect(try await home.groundTruth(of: "bulb").truth.fading == [])
        try await home.advance(byMilliseconds: 1_000)
        #expect(try await home.light("bulb").state.brightness == 50.5)
    }

    @Test func aTimedEffectRunsUpToSixHoursAndEndsWithItsFades() async throws {
        let (home, _) = try await makeHome(
            singleLight(settings: #""latency": "instant""#, state: #"{"isOn": true, "brightness": 1}"#))
        var rise = LightChange(brightness: 100)
        rise.timedEffect = TimedEffect(.sunrise, durationMs: TimedEffect.longestMs)
        _ = try await home.submit(rise, to: "bulb", transitionMs: TimedEffect.longestMs)
        try await home.advance(byMilliseconds: 10_800_000)
        #expect(try await home.light("bulb").state.brightness == 50.5)
        let records = await home.commandRecords(light: "bulb")
        #expect(records.last?.jsonValue["change"] == ["brightness": 100, "timedEffect": "sunrise"])
        try await home.advance(byMilliseconds: 10_800_000)
        #expect(try await home.light("bulb").state.brightness == 100)
        #expect(try await home.groundTruth(of: "bulb").truth.fading == [])
        // Longer, and a plain fade past two hours, are refused.
        rise.timedEffect = TimedEffect(.sunrise, durationMs: TimedEffect.longestMs + 1)
        await #expect(throws: LumenError.self) {
            try await home.submit(rise, to: "bulb", transitionMs: TimedEffect.longestMs + 1)
        }
        await #expect(throws: LumenError.self) {
            try await home.submit(LightChange(brightness: 10), to: "bulb", transitionMs: 7_200_001)
        }
    }
}
