import LumenModel
import LumenScopes
import LumenSimulation
import Testing

@testable import LumenLIFX

/// A power fade (`SetLightPower` with a duration) moves the bulb's power level, not its colour: firmware reports
/// the level part of the way between 0 and 65535 while it fades, and its HSBK as the client left it.
extension LIFXFrontTests {
    func setLightPower(on: Bool, durationMs: UInt32, sequence: UInt8) -> LIFXPacket {
        var writer = LIFXWriter()
        writer.uint16(on ? 65_535 : 0)
        writer.uint32(durationMs)
        return LIFXPacket(
            source: 6, target: bulbSerial + [0, 0], wantsAcknowledgement: true, sequence: sequence, type: 117,
            payload: writer.output)
    }

    /// The power level each of `Light.Get`, `GetPower` and `Light.GetPower` reports, asked in one go (answered at
    /// one moment), and `Light.Get`'s colour.
    func reportedPower(sequence: UInt8) async throws -> (levels: [UInt16], color: HSBK) {
        let types: [UInt16] = [101, 20, 116]
        let asked = types.map { LIFXPacket(source: 6, target: bulbSerial + [0, 0], sequence: sequence, type: $0) }
        let answers = try await front.repliesReadInOneGo(asked, movingClockOf: home)
        var levels: [UInt16] = []
        var color: HSBK?
        for type in types {
            let state = try #require(answers.first { $0.type == [101: 107, 20: 22, 116: 118][type] })
            var reader = LIFXReader(state.payload)
            if type == 101 {
                color = HSBK(&reader)
                reader.skip(2)
            }
            levels.append(reader.uint16())
        }
        return (levels, try #require(color))
    }

    /// Sends `SetLightPower`, moving the clock only until the bulb takes it; when it took it, in simulation
    /// milliseconds.
    func fadePower(on: Bool, durationMs: UInt32, sequence: UInt8) async throws -> Double {
        let answer = try await front.repliesReadInOneGo(
            [setLightPower(on: on, durationMs: durationMs, sequence: sequence)], movingClockOf: home)
        #expect(answer.map(\.type) == [45])
        return await home.reading { $0.nowMilliseconds }
    }

    /// Moves the virtual clock to `ms` of simulation time.
    func moveClock(toMs ms: Double) async throws {
        let now = await home.reading { $0.nowMilliseconds }
        try await home.advance(byMilliseconds: ms - now)
    }

    @Test func aPowerFadeMovesTheReportedPowerLevelAndLeavesTheColour() async throws {
        // The bulb is off at half brightness.
        let color = HSBK(hue: 0, saturation: 0, brightness: 32_768, kelvin: 3_500)
        #expect(try await replies(setColor(color, sequence: 1)).map(\.type) == [45])
        let startMs = try await fadePower(on: true, durationMs: 1_000, sequence: 2)

        try await moveClock(toMs: startMs + 500)
        let rising = try await reportedPower(sequence: 3)
        #expect(rising.color == color, "the colour stays as given while the power fades")
        #expect(rising.levels == [32_768, 32_768, 32_768], "half way up")

        try await moveClock(toMs: startMs + 1_000)
        let on = try await reportedPower(sequence: 4)
        #expect(on.levels == [65_535, 65_535, 65_535] && on.color == color)

        let offMs = try await fadePower(on: false, durationMs: 2_000, sequence: 5)
        try await moveClock(toMs: offMs + 500)
        let falling = try await reportedPower(sequence: 6)
        #expect(falling.color == color)
        #expect(falling.levels == [49_151, 49_151, 49_151], "a quarter of the way down")
        #expect(try await home.light("den.bulb").state.isOn, "the light is on until the fade lands")

        try await moveClock(toMs: offMs + 2_000)
        let off = try await reportedPower(sequence: 7)
        #expect(off.levels == [0, 0, 0] && off.color == color)
        #expect(try await !home.light("den.bulb").state.isOn)
    }

    /// A fade is the bulb's power only while the light still lands where the bulb's message left it: changed by
    /// another way in, the bulb reports the light as it is.
    @Test func anotherChangeEndsThePowerFadeTheBulbReports() async throws {
        let startMs = try await fadePower(on: true, durationMs: 1_000, sequence: 1)
        try await moveClock(toMs: startMs + 300)
        #expect(try await reportedPower(sequence: 2).levels[0] < 65_535)
        _ = try await home.submit(LightChange(isOn: true, brightness: 80), to: "den.bulb")
        try await home.advance(byMilliseconds: 100)
        let changed = try await reportedPower(sequence: 3)
        #expect(changed.levels == [65_535, 65_535, 65_535] && changed.color.brightness == 52_428)
    }
}

extension LIFXFrontTests {
    /// The bulb at `color`, on, with no fade under way.
    func onAt(_ color: HSBK) async throws {
        #expect(try await replies(setColor(color, sequence: 1)).map(\.type) == [45])
        _ = try await fadePower(on: true, durationMs: 0, sequence: 2)
    }

