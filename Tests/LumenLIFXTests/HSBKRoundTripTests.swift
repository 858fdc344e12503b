import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import Testing

@testable import LumenLIFX

/// A colour written through LIFX reads back through LIFX as written, and one written through the scope
/// protocol reads back there: the home keeps one colour model for every front.
@Suite("LIFX colours round trip")
struct HSBKRoundTripTests {
    static let home = """
        {"schema": 1, "id": "flat", "name": "Flat", "seed": 4, "defaults": {"latency": "instant"}, "rooms": [
          {"id": "den", "name": "Den", "lights": [
            {"id": "den.bulb", "name": "Bulb", "kind": "color", "manufacturer": "LIFX", "product": "LIFX A19"},
            {"id": "den.white", "name": "White", "kind": "ambiance", "manufacturer": "LIFX", "product": "LIFX Mini White to Warm"},
            {"id": "den.lamp", "name": "Lamp", "kind": "color", "manufacturer": "Signify"}
          ]}
        ]}
        """

    let home: Home
    let context: ScopeContext

    init() throws {
        home = Home(fixture: try Fixture(json: Array(Self.home.utf8)), clock: .virtual)
        context = ScopeContext(home: home)
    }

    /// Sets `color` on the bulb as a LIFX `SetColor` does, and reads it back as `Light.Get` does.
    func written(_ color: HSBK, light: LightID = "den.bulb") async throws -> HSBK {
        let kind = try await home.light(light).model.kind
        try await performed(color.change(for: kind), on: light)
        return HSBK(try await home.light(light).state, kind: kind)
    }

    /// Makes `change` through the door, moving the virtual clock until it is made: 60 ms at a time, within the
    /// bulb's 20 messages a second.
    func performed(_ change: LightChange, on light: LightID) async throws {
        let done = Locked(false)
        let work = Task { [context] in
            defer { done.withLock { $0 = true } }
            return try await context.perform(change, to: light, from: "lifx test")
        }
        // The command may not have reached the home yet: the clock moves until it is made.
        for _ in 0..<1_000 where !done.withLock({ $0 }) {
            try await home.advance(byMilliseconds: 60)
            await Task.yield()
        }
        _ = try await work.value
    }

    @Test func aColourReadsBackAsWrittenWithinOneUnit() async throws {
        for hue in stride(from: 0, through: 65_535, by: 4_369) {
            for saturation in [65_535, 40_000, 1_000] {
                for brightness in [65_535, 30_000, 700] {
                    let sent = HSBK(
                        hue: UInt16(hue), saturation: UInt16(saturation), brightness: UInt16(brightness), kelvin: 3_500)
                    let back = try await written(sent)
                    let hueError = min(abs(Int(back.hue) - hue), 65_536 - abs(Int(back.hue) - hue))
                    #expect(hueError <= 1, "\(sent) read back as \(back)")
                    #expect(abs(Int(back.saturation) - saturation) <= 1, "\(sent) read back as \(back)")
                    #expect(abs(Int(back.brightness) - brightness) <= 1, "\(sent) read back as \(back)")
                }
            }
        }
    }

    @Test func whiteAfterAColourReadsAsWhite() async throws {
        _ = try await written(HSBK(hue: 21_845, saturation: 65_535, brightness: 65_535, kelvin: 3_500))
        let white = try await written(HSBK(hue: 0, saturation: 0, brightness: 32_768, kelvin: 2_700))
        #expect(white.hue == 0 && white.saturation == 0 && white.brightness == 32_768, "\(white)")
        // Kelvin is kept in mireds, the scope protocol's unit: 2,700 K is 370 mireds, 2,703 K.
        #expect(abs(Int(white.kelvin) - 2_700) <= 8, "\(white)")
    }

    /// A LIFX bulb takes its products' 1,500–9,000 K, to the nearest whole mired (read back within them); a Hue light its own 153–500
    /// mireds, and a colour temperature beyond is refused, naming that range.
    @Test func eachFamilyTakesItsOwnColourTemperatures() async throws {
        for (kelvin, readBack) in [(1_500, 1_500), (9_000, 9_000), (4_000, 4_000), (2_700, 2_703)] {
            let white = try await written(HSBK(hue: 0, saturation: 0, brightness: 65_535, kelvin: UInt16(kelvin)))
            #expect(Int(white.kelvin) == readBack && white.saturation == 0, "\(kelvin) K read back as \(white)")
        }
        try await performed(LightChange(colorTemperature: 650), on: "den.white")
        #expect(try await home.light("den.white").state.colorTemperature == 650)
        await #expect(throws: LumenError.self) {
            try await context.perform(LightChange(colorTemperature: 600), to: "den.lamp", from: "session 1")
        }
        do {
            _ = try await context.perform(LightChange(colorTemperature: 600), to: "den.lamp", from: "session 1")
        } catch {
            #expect(error.code == .invalidParams && error.message.contains("153–500"), "\(error.message)")
        }
    }

    @Test func aFactoryWhiteBulbIsUnsaturated() async throws {
        let state = HSBK(LightState.factoryDefault, kind: .color)
        #expect(state.saturation == 0 && state.hue == 0)
    }

    @Test func aColourTemperatureSetThroughTheScopeProtocolReadsAsWhiteOnTheLAN() async throws {
        try await performed(LightChange(color: CIEColor(hue: 0.6, saturation: 1)), on: "den.bulb")
        try await performed(LightChange(colorTemperature: 250), on: "den.bulb")
        let state = try await home.light("den.bulb").state
        #expect(state.showsColorTemperature && state.color == CIEColor(mireds: 250))
        let color = HSBK(state, kind: .color)
        #expect(color.saturation == 0 && color.kelvin == 4_000)
    }
}
