import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import Testing

@testable import LumenLIFX

/// A LIFX Tile's chain of 8×8 matrices: the chain described, pixels read and set a rectangle at a time, one
/// colour over every pixel a change to the light, tiles placed by a client, and a firmware effect kept and
/// reported; a strip's firmware effect likewise.
@Suite("LIFX matrices")
struct LIFXMatrixTests {
    static let home = """
        {"schema": 1, "id": "flat", "name": "Flat", "seed": 4, "rooms": [
          {"id": "den", "name": "Den", "lights": [
            {"id": "den.tile", "name": "Tile", "kind": "color", "manufacturer": "LIFX", "product": "LIFX Tile",
             "latency": {"kind": "fixed", "ms": 10}, "state": {"isOn": true, "brightness": 50}},
            {"id": "den.strip", "name": "Strip", "kind": "color", "manufacturer": "LIFX", "product": "LIFX Z Strip",
             "latency": {"kind": "fixed", "ms": 10}},
            {"id": "den.bulb", "name": "Bulb", "kind": "color", "manufacturer": "LIFX", "product": "LIFX A19"}
          ]}
        ]}
        """

    let home: Home
    let front: LIFXFront

    init() throws {
        home = Home(fixture: try Fixture(json: Array(Self.home.utf8)), clock: .virtual)
        front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
    }

    /// The replies of `light`'s bulb to a message of `type`, moving the clock until they come.
    func replies(
        _ type: UInt16, _ payload: [UInt8] = [], to light: LightID = "den.tile", reply: Bool = true, ack: Bool = false
    ) async throws -> [LIFXPacket] {
        let packet = LIFXPacket(
            source: 3, target: DeviceSerial.of(home: "flat", light: light) + [0, 0], wantsReply: reply,
            wantsAcknowledgement: ack, sequence: 1, type: type, payload: payload)
        return try await front.replies(to: packet, movingClockOf: home)
    }

