import LumenModel
import LumenScopes
import Testing

@testable import LumenLIFX
@testable import LumenSimulation

/// `SetWaveformOptional`: a waveform for only the parts of the colour the client names, as photons and
/// lifx-async set a brightness or a hue alone.
extension LIFXFrontTests {
    func waveformOptional(
        _ color: HSBK, fields: LIFXColorFields, transient: Bool = false, periodMs: UInt32 = 200,
        shape: LIFXWave.Shape = .pulse, sequence: UInt8 = 1
    ) -> LIFXPacket {
        var writer = LIFXWriter()
        writer.uint8(0)
        writer.uint8(transient ? 1 : 0)
        color.write(&writer)
        writer.uint32(periodMs)
        writer.uint32(Float(1).bitPattern)  // cycles
        writer.uint16(0)  // skew ratio
        writer.uint8(shape.rawValue)
        for field in [LIFXColorFields.hue, .saturation, .brightness, .kelvin] {
            writer.uint8(fields.contains(field) ? 1 : 0)
        }
        return LIFXPacket(
            source: 8, target: bulbSerial + [0, 0], wantsAcknowledgement: true, sequence: sequence, type: 119,
            payload: writer.output)
    }

    @Test func aWaveformForTheBrightnessAloneDimsAndLeavesTheColour() async throws {
        let before = try await home.light("den.bulb").state
        let red = HSBK(hue: 0, saturation: 65_535, brightness: 16_384, kelvin: 9_000)
        #expect(try await replies(waveformOptional(red, fields: .brightness)).map(\.type) == [45])
        try await home.advance(byMilliseconds: 1_000)
        let after = try await home.light("den.bulb").state
        #expect(abs(after.brightness - 25) < 0.001, "the brightness asked (16,384 of 65,535), over the wave's 200 ms")
        #expect(after.color == before.color && after.colorTemperature == before.colorTemperature)
    }

