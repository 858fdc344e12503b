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

    /// The fronts hear a timed effect begin and end, however it ends: landed (a long one's last steps move
    /// nothing the light shows, so no level tells of it) or by a command.
    @Test func theFrontsHearATimedEffectBeginAndEnd() async throws {
        let (home, _) = try await makeHome(
            singleLight(settings: #""latency": "instant""#, state: #"{"isOn": true, "brightness": 1}"#))
        let heard = Locked<[String]>([])
        home.addFrontListener { home, news in
            guard case .timedEffectChanged(let light) = news else { return }
            heard.withLock { $0.append("\(light.rawValue) at \(home.nowMilliseconds)") }
        }
        var rise = LightChange(isOn: true, brightness: 100)
        rise.timedEffect = TimedEffect(.sunrise, durationMs: 600_000)
        _ = try await home.submit(rise, to: "bulb", transitionMs: 600_000)
        try await home.advance(byMilliseconds: 600_000)
        _ = try await home.submit(rise, to: "bulb", transitionMs: 600_000)
        try await home.advance(byMilliseconds: 1_000)
        _ = try await home.submit(LightChange(isOn: true), to: "bulb")
        try await home.advance(byMilliseconds: 0)
        #expect(
            heard.withLock { $0 } == ["bulb at 0.0", "bulb at 600000.0", "bulb at 600000.0", "bulb at 601000.0"])
    }

    /// A sunrise starts from the dark whatever the light showed: on, at its dimmest, in its warmest white, every
    /// fade it had ended.
    @Test func aSunriseStartsAtTheDimmestWarmestWhite() async throws {
        let (home, _) = try await makeHome(
            singleLight(
                settings: #""latency": "instant", "family": "generic""#,
                state: #"{"isOn": false, "brightness": 70, "colorTemperature": 200}"#))
        _ = try await home.submit(LightChange(color: CIEColor(x: 0.2, y: 0.5)), to: "bulb", transitionMs: 10_000)
        try await home.advance(byMilliseconds: 1_000)
        var rise = LightChange(isOn: true, brightness: 100)
        rise.timedEffect = TimedEffect(.sunrise, durationMs: 10_000)
        _ = try await home.submit(rise, to: "bulb", transitionMs: 10_000)
        try await home.advance(byMilliseconds: 0)
        let dawn = try await home.light("bulb").state
        #expect(dawn.isOn && dawn.brightness == 1 && dawn.showsColorTemperature, "\(dawn)")
        try await home.advance(byMilliseconds: 10_000)
        let day = try await home.light("bulb").state
        #expect(day.brightness == 100 && day.colorTemperature == dawn.colorTemperature && day.showsColorTemperature)
    }
}