    static let red = HSBK(hue: 0, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
    static let blue = HSBK(hue: 43_690, saturation: 65_535, brightness: 32_768, kelvin: 3_500)

    /// A `Set64`'s payload: `colors` (padded to 64) into the rectangle at (`x`, `y`) `width` wide of `length`
    /// tiles from `tile`.
    static func set64(
        tile: UInt8, length: UInt8 = 1, x: UInt8 = 0, y: UInt8 = 0, width: UInt8 = 8, durationMs: UInt32 = 0,
        _ colors: [HSBK]
    ) -> [UInt8] {
        var writer = LIFXWriter()
        for byte in [tile, length, 0, x, y, width] { writer.uint8(byte) }
        writer.uint32(durationMs)
        for color in colors.prefix(64) { color.write(&writer) }
        writer.zeros(8 * (64 - min(64, colors.count)))
        return writer.output
    }

    /// Every pixel of tile `tile`, read with `Get64`.
    func pixels(of tile: UInt8) async throws -> [HSBK] {
        let state = try await replies(707, [tile, 1, 0, 0, 0, 8])
        try #require(state.map(\.type) == [711])
        var reader = LIFXReader(state[0].payload)
        #expect(reader.uint8() == tile)
        reader.skip(4)
        return (0..<64).map { _ in HSBK(&reader) }
    }

    var light: HSBK {
        get async throws { HSBK(try await home.light("den.tile").state, kind: .color) }
    }

    @Test func aTileIsAChainOfFiveEightByEightTiles() async throws {
        #expect(try await replies(32).first?.payload.prefix(8) == [1, 0, 0, 0, 55, 0, 0, 0], "a LIFX Tile")
        let chain = try await replies(701)
        try #require(chain.map(\.type) == [702])
        let payload = chain[0].payload
        #expect(payload.count == 882 && payload[0] == 0 && payload[881] == 5, "five tiles from the first")
        var tile = LIFXReader(Array(payload[1 + 55..<1 + 110]))
        tile.skip(8)
        #expect(tile.uint32() == Float(1).bitPattern && tile.uint32() == 0, "the second tile right of the first")
        #expect(tile.uint8() == 8 && tile.uint8() == 8)
        tile.skip(1)
        #expect(tile.uint32() == 1 && tile.uint32() == 55)
        #expect(try await replies(701, to: "den.bulb").map(\.type) == [223], "a bulb without a matrix")
        #expect(try await replies(707, [0, 1, 0, 0, 0, 8], to: "den.strip").map(\.type) == [223])
        #expect(try await pixels(of: 4) == Array(repeating: try await light, count: 64))
    }

    @Test func pixelsOfDifferentColoursAreKeptBesideTheLightUntilItsColourChanges() async throws {
        let before = try await home.light("den.tile").state
        let light = try await light
        let half = Array(repeating: Self.red, count: 32) + Array(repeating: Self.blue, count: 32)
        let set = try await replies(715, Self.set64(tile: 1, half))
        #expect(set.isEmpty, "Set64 has no state reply")
        #expect(try await pixels(of: 1) == half)
        #expect(try await pixels(of: 0) == Array(repeating: light, count: 64))
        #expect(try await home.light("den.tile").state == before, "the light keeps its one colour")
        let all = try await replies(707, [0, 5, 0, 0, 0, 8])
        #expect(all.map(\.type) == [711, 711, 711, 711, 711] && all.map { $0.payload[0] } == [0, 1, 2, 3, 4])
        var color = LIFXWriter()
        color.uint8(0)
        Self.blue.write(&color)
        color.uint32(0)
        _ = try await replies(102, color.output)
        // As given: a bulb keeps its colour as HSBK.
        #expect(try await pixels(of: 1) == Array(repeating: Self.blue, count: 64))
    }

    /// `Set64` with a duration fades each pixel from its colour to the new one on the simulation clock, as a
    /// strip fades its zones: read halfway, a pixel shows its colour part of the way.
    @Test func pixelsFadeOverTheDurationOnTheSimulationClock() async throws {
        let light = try await light
        let half = Array(repeating: Self.red, count: 32) + Array(repeating: Self.blue, count: 32)
        _ = try await replies(715, Self.set64(tile: 1, durationMs: 1_000, half))
        let started = try await pixels(of: 1)
        // Answered after the bulb's latency of 10 ms: barely begun.
        #expect(started[0] != Self.red && started[40] != Self.blue)
        try await home.advance(byMilliseconds: 490)
        let halfway = try await pixels(of: 1)
        #expect(halfway[0] == light.interpolated(to: Self.red, by: 0.5), "\(halfway[0])")
        #expect(halfway[40] == light.interpolated(to: Self.blue, by: 0.5), "\(halfway[40])")
        #expect(try await pixels(of: 0) == Array(repeating: light, count: 64), "the tiles not set stay")
        try await home.advance(byMilliseconds: 600)
        #expect(try await pixels(of: 1) == half)
        // A second fade starts from where the first left each pixel.
        _ = try await replies(715, Self.set64(tile: 1, durationMs: 1_000, Array(half.reversed())))
        try await home.advance(byMilliseconds: 490)
        #expect(try await pixels(of: 1)[0] == Self.red.interpolated(to: Self.blue, by: 0.5))
    }

    /// A power fade moves the bulb's power, not its pixels: read part of the way, they show the colour the light
    /// lands on, and a client painting them back as it read them (one colour, the light's) leaves the fade to run.
    @Test func pixelsKeepTheLightsColourThroughAPowerFade() async throws {
        let before = try await pixels(of: 0)
        var off = LIFXWriter()
        off.uint16(0)
        off.uint32(1_000)
        _ = try await replies(117, off.output)
        try await home.advance(byMilliseconds: 500)
        #expect(try await home.light("den.tile").state.isOn, "still fading off")
        let fading = try await pixels(of: 0)
        #expect(fading == before)
        _ = try await replies(715, Self.set64(tile: 0, length: 5, fading))
        #expect(try await pixels(of: 3) == before)
        try await home.advance(byMilliseconds: 1_000)
        #expect(try await !home.light("den.tile").state.isOn, "the fade landed")
        #expect(try await pixels(of: 0) == before)
        #expect(await home.commandRecords(light: "den.tile").count == 1, "the pixels sent back changed nothing")
    }

    @Test func oneColourOverEveryPixelIsAChangeToTheLightOverItsDuration() async throws {
        let red = Array(repeating: Self.red, count: 64)
        _ = try await replies(715, Self.set64(tile: 0, length: 5, durationMs: 1_000, red))
        try await home.advance(byMilliseconds: 2_000)
        let state = try await home.light("den.tile").state
        #expect(state.brightness == 100 && state.color.x > 0.6, "red at full brightness")
        #expect(await home.commandRecords(light: "den.tile").count == 1)
    }

    @Test func everyTilePaintedAtOnceMakesTheLightOneColour() async throws {
        let serial = DeviceSerial.of(home: "flat", light: "den.tile")
        let packets = (UInt8(0)..<5).map { tile in
            LIFXPacket(
                source: 3, target: serial + [0, 0], wantsAcknowledgement: true, sequence: tile, type: 715,
                payload: Self.set64(tile: tile, Array(repeating: Self.red, count: 64)))
        }
        let done = Locked(false)
        Task { [front] in
            await withTaskGroup(of: Void.self) { group in
                for packet in packets { group.addTask { _ = await front.answer(packet) } }
            }
            done.withLock { $0 = true }
        }
        for _ in 0..<10_000 where !done.withLock({ $0 }) {
            _ = try await home.advanceToNextEvent()
            await Task.yield()
        }
        try await home.advance(byMilliseconds: 100)
        let state = try await home.light("den.tile").state
        #expect(state.brightness == 100 && state.color.x > 0.6, "each tile built on the others: the light is red")
    }

    @Test func aRectangleIsPlacedWithinItsTileAndWhatFallsOutsideIsLeftOut() async throws {
        let light = try await light
        _ = try await replies(
            715, Self.set64(tile: 2, x: 6, y: 6, width: 2, [Self.red, Self.blue, Self.blue, Self.red]))
        var expected = Array(repeating: light, count: 64)
        expected[6 * 8 + 6] = Self.red
        expected[6 * 8 + 7] = Self.blue
        expected[7 * 8 + 6] = Self.blue
        expected[7 * 8 + 7] = Self.red
        #expect(try await pixels(of: 2) == expected, "colours past the rectangle's two rows fall off the tile")
        // Read back as a rectangle: the two by two, then what lies outside the tile as zeros.
        let corner = try await replies(707, [2, 1, 0, 6, 6, 2])
        var reader = LIFXReader(corner[0].payload)
        reader.skip(5)
        #expect(
            (0..<5).map { _ in HSBK(&reader) } == [
                Self.red, Self.blue, Self.blue, Self.red, HSBK(hue: 0, saturation: 0, brightness: 0, kelvin: 0),
            ])
        // No width, a tile past the chain, a short payload, a frame buffer not shown: nothing shown, and the bulb
        // still answers.
        var otherBuffer = Self.set64(tile: 0, [Self.red])
        otherBuffer[2] = 1
        let ignored = [
            Self.set64(tile: 0, width: 0, [Self.red]), Self.set64(tile: 9, [Self.red]), [0, 1], otherBuffer,
        ]
        for payload in ignored {
            #expect(try await replies(715, payload, ack: true).map(\.type) == [45])
        }
        #expect(try await pixels(of: 0) == Array(repeating: light, count: 64))
        #expect(try await replies(707, [0, 1, 0, 0, 0, 0]).map(\.type) == [711], "a width of 0 reads as 8")
    }