    /// Turned off part of the way through a fade on, the bulb keeps the colour the client gave it (firmware's
    /// power level never touches the HSBK): turned on again, it reports that colour, not the level the fade had
    /// reached.
    @Test func offDuringAFadeOnKeepsTheColourForTheNextTurnOn() async throws {
        let color = HSBK(hue: 0, saturation: 0, brightness: 32_768, kelvin: 3_500)
        #expect(try await replies(setColor(color, sequence: 1)).map(\.type) == [45])
        let startMs = try await fadePower(on: true, durationMs: 1_000, sequence: 2)
        try await moveClock(toMs: startMs + 500)
        _ = try await fadePower(on: false, durationMs: 0, sequence: 3)
        let off = try await reportedPower(sequence: 4)
        #expect(off.levels == [0, 0, 0] && off.color == color, "\(off)")
        _ = try await fadePower(on: true, durationMs: 0, sequence: 5)
        let on = try await reportedPower(sequence: 6)
        #expect(on.levels == [65_535, 65_535, 65_535] && on.color == color, "\(on)")
        #expect(abs(try await home.light("den.bulb").state.brightness - 50) < 0.01, "the colour's level")
    }

    /// Turned on again part of the way through a fade off, the bulb comes back to the colour it had, not the
    /// level the fade had reached; with a duration, its power rises from where the fade off had brought it.
    @Test func onDuringAFadeOffComesBackToTheColourFromTheLevelReached() async throws {
        let color = HSBK(hue: 0, saturation: 0, brightness: 32_768, kelvin: 3_500)
        try await onAt(color)
        let offMs = try await fadePower(on: false, durationMs: 1_000, sequence: 3)
        try await moveClock(toMs: offMs + 500)
        #expect(try await reportedPower(sequence: 4).levels == [32_768, 32_768, 32_768], "half way down")
        // The message reaches the bulb half way down, and is taken its latency (40 ms) later.
        let backMs = try await fadePower(on: true, durationMs: 1_000, sequence: 5)
        let reached = try await reportedPower(sequence: 6)
        #expect(reached.color == color, "\(reached)")
        let level = Int(reached.levels[0])
        #expect((30_000..<32_768).contains(level), "from the level reached, not from 0 nor 65535: \(level)")
        try await moveClock(toMs: backMs + 500)
        let rising = try await reportedPower(sequence: 7)
        #expect(rising.color == color && rising.levels[0] > reached.levels[0] && rising.levels[0] < 65_535)
        try await moveClock(toMs: backMs + 1_000)
        let on = try await reportedPower(sequence: 8)
        #expect(on.levels == [65_535, 65_535, 65_535] && on.color == color, "\(on)")
        #expect(abs(try await home.light("den.bulb").state.brightness - 50) < 0.01, "the colour's level")
    }