    /// A kelvin alone leaves a bulb showing a colour on it, as a bulb keeps its kelvin for its whites.
    @Test func aWaveformForTheKelvinAloneLeavesAColourShowing() async throws {
        let green = HSBK(hue: 21_845, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
        _ = try await replies(waveformOptional(green, fields: [.hue, .saturation], sequence: 1))
        try await home.advance(byMilliseconds: 1_000)
        let before = try await home.light("den.bulb").state
        _ = try await replies(waveformOptional(green, fields: .kelvin, sequence: 2))
        try await home.advance(byMilliseconds: 1_000)
        let after = try await home.light("den.bulb").state
        #expect(after.color == before.color && !after.showsColorTemperature, "\(after)")
        #expect(after.colorTemperature == 286)
    }

    @Test func aWaveformForHueAndSaturationTurnsTheColourAndKeepsTheBrightness() async throws {
        let red = HSBK(hue: 0, saturation: 65_535, brightness: 0, kelvin: 3_500)
        _ = try await replies(waveformOptional(red, fields: [.hue, .saturation]))
        try await home.advance(byMilliseconds: 1_000)
        let after = try await home.light("den.bulb").state
        #expect(after.color.x > 0.6 && after.brightness == 50, "red, at the brightness it had")
    }

    @Test func aTransientWaveformForOnePartLeavesTheLightAsItWas() async throws {
        let before = try await home.light("den.bulb").state
        let dim = HSBK(hue: 0, saturation: 0, brightness: 0, kelvin: 3_500)
        _ = try await replies(waveformOptional(dim, fields: .brightness, transient: true))
        try await home.advance(byMilliseconds: 1_000)
        #expect(try await home.light("den.bulb").state == before)
    }

    /// A hue alone is kept as given under no saturation (lifx-async's `set_hue`, photons' colour API, a wave of
    /// no length), and a saturation given alone after it turns the light to that hue.
    @Test func aHueAloneUnderNoSaturationIsKeptForTheSaturationGivenAfter() async throws {
        _ = try await replies(
            setColor(HSBK(hue: 10_000, saturation: 0, brightness: 40_000, kelvin: 4_000), sequence: 1))
        let hue = HSBK(hue: 36_408, saturation: 0, brightness: 0, kelvin: 0)
        _ = try await replies(waveformOptional(hue, fields: .hue, periodMs: 0, shape: .saw, sequence: 2))
        let hueRead = try await reportedColor(sequence: 3)
        #expect(hueRead == HSBK(hue: 36_408, saturation: 0, brightness: 40_000, kelvin: 4_000), "\(hueRead)")
        let saturation = HSBK(hue: 0, saturation: 65_535, brightness: 0, kelvin: 0)
        _ = try await replies(waveformOptional(saturation, fields: .saturation, periodMs: 0, shape: .saw, sequence: 4))
        let bothRead = try await reportedColor(sequence: 5)
        #expect(bothRead == HSBK(hue: 36_408, saturation: 65_535, brightness: 40_000, kelvin: 4_000), "\(bothRead)")
        let shown = try await home.light("den.bulb").state.color.hueAndSaturation
        #expect(abs(shown.0 - 36_408.0 / 65_535) < 0.01 && shown.1 > 0.99, "\(shown)")
    }

    /// On the real clock a fade's steps run when the clock wakes for them, a moment after they fall due: a bulb
    /// read once its wave has ended, before the light's last step ran, reads where the wave left it, as given.
    @Test func aBulbReadJustAfterItsWaveEndedShowsWhereTheWaveLeftIt() async throws {
        let given = HSBK(hue: 21_845, saturation: 65_535, brightness: 32_768, kelvin: 3_500)
        _ = try await replies(setColor(given, sequence: 1))
        let dim = HSBK(hue: 0, saturation: 0, brightness: 16_384, kelvin: 0)
        let start = try await startWave(waveformOptional(dim, fields: .brightness, shape: .saw, sequence: 2))
        // The clock moves past the wave's end without running what fell due, as the real clock does between wakes.
        await home.reading { $0.nowMicros = Int64((start + 205) * 1_000) }
        let read = try await color(of: "den.bulb")
        #expect(read == HSBK(hue: 21_845, saturation: 65_535, brightness: 16_384, kelvin: 3_500), "\(read)")
    }

    /// A fade that has not moved the light yet (another front's, or a wave's before the bulb has drawn any of
    /// it) leaves the bulb reporting its colour as given: the light is still where that colour left it.
    @Test func aFadeNotYetUnderWayLeavesTheColourAsGiven() async throws {
        let given = HSBK(hue: 21_845, saturation: 65_535, brightness: 32_768, kelvin: 3_500)
        _ = try await replies(setColor(given, sequence: 1))
        _ = try await home.submit(LightChange(brightness: 25), to: "den.bulb", transitionMs: 200)
        try await home.advance(byMilliseconds: 40)  // the bulb's latency: the fade starts, no step taken
        #expect(try await home.light("den.bulb").state.brightness != 25, "the fade under way")
        let read = try await color(of: "den.bulb")
        #expect(read == given, "\(read)")
    }

    /// A `SetWaveform` (103) to `light` of `home` (on the virtual clock) behind `front`.
    static func waveform(
        _ color: HSBK, transient: Bool, periodMs: UInt32, cycles: Float, shape: LIFXWave.Shape = .halfSine,
        skewRatio: Int16 = 0, to light: LightID, of home: String
    ) -> LIFXPacket {
        var writer = LIFXWriter()
        writer.uint8(0)
        writer.uint8(transient ? 1 : 0)
        color.write(&writer)
        writer.uint32(periodMs)
        writer.uint32(cycles.bitPattern)
        writer.uint16(UInt16(bitPattern: skewRatio))
        writer.uint8(shape.rawValue)
        return LIFXPacket(
            source: 8, target: DeviceSerial.of(home: home, light: light) + [0, 0], wantsAcknowledgement: true,
            sequence: 1, type: 103, payload: writer.output)
    }

    @Test func aWaveformOfSeveralCyclesEndsOnItsColourOnceEveryCycleIsDone() async throws {
        let red = HSBK(hue: 0, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
        let packet = Self.waveform(red, transient: false, periodMs: 200, cycles: 3, to: "den.mini", of: "flat")
        #expect(try await replies(packet).map(\.type) == [45])
        try await home.advance(byMilliseconds: 300)
        #expect(try await color(of: "den.mini") != red, "half way through the cycles, not there yet")
        try await home.advance(byMilliseconds: 400)
        #expect(try await color(of: "den.mini") == red)
        let after = try await home.light("den.mini").state
        #expect(after.color.x > 0.6 && after.brightness == 100, "red at full brightness: the target stays")
    }

    /// The colour `light` shows over the LAN (`Get`), read at once without moving the clock.
    func color(of light: LightID) async throws -> HSBK {
        let target = DeviceSerial.of(home: "flat", light: light) + [0, 0]
        let replies = await front.answer(LIFXPacket(source: 8, target: target, sequence: 3, type: 101))
        var reader = LIFXReader(try LIFXPacket(bytes: try #require(replies.first)).payload)
        return HSBK(&reader)
    }

    /// Sends `packet` (a waveform to the bulb) and moves the clock to `elapsedMs` after the bulb took it.
    func startWave(_ packet: LIFXPacket) async throws -> Double {
        // The clock moved only as far as the bulb takes the wave, however slow the machine, so that a test may move
        // it on to any moment of the wave.
        let front = front
        _ = try await home.driving { await front.answer(packet) }
        return try #require(front.records.waveforms.withLock { $0["den.bulb"]?.waveform.startMs })
    }

    func advance(to ms: Double) async throws {
        try await home.advance(byMilliseconds: ms - (await home.nowMilliseconds))
    }

    static let red = HSBK(hue: 0, saturation: 65_535, brightness: 65_535, kelvin: 3_500)

    /// Each shape moves the colour within a cycle as LIFX draws it; every cycle alike; once the wave is done,
    /// where it ends.
    @Test func eachShapeDrawsItsCycle() {
        func share(_ shape: LIFXWave.Shape, _ ms: Double, skew: Int16 = 0, transient: Bool = false) -> Double {
            let wave = LIFXWave(
                transient: transient, color: Self.red, periodMs: 1_000, cycles: 2, skewRatio: skew, shape: shape)
            return (wave.share(atElapsedMs: ms) * 1_000).rounded() / 1_000
        }
        #expect(share(.saw, 250) == 0.25 && share(.saw, 1_750) == 0.75)
        #expect(share(.sine, 0) == 0 && share(.sine, 250) == 0.5 && share(.sine, 500) == 1 && share(.sine, 750) == 0.5)
        #expect(share(.halfSine, 500) == 0.5 && share(.halfSine, 1_250) == 0.146)
        #expect(share(.triangle, 250) == 0.5 && share(.triangle, 500) == 1 && share(.triangle, 1_900) == 0.2)
        // A skew ratio of 0.75 (16,383) leaves the colour on for the first quarter of each cycle.
        #expect(share(.pulse, 200, skew: 16_383) == 1 && share(.pulse, 300, skew: 16_383) == 0)
        #expect(share(.pulse, 1_400, skew: 0) == 1 && share(.pulse, 1_600, skew: 0) == 0, "0 is half the cycle")
        // Done: on the colour, unless transient, a sine or a triangle, which come back.
        #expect(share(.saw, 2_000) == 1 && share(.pulse, 2_500) == 1 && share(.halfSine, 2_000) == 1)
        #expect(share(.sine, 2_000) == 0 && share(.triangle, 2_000) == 0 && share(.saw, 2_000, transient: true) == 0)
        let fraction = LIFXWave(transient: false, color: Self.red, periodMs: 1_000, cycles: 0.5, shape: .saw)
        #expect(fraction.lengthMs == 500 && fraction.share(atElapsedMs: 499) > 0.49)
    }

    /// A bulb read during a wave shows it part of the way, on the simulation clock; a wave that ends on its
    /// colour changes the light to it over the wave's length, and the bulb shows that colour once it is done.
    @Test func aBulbReadMidWaveShowsTheWave() async throws {
        let from = try await color(of: "den.bulb")
        let saw = Self.waveform(
            Self.red, transient: false, periodMs: 1_000, cycles: 1, shape: .saw, to: "den.bulb", of: "flat")
        let start = try await startWave(saw)
        try await advance(to: start + 500)
        #expect(try await color(of: "den.bulb") == from.interpolated(to: Self.red, by: 0.5))
        #expect(try await home.light("den.bulb").state.color.x < 0.6, "the light itself on its way there")
        try await advance(to: start + 1_000)
        #expect(try await color(of: "den.bulb") == Self.red)
        #expect(try await home.light("den.bulb").state.color.x > 0.6, "the light itself there")
    }

    /// A transient wave, and a sine, come back to where the bulb began; a pulse shows the colour for its duty
    /// cycle.
    @Test func aTransientWaveOrASineComesBackWhereItBegan() async throws {
        let from = try await color(of: "den.bulb")
        let light = try await home.light("den.bulb").state
        let sine = Self.waveform(
            Self.red, transient: false, periodMs: 400, cycles: 2, shape: .sine, to: "den.bulb", of: "flat")
        var start = try await startWave(sine)
        try await advance(to: start + 100)
        let quarter = try await color(of: "den.bulb")
        let halfway = from.interpolated(to: Self.red, by: 0.5)
        #expect(
            [quarter.hue, quarter.saturation, quarter.brightness].map(Int.init)
                .elementsEqual([halfway.hue, halfway.saturation, halfway.brightness].map(Int.init)) {
                    abs($0 - $1) <= 1
                },
            "a quarter of a sine's cycle is half way: \(quarter)")
        try await advance(to: start + 600)
        #expect(try await color(of: "den.bulb") == Self.red)
        try await advance(to: start + 800)
        #expect(try await color(of: "den.bulb") == from)
        #expect(try await home.light("den.bulb").state == light)
        let pulse = Self.waveform(
            Self.red, transient: true, periodMs: 400, cycles: 1, shape: .pulse, skewRatio: 16_383, to: "den.bulb",
            of: "flat")
        start = try await startWave(pulse)
        try await advance(to: start + 50)
        #expect(try await color(of: "den.bulb") == Self.red)
        try await advance(to: start + 150)
        #expect(try await color(of: "den.bulb") == from)
        try await advance(to: start + 500)
        #expect(try await color(of: "den.bulb") == from)
        #expect(try await home.light("den.bulb").state == light)
    }

    /// Any other change to the light ends the wave there.
    @Test func aColourSetDuringAWaveEndsIt() async throws {
        let saw = Self.waveform(
            Self.red, transient: true, periodMs: 10_000, cycles: 1, shape: .saw, to: "den.bulb", of: "flat")
        let start = try await startWave(saw)
        try await advance(to: start + 1_000)
        let blue = HSBK(hue: 43_690, saturation: 65_535, brightness: 32_768, kelvin: 3_500)
        var writer = LIFXWriter()
        writer.uint8(0)
        blue.write(&writer)
        writer.uint32(0)
        _ = try await replies(
            LIFXPacket(source: 8, target: bulbSerial + [0, 0], sequence: 4, type: 102, payload: writer.output))
        #expect(try await color(of: "den.bulb") == blue)
    }

    @Test func aWaveformReachesAWhiteBulbAsItsColourWouldAndATransientOneLeavesIt() async throws {
        let fixture = """
            {"schema": 1, "id": "flat", "name": "Flat", "seed": 4, "rooms": [
              {"id": "den", "name": "Den", "lights": [
                {"id": "den.white", "name": "White", "kind": "ambiance", "manufacturer": "LIFX",
                 "product": "LIFX Mini White to Warm", "latency": {"kind": "fixed", "ms": 10}}
              ]}
            ]}
            """
        let home = Home(fixture: try Fixture(json: Array(fixture.utf8)), clock: .virtual)
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
        let before = try await home.light("den.white").state
        let dim = HSBK(hue: 0, saturation: 0, brightness: 16_384, kelvin: 4_000)
        let transient = Self.waveform(dim, transient: true, periodMs: 100, cycles: 2, to: "den.white", of: "flat")
        _ = try await front.replies(to: transient, movingClockOf: home)
        try await home.advance(byMilliseconds: 1_000)
        #expect(try await home.light("den.white").state == before, "a transient wave returns to where it began")
        let kept = Self.waveform(dim, transient: false, periodMs: 100, cycles: 2, to: "den.white", of: "flat")
        _ = try await front.replies(to: kept, movingClockOf: home)
        try await home.advance(byMilliseconds: 1_000)
        let after = try await home.light("den.white").state
        #expect(abs(after.brightness - 25) < 0.001 && after.colorTemperature == 250, "\(after)")
    }
}

/// An on/off light on the LAN (a Mini White, product 51, without a dimmer): it has no colour to change, so a
/// waveform, like `SetColor`, leaves what it reads back as it was.
extension LIFXFrontTests {
    static let onOffHome = """
        {"schema": 1, "id": "flat", "name": "Flat", "seed": 4, "rooms": [
          {"id": "den", "name": "Den", "lights": [
            {"id": "den.plain", "name": "Plain", "kind": "onoff", "manufacturer": "LIFX",
             "latency": {"kind": "fixed", "ms": 10}, "state": {"isOn": true}}
          ]}
        ]}
        """

    /// The colour the on/off bulb reads back after `packet`, with its light state then.
    static func onOffColor(after packet: (LightID, String) -> LIFXPacket) async throws -> (HSBK, LightState) {
        let home = Home(fixture: try Fixture(json: Array(onOffHome.utf8)), clock: .virtual)
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
        _ = try await front.replies(to: packet("den.plain", "flat"), movingClockOf: home)
        try await home.advance(byMilliseconds: 1_000)
        let target = DeviceSerial.of(home: "flat", light: "den.plain") + [0, 0]
        let state = try await front.replies(
            to: LIFXPacket(source: 8, target: target, sequence: 9, type: 101), movingClockOf: home)
        var reader = LIFXReader(try #require(state.first).payload)
        return (HSBK(&reader), try await home.light("den.plain").state)
    }

    @Test func anOnOffLightIgnoresAWaveformsColourAsItIgnoresSetColors() async throws {
        let dimRed = HSBK(hue: 0, saturation: 65_535, brightness: 16_384, kelvin: 4_000)
        let (afterSetColor, setColorState) = try await Self.onOffColor { light, home in
            var writer = LIFXWriter()
            writer.uint8(0)
            dimRed.write(&writer)
            writer.uint32(0)
            return LIFXPacket(
                source: 8, target: DeviceSerial.of(home: home, light: light) + [0, 0], wantsAcknowledgement: true,
                sequence: 1, type: 102, payload: writer.output)
        }
        #expect(afterSetColor.brightness == 65_535, "an on/off light is at full brightness while on")
        let (afterWave, waveState) = try await Self.onOffColor { light, home in
            Self.waveform(dimRed, transient: false, periodMs: 100, cycles: 1, shape: .saw, to: light, of: home)
        }
        #expect(afterWave == afterSetColor, "a wave reads back as SetColor's: \(afterWave) against \(afterSetColor)")
        #expect(waveState == setColorState)
    }

    @Test func anOnOffLightIgnoresAWaveformForTheBrightnessAlone() async throws {
        let (color, state) = try await Self.onOffColor { light, home in
            var packet = Self.waveform(
                HSBK(hue: 0, saturation: 0, brightness: 0, kelvin: 0), transient: false, periodMs: 0, cycles: 1,
                shape: .saw, to: light, of: home)
            packet.type = 119
            packet.payload += [0, 0, 1, 0]
            return packet
        }
        #expect(color.brightness == 65_535 && state.isOn, "\(color)")
    }
}

extension LIFXFrontTests {
    /// The Mini White (product 51) has one white, 2,700 K, which clients read from LIFX's product list as its whole
    /// kelvin range: lifx-async refuses a colour outside it, so a colour read back and sent again must lie in it.
    @Test func aLightWithoutColourTemperatureReportsTheMiniWhitesOneKelvin() async throws {
        let (color, _) = try await Self.onOffColor { light, home in
            LIFXPacket(source: 8, target: DeviceSerial.of(home: home, light: light) + [0, 0], sequence: 1, type: 101)
        }
        #expect(color.kelvin == 2_700, "\(color)")
        #expect(HSBK(LightState.factoryDefault, kind: .dimmable).kelvin == 2_700)
        #expect(HSBK(LightState.factoryDefault, kind: .onoff).kelvin == 2_700)
    }
}