    /// A `CopyFrameBuffer`'s payload.
    static func copyFrame(
        tile: UInt8, length: UInt8 = 1, from source: UInt8, to destination: UInt8, at corner: (UInt8, UInt8) = (0, 0),
        onto target: (UInt8, UInt8) = (0, 0), width: UInt8 = 8, height: UInt8 = 8
    ) -> [UInt8] {
        [tile, length, source, destination, corner.0, corner.1, target.0, target.1, width, height, 0, 0, 0, 0, 0]
    }

    @Test func aRebootOrAPowerCutEmptiesTheFrameBuffersOutOfSight() async throws {
        for cut in ["reboot", "power cut"] {
            var hidden = Self.set64(tile: 1, Array(repeating: Self.red, count: 64))
            hidden[2] = 1
            #expect(try await replies(715, hidden, ack: true).map(\.type) == [45])
            if cut == "reboot" {
                #expect(try await replies(38, ack: true).map(\.type) == [45])
            } else {
                try await home.powerCycle(light: "den.tile")
            }
            try await home.advance(byMilliseconds: 5_000)
            let shown = try await pixels(of: 1)
            #expect(shown != Array(repeating: Self.red, count: 64))
            _ = try await replies(716, Self.copyFrame(tile: 1, from: 1, to: 0), ack: true)
            #expect(try await pixels(of: 1) == shown, "after a \(cut), frame buffer 1 holds nothing drawn before")
        }
    }