    /// Turned on at once during a fade off, the bulb is at full power in the colour it had.
    @Test func anInstantOnDuringAFadeOffRestoresTheColourAtOnce() async throws {
        let color = HSBK(hue: 0, saturation: 0, brightness: 32_768, kelvin: 3_500)
        try await onAt(color)
        let offMs = try await fadePower(on: false, durationMs: 1_000, sequence: 3)
        try await moveClock(toMs: offMs + 500)
        _ = try await fadePower(on: true, durationMs: 0, sequence: 4)
        let on = try await reportedPower(sequence: 5)
        #expect(on.levels == [65_535, 65_535, 65_535] && on.color == color, "\(on)")
    }
}

extension LIFXFrontTests {
    /// `SetLightPower` on, with a duration, to a bulb already on is no power fade, even while its colour fades:
    /// the bulb reports full power and the colour part of the way, as before.
    @Test func aFadeOnToABulbAlreadyOnIsNoPowerFade() async throws {
        try await onAt(HSBK(hue: 0, saturation: 0, brightness: 65_535, kelvin: 3_500))
        let dim = HSBK(hue: 0, saturation: 0, brightness: 0, kelvin: 3_500)
        var writer = LIFXWriter()
        writer.uint8(0)
        dim.write(&writer)
        writer.uint32(2_000)
        let dimming = LIFXPacket(
            source: 6, target: bulbSerial + [0, 0], wantsAcknowledgement: true, sequence: 3, type: 102,
            payload: writer.output)
        #expect(try await replies(dimming).map(\.type) == [45])
        let onMs = try await fadePower(on: true, durationMs: 1_000, sequence: 4)
        try await moveClock(toMs: onMs + 500)
        let shown = try await reportedPower(sequence: 5)
        #expect(shown.levels == [65_535, 65_535, 65_535])
        #expect(shown.color.brightness > 10_000 && shown.color.brightness < 60_000, "part of the way: \(shown)")
    }
}

extension LIFXFrontTests {
    /// Faded off part of the way through a fade on, the bulb's power falls from the level reached, and the colour
    /// stays for the next turn-on.
    @Test func aFadeOffDuringAFadeOnFallsFromTheLevelReached() async throws {
        let color = HSBK(hue: 0, saturation: 0, brightness: 32_768, kelvin: 3_500)
        #expect(try await replies(setColor(color, sequence: 1)).map(\.type) == [45])
        let onMs = try await fadePower(on: true, durationMs: 1_000, sequence: 2)
        try await moveClock(toMs: onMs + 500)
        let offMs = try await fadePower(on: false, durationMs: 1_000, sequence: 3)
        let reached = try await reportedPower(sequence: 4)
        #expect(reached.color == color, "\(reached)")
        #expect((32_768..<36_000).contains(reached.levels[0]), "from the level reached: \(reached.levels)")
        try await moveClock(toMs: offMs + 500)
        let falling = try await reportedPower(sequence: 5)
        #expect(falling.color == color)
        #expect(abs(Int(falling.levels[0]) - Int(reached.levels[0]) / 2) <= 1, "half way down from it: \(falling)")
        try await moveClock(toMs: offMs + 1_000)
        #expect(try await reportedPower(sequence: 6).levels == [0, 0, 0])
        _ = try await fadePower(on: true, durationMs: 0, sequence: 7)
        let on = try await reportedPower(sequence: 8)
        #expect(on.levels == [65_535, 65_535, 65_535] && on.color == color, "\(on)")
    }
}

/// A colour sent while the bulb fades its power changes the colour and leaves the fade going, as firmware keeps
/// the power level apart from the colour: a light fading off still goes off (Home Assistant turns a light that
/// fades off back on before it sets a colour for that reason).
extension LIFXFrontTests {
    /// Sends `SetColor`, moving the clock only until the bulb takes it.
    func sendColor(_ color: HSBK, sequence: UInt8) async throws {
        let answer = try await front.repliesReadInOneGo([setColor(color, sequence: sequence)], movingClockOf: home)
        #expect(answer.map(\.type) == [45])
    }

