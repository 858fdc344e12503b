import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

/// Fades as subscribers see them, step by step: a new command ends a fade where it stands, turning off with a
/// transition fades down and then switches off, turning on with one fades up from the lowest level.
@Suite("Fades")
struct FadeTests {
    /// Brightness values with their times (ms), as subscribers were sent them.
    func brightness(_ log: EventLog) -> [(ms: Double, value: Double)] {
        log.values("brightness", of: "bulb").map { ($0.ms, $0.value.doubleValue!) }
    }

    /// A colour light fading from one colour temperature to another stays white at every step: its colour is
    /// each step's temperature's white, so every front reads it as a white all along.
    @Test func aColourLightFadingBetweenWhitesStaysWhite() async throws {
        let (home, _) = try await makeHome(
            singleLight(settings: #""latency": "instant""#, state: #"{"isOn": true, "colorTemperature": 370}"#))
        #expect(try await home.light("bulb").state.showsColorTemperature)
        _ = try await home.submit(LightChange(colorTemperature: 200), to: "bulb", transitionMs: 1_000)
        for _ in 0..<10 {
            try await home.advance(byMilliseconds: 100)
            let state = try await home.light("bulb").state
            #expect(state.showsColorTemperature, "\(state)")
        }
        #expect(try await home.light("bulb").state.colorTemperature == 200)
    }

    /// A fade may last two hours, longer than any front's device takes (a Hue bridge's 65535 tenths of a second,
    /// API v2's 100 minutes), and lands when it should; longer is refused as the unit mistake it likely is.
    @Test func aFadeLastsUpToTwoHours() async throws {
        let (home, _) = try await makeHome(
            singleLight(settings: #""latency": "instant""#, state: #"{"isOn": true, "brightness": 10}"#))
        _ = try await home.submit(LightChange(brightness: 90), to: "bulb", transitionMs: 7_200_000)
        try await home.advance(byMilliseconds: 3_600_000)
        #expect(try await home.light("bulb").state.brightness == 50)
        try await home.advance(byMilliseconds: 3_600_000)
        #expect(try await home.light("bulb").state.brightness == 90)
        await #expect(throws: LumenError.self) {
            try await home.submit(LightChange(brightness: 10), to: "bulb", transitionMs: 7_200_001)
        }
    }

    @Test func onALIFXBulbAColourCommandEndsABrightnessFadeWhereItStands() async throws {
        // A LIFX SetColor carries hue, saturation, brightness and kelvin together.
        let (home, log) = try await makeHome(
            singleLight(
                settings: #""latency": "instant", "family": "lifx""#, state: #"{"isOn": true, "brightness": 10}"#))
        _ = try await home.submit(LightChange(brightness: 100), to: "bulb", transitionMs: 1_000)
        try await home.advance(byMilliseconds: 300)
        let standing = try await home.light("bulb").state.brightness
        #expect(standing == 37)
        let ticket = try await home.submit(LightChange(colorTemperature: 200), to: "bulb")
        try await home.advance(byMilliseconds: 2_000)
        #expect(try await ticket.value.brightness == 37, "the confirmed state keeps the level the fade reached")
        #expect(try await home.light("bulb").state.brightness == 37)
        // Subscribers saw three steps and nothing after: no jump to the fade's target.
        #expect(brightness(log).map(\.value) == [19, 28, 37])
        #expect(log.values("colorTemperature", of: "bulb").map(\.value) == [200])
    }

    @Test(arguments: ["generic", "hue", "matter"])
    func aCommandOnAnotherPropertyLeavesAFadeRunning(family: String) async throws {
        // Level Control and Color Control run their transitions apart: colour temperature at 500 ms of a 1 s
        // brightness fade, or a no-op switch on, leaves the level moving to its target.
        let (home, log) = try await makeHome(
            singleLight(
                settings: #""latency": "instant", "family": "\#(family)""#, state: #"{"isOn": true, "brightness": 1}"#))
        _ = try await home.submit(LightChange(brightness: 100), to: "bulb", transitionMs: 1_000)
        try await home.advance(byMilliseconds: 500)
        #expect(try await home.light("bulb").state.brightness == 50.5)
        let ticket = try await home.submit(LightChange(colorTemperature: 200), to: "bulb")
        _ = try await home.submit(LightChange(isOn: true), to: "bulb")
        try await home.advance(byMilliseconds: 0)
        #expect(try await ticket.value.brightness == 100, "the confirmed state is where the light lands")
        #expect(try await home.groundTruth(of: "bulb").truth.fading == [.brightness])
        try await home.advance(byMilliseconds: 1_000)
        #expect(try await home.light("bulb").state.brightness == 100)
        #expect(brightness(log).map(\.ms) == (1...10).map { Double($0) * 100 })
        #expect(log.values("colorTemperature", of: "bulb").map(\.value) == [200])
    }

    @Test func onAZigbeeLightColourTemperatureEndsAColourFadeButNotTheLevels() async throws {
        // Colour temperature and xy are one Color Control cluster: one transition between them.
        let (home, _) = try await makeHome(
            singleLight(
                settings: #""latency": "instant", "family": "hue""#, state: #"{"isOn": true, "brightness": 10}"#))
        _ = try await home.submit(
            LightChange(brightness: 100, color: CIEColor(x: 0.6, y: 0.3)), to: "bulb", transitionMs: 1_000)
        try await home.advance(byMilliseconds: 300)
        _ = try await home.submit(LightChange(colorTemperature: 250), to: "bulb")
        try await home.advance(byMilliseconds: 0)
        #expect(try await home.groundTruth(of: "bulb").truth.fading == [.brightness])
        try await home.advance(byMilliseconds: 1_000)
        let state = try await home.light("bulb").state
        #expect(state.brightness == 100 && state.colorTemperature == 250)
        #expect(state.color != CIEColor(x: 0.6, y: 0.3), "the colour stopped where it stood")
    }

    @Test func switchingOffDuringAFadeLeavesBrightnessWhereItStood() async throws {
        let (home, log) = try await makeHome(singleLight(state: #"{"isOn": true, "brightness": 10}"#))
        _ = try await home.submit(LightChange(brightness: 100), to: "bulb", transitionMs: 1_000)
        try await home.advance(byMilliseconds: 200)
        _ = try await home.submit(LightChange(isOn: false), to: "bulb")
        try await home.advance(byMilliseconds: 2_000)
        let state = try await home.light("bulb").state
        #expect(!state.isOn)
        #expect(state.brightness == 28)
        #expect(brightness(log).map(\.value) == [19, 28])
    }

    @Test func turningOffWithATransitionFadesDownThenSwitchesOffAndRestoresTheLevel() async throws {
        let (home, log) = try await makeHome(singleLight(state: #"{"isOn": true, "brightness": 81}"#))
        let ticket = try await home.submit(LightChange(isOn: false), to: "bulb", transitionMs: 400)
        try await home.advance(byMilliseconds: 200)
        // Mid-fade the light is still on, part of the way down, and `get` says so.
        var state = try await home.light("bulb").state
        #expect(state.isOn && state.brightness == 41)
        try await home.advance(byMilliseconds: 1_000)
        state = try await home.light("bulb").state
        #expect(!state.isOn)
        #expect(state.brightness == 81, "the level comes back for the next power-on")
        #expect(try await ticket.value == state)
        #expect(brightness(log).map(\.ms) == [100, 200, 300, 400, 400])
        #expect(brightness(log).map(\.value) == [61, 41, 21, 1, 81])
        let isOn = log.values("isOn", of: "bulb")
        #expect(isOn.map(\.ms) == [400] && isOn.map(\.value) == [false], "off comes at the end, once")
        // The next power-on, without a transition, shows the restored level.
        _ = try await home.submit(LightChange(isOn: true), to: "bulb")
        try await home.advance(byMilliseconds: 0)
        #expect(try await home.light("bulb").state.brightness == 81)
    }

    @Test func turningOnWithATransitionFadesUpFromTheLowestLevel() async throws {
        let (home, log) = try await makeHome(singleLight(state: #"{"isOn": false, "brightness": 61}"#))
        _ = try await home.submit(LightChange(isOn: true), to: "bulb", transitionMs: 300)
        try await home.advance(byMilliseconds: 0)
        var state = try await home.light("bulb").state
        #expect(state.isOn && state.brightness == 1)
        try await home.advance(byMilliseconds: 150)
        state = try await home.light("bulb").state
        #expect(state.brightness == 21, "get returns the step subscribers were last sent")
        try await home.advance(byMilliseconds: 1_000)
        #expect(brightness(log).map(\.ms) == [0, 100, 200, 300])
        #expect(brightness(log).map(\.value) == [1, 21, 41, 61])
        #expect(log.values("isOn", of: "bulb").map(\.ms) == [0])
    }

    @Test func turningOnToANewLevelWithATransitionFadesUpToIt() async throws {
        let (home, log) = try await makeHome(singleLight(state: #"{"isOn": false, "brightness": 20}"#))
        _ = try await home.submit(LightChange(isOn: true, brightness: 51), to: "bulb", transitionMs: 200)
        try await home.advance(byMilliseconds: 1_000)
        #expect(brightness(log).map(\.value) == [1, 26, 51])
    }

    @Test func aPlugSwitchesAtOnceWhateverTheTransition() async throws {
        let (home, log) = try await makeHome(singleLight(kind: "onoff", state: #"{"isOn": true}"#))
        _ = try await home.submit(LightChange(isOn: false), to: "bulb", transitionMs: 1_000)
        try await home.advance(byMilliseconds: 0)
        #expect(log.values("isOn", of: "bulb").map(\.value) == [false])
        #expect(await home.scheduledEventCount == 0)
    }

    @Test func aFadeIsSavedAtWhereItLands() async throws {
        let (home, _) = try await makeHome(singleLight(state: #"{"isOn": true, "brightness": 81}"#))
        _ = try await home.submit(LightChange(isOn: false), to: "bulb", transitionMs: 400)
        try await home.advance(byMilliseconds: 200)
        let saved = await home.snapshot().rooms[0].lights[0].state
        #expect(!saved.isOn && saved.brightness == 81)
    }

    @Test func switchingOnDuringAFadeOffKeepsTheLightOnWhereTheFadeStood() async throws {
        let (home, _) = try await makeHome(singleLight(state: #"{"isOn": true, "brightness": 81}"#))
        _ = try await home.submit(LightChange(isOn: false), to: "bulb", transitionMs: 400)
        try await home.advance(byMilliseconds: 200)
        let ticket = try await home.submit(LightChange(isOn: true), to: "bulb")
        try await home.advance(byMilliseconds: 1_000)
        let state = try await home.light("bulb").state
        #expect(state.isOn && state.brightness == 41)
        #expect(try await ticket.value == state)
        #expect(await home.snapshot().rooms[0].lights[0].state == state, "what is saved is what it shows")
    }
}