    @Test func aFrameDrawnOutOfSightShowsWhenCopiedToTheFrameBufferShown() async throws {
        let light = try await light
        // As Home Assistant and lifx-async paint a tile: into frame buffer 1, then copied to 0.
        var hidden = Self.set64(tile: 1, [Self.red, Self.blue] + Array(repeating: Self.red, count: 62))
        hidden[2] = 1
        #expect(try await replies(715, hidden, ack: true).map(\.type) == [45])
        #expect(try await pixels(of: 1) == Array(repeating: light, count: 64), "out of sight")
        #expect(try await replies(716, Self.copyFrame(tile: 1, from: 1, to: 0), ack: true).map(\.type) == [45])
        #expect(try await pixels(of: 1) == [Self.red, Self.blue] + Array(repeating: Self.red, count: 62))
        #expect(try await pixels(of: 0) == Array(repeating: light, count: 64), "the other tiles as they were")
        // A rectangle copied within the shown frame, and off the tile's edge: what falls off is left out.
        _ = try await replies(
            716, Self.copyFrame(tile: 1, from: 0, to: 0, at: (1, 0), onto: (7, 7), width: 2, height: 1))
        let copied = try await pixels(of: 1)
        #expect(copied[63] == Self.blue && copied[0] == Self.red && copied[1] == Self.blue)
        // A frame buffer the chain lacks: nothing copied, and the bulb still answers.
        #expect(try await replies(716, Self.copyFrame(tile: 1, from: 9, to: 0), ack: true).map(\.type) == [45])
        #expect(try await pixels(of: 1) == copied)
        #expect(try await replies(716, Self.copyFrame(tile: 0, from: 1, to: 0), to: "den.bulb").map(\.type) == [223])
    }

    @Test func aClientPlacesTheTilesAndTheChainSaysWhere() async throws {
        var writer = LIFXWriter()
        writer.uint8(3)
        writer.zeros(2)
        writer.uint32(Float(1.5).bitPattern)
        writer.uint32(Float(-0.5).bitPattern)
        #expect(try await replies(703, writer.output, ack: true).map(\.type) == [45], "acknowledged, no state")
        var chain = LIFXReader(try await replies(701)[0].payload)
        chain.skip(1 + 3 * 55 + 8)
        #expect(chain.uint32() == Float(1.5).bitPattern && chain.uint32() == Float(-0.5).bitPattern)
        var nowhere = LIFXWriter()
        nowhere.uint8(0)
        nowhere.zeros(2)
        nowhere.uint32(Float.nan.bitPattern)
        nowhere.uint32(0)
        _ = try await replies(703, nowhere.output)
        var first = LIFXReader(try await replies(701)[0].payload)
        first.skip(1 + 8)
        #expect(first.uint32() == 0, "a position that is not a number is left out")
    }

    /// A `SetTileEffect`'s payload: a morph (or the effect `type`, with its `parameters`) over `palette`, for
    /// `durationNs` (0 for ever).
    static func tileEffect(
        _ palette: [HSBK], count: UInt8? = nil, durationNs: UInt64 = 0, type: UInt8 = 2, parameters: [UInt8] = []
    ) -> [UInt8] {
        var writer = LIFXWriter()
        writer.zeros(2)
        writer.uint32(77)
        writer.uint8(type)
        writer.uint32(3_000)
        writer.uint64(durationNs)
        writer.zeros(8)
        writer.bytes(parameters, count: 32)
        writer.uint8(count ?? UInt8(palette.count))
        for color in palette { color.write(&writer) }
        writer.zeros(8 * (16 - palette.count))
        return writer.output
    }

    @Test func aTileEffectIsKeptAndReported() async throws {
        let none = try await replies(718, [0, 0])
        #expect(none.map(\.type) == [720] && none[0].payload == [UInt8](repeating: 0, count: 187), "none runs")
        let set = try await replies(719, Self.tileEffect([Self.red, Self.blue]))
        try #require(set.map(\.type) == [720])
        var reader = LIFXReader(set[0].payload)
        reader.skip(1)
        #expect(reader.uint32() == 77 && reader.uint8() == 2 && reader.uint32() == 3_000)
        reader.skip(8 + 8 + 32)
        #expect(reader.uint8() == 2 && HSBK(&reader) == Self.red && HSBK(&reader) == Self.blue)
        #expect(try await replies(718)[0].payload == set[0].payload, "kept")
        let tooMany = try await replies(719, Self.tileEffect([Self.red], count: 200))
        let paletteCount: Int = 1 + 4 + 1 + 4 + 16 + 32
        #expect(tooMany[0].payload[paletteCount] == 16, "a palette holds at most 16 colours")
        #expect(try await replies(718, to: "den.strip").map(\.type) == [223])
    }

    /// A strip's effect payload (`SetMultiZoneEffect`): MOVE (or the effect `type`) at `speedMs`, for
    /// `durationNs` (0 for ever).
    static func moveEffect(instance: UInt32 = 5, durationNs: UInt64, type: UInt8 = 1) -> [UInt8] {
        var writer = LIFXWriter()
        writer.uint32(instance)
        writer.uint8(type)
        writer.zeros(2)
        writer.uint32(1_000)
        writer.uint64(durationNs)
        writer.zeros(8)
        writer.zeros(32)
        return writer.output
    }