    @Test func aColourSentDuringAFadeOffChangesTheColourAndTheLightStillGoesOff() async throws {
        let first = HSBK(hue: 0, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
        let second = HSBK(hue: 21_845, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
        try await sendColor(first, sequence: 1)
        _ = try await fadePower(on: true, durationMs: 0, sequence: 2)
        let offMs = try await fadePower(on: false, durationMs: 2_000, sequence: 3)

        try await moveClock(toMs: offMs + 500)
        try await sendColor(second, sequence: 4)
        try await moveClock(toMs: offMs + 1_000)
        let falling = try await reportedPower(sequence: 5)
        #expect(falling.color == second, "the colour as sent")
        #expect(falling.levels.allSatisfy { (32_000...33_500).contains($0) }, "still half way down: \(falling.levels)")

        try await moveClock(toMs: offMs + 2_100)
        let off = try await reportedPower(sequence: 6)
        #expect(off.levels == [0, 0, 0] && off.color == second)
        #expect(try await !home.light("den.bulb").state.isOn, "the fade off went on to the end")
    }

    @Test func aColourSentDuringAFadeOnLeavesThePowerRisingToTheEnd() async throws {
        let second = HSBK(hue: 43_690, saturation: 65_535, brightness: 32_768, kelvin: 3_500)
        let onMs = try await fadePower(on: true, durationMs: 2_000, sequence: 1)

        try await moveClock(toMs: onMs + 500)
        try await sendColor(second, sequence: 2)
        try await moveClock(toMs: onMs + 1_000)
        let rising = try await reportedPower(sequence: 3)
        #expect(rising.color == second)
        #expect(rising.levels.allSatisfy { (32_000...33_500).contains($0) }, "half way up: \(rising.levels)")

        try await moveClock(toMs: onMs + 2_100)
        let on = try await reportedPower(sequence: 4)
        #expect(on.levels == [65_535, 65_535, 65_535] && on.color == second)
    }
}

/// A colour carried into a power fade (``LIFXFront/sendingColor(_:to:from:in:)``) as the bulb takes it: the
/// reported power goes on from where it was, whenever the colour comes.
extension LIFXFrontTests {
    /// `SetPower`, at once.
    func setPower(on: Bool, sequence: UInt8) -> LIFXPacket {
        var writer = LIFXWriter()
        writer.uint16(on ? 65_535 : 0)
        return LIFXPacket(
            source: 6, target: bulbSerial + [0, 0], wantsAcknowledgement: true, sequence: sequence, type: 21,
            payload: writer.output)
    }

    @Test func aColourTakenMidFadeLeavesThePowerWhereItWas() async throws {
        let second = HSBK(hue: 43_690, saturation: 65_535, brightness: 32_768, kelvin: 3_500)
        let onMs = try await fadePower(on: true, durationMs: 2_000, sequence: 1)
        try await moveClock(toMs: onMs + 500)
        try await sendColor(second, sequence: 2)
        let takenMs = await home.reading { $0.nowMilliseconds }
        let level = try await reportedPower(sequence: 3).levels[0]
        // The fade's own level as the bulb took the colour: 65535 × (takenMs − onMs) / 2000.
        let expected = (65_535 * (takenMs - onMs) / 2_000).rounded()
        #expect(abs(Double(level) - expected) <= 1, "no jump as the colour is taken: \(level), not \(expected)")
    }

    /// A colour sent just before a fade on ends, and taken after it did: the bulb is at full power from the
    /// fade's end on, and stays there while the colour lands (over what was left of the fade as it was sent).
    @Test func aColourTakenAfterAFadeOnEndedLeavesFullPower() async throws {
        let second = HSBK(hue: 43_690, saturation: 65_535, brightness: 32_768, kelvin: 3_500)
        let onMs = try await fadePower(on: true, durationMs: 1_000, sequence: 1)
        try await moveClock(toMs: onMs + 990)
        try await sendColor(second, sequence: 2)
        #expect(try await reportedPower(sequence: 3).levels == [65_535, 65_535, 65_535])
        try await moveClock(toMs: onMs + 1_100)
        let landed = try await reportedPower(sequence: 4)
        #expect(landed.levels == [65_535, 65_535, 65_535] && landed.color == second, "\(landed)")
    }

    /// A colour sent just before a fade off ends, and taken after it did: the bulb stays off.
    @Test func aColourTakenAfterAFadeOffEndedLeavesTheBulbOff() async throws {
        let first = HSBK(hue: 0, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
        let second = HSBK(hue: 21_845, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
        try await sendColor(first, sequence: 1)
        _ = try await fadePower(on: true, durationMs: 0, sequence: 2)
        let offMs = try await fadePower(on: false, durationMs: 1_000, sequence: 3)
        try await moveClock(toMs: offMs + 990)
        try await sendColor(second, sequence: 4)
        let after = try await reportedPower(sequence: 5)
        #expect(after.levels == [0, 0, 0], "\(after)")
        #expect(try await !home.light("den.bulb").state.isOn)
    }

    /// A power-on and a colour read in one go during a fade off: the bulb takes the power-on first, so the colour
    /// finds the fade over and the light on, and leaves it on.
    @Test func aPowerOnThenAColourReadInOneGoDuringAFadeOffLeaveTheLightOn() async throws {
        let first = HSBK(hue: 0, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
        let second = HSBK(hue: 21_845, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
        try await sendColor(first, sequence: 1)
        _ = try await fadePower(on: true, durationMs: 0, sequence: 2)
        let offMs = try await fadePower(on: false, durationMs: 2_000, sequence: 3)
        try await moveClock(toMs: offMs + 500)
        let answers = try await front.repliesReadInOneGo(
            [setPower(on: true, sequence: 4), setColor(second, sequence: 5)], movingClockOf: home)
        #expect(answers.map(\.type) == [45, 45])
        try await moveClock(toMs: offMs + 2_500)
        let after = try await reportedPower(sequence: 6)
        #expect(after.levels == [65_535, 65_535, 65_535] && after.color == second, "\(after)")
        #expect(try await home.light("den.bulb").state.isOn)
    }
}

extension LIFXFrontTests {
    /// A colour and a fade on read in one go during a fade off: the colour carries the fade off on, and the fade
    /// on, taken after it, turns it back from the level it had reached, not from full power. (Sent while the
    /// colour was on its way, the fade on keeps the light's level as it finds it, not the colour's.)
    @Test func aFadeOnAfterAColourReadInOneGoTurnsTheCarriedFadeBack() async throws {
        let first = HSBK(hue: 0, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
        let second = HSBK(hue: 21_845, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
        try await sendColor(first, sequence: 1)
        _ = try await fadePower(on: true, durationMs: 0, sequence: 2)
        let offMs = try await fadePower(on: false, durationMs: 2_000, sequence: 3)
        try await moveClock(toMs: offMs + 500)
        let answers = try await front.repliesReadInOneGo(
            [setColor(second, sequence: 4), setLightPower(on: true, durationMs: 1_000, sequence: 5)],
            movingClockOf: home)
        #expect(answers.map(\.type) == [45, 45])
        let turned = try await reportedPower(sequence: 6)
        #expect((40_000..<60_000).contains(turned.levels[0]), "from the level reached: \(turned)")
        try await moveClock(toMs: offMs + 2_000)
        #expect(try await reportedPower(sequence: 7).levels == [65_535, 65_535, 65_535])
    }

    /// A fade on taken while a colour carried into a fade off still moves keeps that colour as sent, its kelvin
    /// too, whatever the hue does: the power level leaves the colour alone, so the light does not stop part of the
    /// way to it.
    @Test(arguments: [(21_845, 3_500), (0, 2_500), (21_845, 2_500)] as [(UInt16, UInt16)])
    func aFadeOnAfterACarriedColourKeepsTheColour(hue: UInt16, kelvin: UInt16) async throws {
        let first = HSBK(hue: 0, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
        let second = HSBK(hue: hue, saturation: 65_535, brightness: 65_535, kelvin: kelvin)
        try await sendColor(first, sequence: 1)
        _ = try await fadePower(on: true, durationMs: 0, sequence: 2)
        let offMs = try await fadePower(on: false, durationMs: 2_000, sequence: 3)
        try await moveClock(toMs: offMs + 500)
        try await sendColor(second, sequence: 4)
        try await moveClock(toMs: offMs + 700)
        let onMs = try await fadePower(on: true, durationMs: 1_000, sequence: 5)
        #expect(try await reportedPower(sequence: 6).color == second, "as the fade on is taken")
        try await moveClock(toMs: onMs + 1_000)
        let on = try await reportedPower(sequence: 7)
        #expect(on.levels == [65_535, 65_535, 65_535] && on.color == second, "\(on)")
    }
}

/// A fade on taken while a carried colour still moves lands on that colour's kelvin on a white bulb too, whose
/// colour temperature is all the colour it has.
extension LIFXFrontTests {
    @Test func aFadeOnAfterACarriedKelvinKeepsItOnAWhiteBulb() async throws {
        let fixture = """
            {"schema": 1, "id": "flat", "name": "Flat", "seed": 4, "rooms": [
              {"id": "den", "name": "Den", "lights": [
                {"id": "den.white", "name": "White", "kind": "ambiance", "manufacturer": "LIFX",
                 "product": "LIFX Mini White to Warm", "latency": {"kind": "fixed", "ms": 40}}
              ]}
            ]}
            """
        let home = Home(fixture: try Fixture(json: Array(fixture.utf8)), clock: .virtual)
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
        let serial = DeviceSerial.of(home: "flat", light: "den.white") + [0, 0]
        func send(_ type: UInt16, _ payload: [UInt8], sequence: UInt8) async throws -> [LIFXPacket] {
            let packet = LIFXPacket(
                source: 6, target: serial, wantsAcknowledgement: type != 101, sequence: sequence, type: type,
                payload: payload)
            return try await front.repliesReadInOneGo([packet], movingClockOf: home)
        }
        func color(_ color: HSBK, sequence: UInt8) async throws {
            var writer = LIFXWriter()
            writer.uint8(0)
            color.write(&writer)
            writer.uint32(0)
            _ = try await send(102, writer.output, sequence: sequence)
        }
        func power(on: Bool, durationMs: UInt32, sequence: UInt8) async throws {
            var writer = LIFXWriter()
            writer.uint16(on ? 65_535 : 0)
            writer.uint32(durationMs)
            _ = try await send(117, writer.output, sequence: sequence)
        }
        func moveClock(toMs ms: Double) async throws {
            try await home.advance(byMilliseconds: ms - (await home.reading { $0.nowMilliseconds }))
        }
        let first = HSBK(hue: 0, saturation: 0, brightness: 65_535, kelvin: 4_000)
        let second = HSBK(hue: 0, saturation: 0, brightness: 65_535, kelvin: 2_500)
        try await color(first, sequence: 1)
        try await power(on: true, durationMs: 0, sequence: 2)
        try await power(on: false, durationMs: 2_000, sequence: 3)
        let offMs = await home.reading { $0.nowMilliseconds }
        try await moveClock(toMs: offMs + 500)
        try await color(second, sequence: 4)
        try await moveClock(toMs: offMs + 700)
        try await power(on: true, durationMs: 1_000, sequence: 5)
        try await moveClock(toMs: offMs + 2_000)
        var reader = LIFXReader(try #require(try await send(101, [], sequence: 6).first).payload)
        #expect(HSBK(&reader) == second)
        #expect(try await home.light("den.white").state.colorTemperature == 400)
    }
}
