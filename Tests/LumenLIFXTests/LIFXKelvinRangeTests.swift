import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import Testing

@testable import LumenLIFX

/// Each product keeps to its kelvin range, as LIFX's products list gives it at the firmware the bulbs run: a
/// kelvin outside it is taken as the nearer end, and a light whose state lies outside it reports that end, so that
/// a colour a client reads back lies in the range the client checks it against.
@Suite("LIFX kelvin ranges")
struct LIFXKelvinRangeTests {
    static let home = """
        {"schema": 1, "id": "flat", "name": "Flat", "seed": 4, "rooms": [
          {"id": "den", "name": "Den", "lights": [
            {"id": "den.tile", "name": "Tile", "kind": "color", "manufacturer": "LIFX", "product": "LIFX Tile",
             "latency": {"kind": "fixed", "ms": 10}, "state": {"isOn": true, "colorTemperature": 400}},
            {"id": "den.bulb", "name": "Bulb", "kind": "color", "manufacturer": "LIFX", "product": "LIFX A19",
             "state": {"isOn": true, "colorTemperature": 667}}
          ]}
        ]}
        """

    let home: Home
    let front: LIFXFront

    init() throws {
        var fixture = try Fixture(json: Array(Self.home.utf8))
        // Warmer than the Tile takes, as a state saved by an older lumend may hold it (a fixture's is refused).
        fixture.rooms[0].lights[0].state.colorTemperature = 667
        fixture.rooms[0].lights[0].state.color = CIEColor(mireds: 667)
        home = Home(fixture: fixture, clock: .virtual)
        front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
    }

    /// The replies of `light`'s bulb to a message of `type`, moving the clock until they come.
    func replies(_ type: UInt16, _ payload: [UInt8] = [], to light: LightID = "den.tile") async throws -> [LIFXPacket] {
        let packet = LIFXPacket(
            source: 3, target: DeviceSerial.of(home: "flat", light: light) + [0, 0], wantsAcknowledgement: true,
            sequence: 1, type: type, payload: payload)
        return try await front.replies(to: packet, movingClockOf: home)
    }

    /// The colour `light`'s bulb reports (`Light.Get`).
    func color(of light: LightID = "den.tile") async throws -> HSBK {
        let state = try await replies(101, to: light)
        var reader = LIFXReader(try #require(state.first { $0.type == 107 }).payload)
        return HSBK(&reader)
    }

    static func setColor(_ color: HSBK) -> [UInt8] {
        var writer = LIFXWriter()
        writer.uint8(0)
        color.write(&writer)
        writer.uint32(0)
        return writer.output
    }

    @Test func theProductsLumenChoosesHaveTheirKelvinRangesFromLIFXsProductListAtFirmware390() {
        func range(_ kind: LightKind, _ product: String) -> ClosedRange<Int> {
            DeviceModel(kind: kind, manufacturer: "LIFX", product: product).lifxKelvinRange
        }
        #expect(range(.color, "LIFX Tile") == 2_500...9_000, "the Tile's range never widened")
        #expect(range(.color, "LIFX A19") == 1_500...9_000, "the A19's widened at firmware 2.80")
        #expect(range(.color, "LIFX Z Strip") == 1_500...9_000)
        #expect(range(.ambiance, "LIFX Mini White to Warm") == 1_500...9_000, "widened at firmware 3.70")
        #expect(range(.dimmable, "LIFX Mini White") == 2_700...2_700)
        #expect(
            DeviceFamily.lifx.colorTemperatureRange(
                of: DeviceModel(kind: .color, manufacturer: "LIFX", product: "LIFX Tile")) == 111...400)
    }

    @Test func aTileReportsAColourTemperatureWarmerThanItTakesAsItsWarmestWhite() async throws {
        let tile = try await color()
        #expect(tile.kelvin == 2_500 && tile.saturation == 0, "\(tile)")
        #expect(try await color(of: "den.bulb").kelvin == 1_500, "an A19 takes 1,500 K")
    }

    @Test func aTileTakesAKelvinOutsideItsRangeAsTheNearerEnd() async throws {
        let warm = HSBK(hue: 0, saturation: 0, brightness: 65_535, kelvin: 1_500)
        #expect(try await replies(102, Self.setColor(warm)).map(\.type) == [45])
        #expect(try await color() == HSBK(hue: 0, saturation: 0, brightness: 65_535, kelvin: 2_500))
        #expect(try await home.light("den.tile").state.colorTemperature == 400)

        // Pixels too: a Set64 below the range reads back at its warmest end.
        let pixels = LIFXMatrixTests.set64(tile: 0, Array(repeating: warm, count: 64))
        _ = try await replies(715, pixels)
        let read = try await replies(707, [0, 1, 0, 0, 0, 8])
        var reader = LIFXReader(try #require(read.first { $0.type == 711 }).payload)
        reader.skip(5)
        #expect((0..<64).map { _ in HSBK(&reader).kelvin } == Array(repeating: 2_500, count: 64))
    }

    /// Every message that carries colours has each one's kelvin taken within the product's range, and a
    /// message without colours is left as it is.
    @Test func everyMessageCarryingColoursHasEachKelvinTakenWithinTheRange() {
        let tile = DeviceModel(kind: .color, manufacturer: "LIFX", product: "LIFX Tile")
        let warm = HSBK(hue: 0, saturation: 0, brightness: 65_535, kelvin: 1_500)
        let cold = HSBK(hue: 0, saturation: 0, brightness: 65_535, kelvin: 9_500)
        let wave = LIFXWave(transient: true, color: warm, periodMs: 1_000, cycles: 1)
        let requests: [LIFXRequest] = [
            .setColor(warm, durationMs: 0), .setWaveform(wave), .setWaveformOptional(wave, fields: .kelvin),
            .setColorZones(start: 0, end: 3, cold, durationMs: 0, apply: 1),
            .setExtendedColorZones(durationMs: 0, apply: 1, index: 0, colors: [warm, cold]),
            .set64(LIFXTileRect(tile: 0, length: 1, x: 0, y: 0, width: 8), durationMs: 0, colors: [warm, cold]),
        ]
        for request in requests {
            let kelvins = Self.colors(in: request.keepingKelvin(to: tile)).map(\.kelvin)
            #expect(!kelvins.isEmpty && kelvins.allSatisfy { (2_500...9_000).contains($0) }, "\(request)")
        }
        #expect(LIFXRequest.getColor.keepingKelvin(to: tile) == .getColor)
    }

    /// The colours a message carries.
    static func colors(in request: LIFXRequest) -> [HSBK] {
        switch request {
        case .setColor(let color, _), .setColorZones(_, _, let color, _, _): [color]
        case .setWaveform(let wave), .setWaveformOptional(let wave, _): [wave.color]
        case .setExtendedColorZones(_, _, _, let colors), .set64(_, _, let colors): colors
        default: []
        }
    }
}