    /// An effect given a duration runs for it on the simulation clock and then stops, as firmware's does: the
    /// device then reports none; one with no duration runs on.
    @Test func aTimedEffectStopsWhenItsDurationEnds() async throws {
        let timed = Self.moveEffect(durationNs: 2_000_000_000)
        _ = try await replies(508, timed, to: "den.strip")
        try await home.advance(byMilliseconds: 1_500)
        #expect(try await replies(507, to: "den.strip")[0].payload == timed, "still running")
        try await home.advance(byMilliseconds: 600)
        let stopped = try await replies(507, to: "den.strip")[0].payload
        #expect(stopped == [UInt8](repeating: 0, count: 59), "none runs")
        _ = try await replies(719, Self.tileEffect([Self.red, Self.blue], durationNs: 1_000_000_000))
        try await home.advance(byMilliseconds: 900)
        #expect(try await replies(718)[0].payload[5] == 2, "morph still running")
        try await home.advance(byMilliseconds: 200)
        #expect(try await replies(718)[0].payload == [UInt8](repeating: 0, count: 187), "none runs")
        let endless = Self.moveEffect(durationNs: 0)
        _ = try await replies(508, endless, to: "den.strip")
        try await home.advance(byMilliseconds: 600_000)
        #expect(try await replies(507, to: "den.strip")[0].payload == endless, "runs on")
    }

    /// An effect of a type the device does not have (the protocol's reserved numbers: on a strip 2 and up, on a
    /// matrix 1, 4 and past 5) stops the one running and is reported as none: Home Assistant fails on every poll
    /// of a device reporting one, until another effect is set.
    @Test func anEffectOfATypeTheDeviceLacksIsNone() async throws {
        _ = try await replies(508, Self.moveEffect(durationNs: 0), to: "den.strip")
        for type: UInt8 in [2, 3, 200] {
            _ = try await replies(508, Self.moveEffect(durationNs: 0, type: type), to: "den.strip")
            #expect(try await replies(507, to: "den.strip")[0].payload == [UInt8](repeating: 0, count: 59), "\(type)")
        }
        for type: UInt8 in [1, 4, 6] {
            _ = try await replies(719, Self.tileEffect([Self.red], type: 2))
            _ = try await replies(719, Self.tileEffect([Self.red], type: type))
            #expect(try await replies(718)[0].payload == [UInt8](repeating: 0, count: 187), "\(type)")
        }
        _ = try await replies(719, Self.tileEffect([Self.red], type: 5))
        #expect(try await replies(718)[0].payload[5] == 5, "sky runs")
    }

    @Test func aStripsEffectIsKeptAndReported() async throws {
        var writer = LIFXWriter()
        writer.uint32(5)
        writer.uint8(1)  // MOVE
        writer.zeros(2)
        writer.uint32(1_000)
        writer.uint64(0)
        writer.zeros(8)
        writer.zeros(4)
        writer.uint32(1)  // towards the far end
        writer.zeros(24)
        let set = try await replies(508, writer.output, to: "den.strip")
        #expect(set.map(\.type) == [509] && set[0].payload == writer.output)
        #expect(try await replies(507, to: "den.strip")[0].payload == writer.output, "kept")
        #expect(try await replies(508, writer.output, to: "den.tile").map(\.type) == [223])
        #expect(try await replies(508, [1, 2, 3], to: "den.strip", ack: true).map(\.type) == [45, 509])
    }

    /// A frame drawn out of sight into frame buffer 1 and copied to the one shown, read in one go (an animation
    /// sends them without waiting for either answer), shows the frame drawn.
    @Test func aFrameDrawnOutOfSightAndCopiedInOneGoShows() async throws {
        var hidden = Self.set64(tile: 1, [Self.red, Self.blue] + Array(repeating: Self.red, count: 62))
        hidden[2] = 1
        let target = DeviceSerial.of(home: "flat", light: "den.tile") + [0, 0]
        let packets = [
            LIFXPacket(source: 3, target: target, sequence: 1, type: 715, payload: hidden),
            LIFXPacket(
                source: 3, target: target, sequence: 2, type: 716, payload: Self.copyFrame(tile: 1, from: 1, to: 0)),
        ]
        _ = try await front.repliesReadInOneGo(packets, movingClockOf: home)
        #expect(try await pixels(of: 1) == [Self.red, Self.blue] + Array(repeating: Self.red, count: 62))
    }
}
