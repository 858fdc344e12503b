import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import LumenTestSupport
import Testing

@testable import LumenLIFX

/// A strip's zones (LIFX Z): read one, eight or all at a time, given colours one range at a time or all at once,
/// at once or kept for later; one colour along the strip is a change to the light.
@Suite("LIFX strips' zones")
struct LIFXZoneTests {
    static let home = """
        {"schema": 1, "id": "flat", "name": "Flat", "seed": 4, "rooms": [
          {"id": "den", "name": "Den", "lights": [
            {"id": "den.strip", "name": "Strip", "kind": "color", "manufacturer": "LIFX", "product": "LIFX Z Strip",
             "latency": {"kind": "fixed", "ms": 10}, "state": {"isOn": true, "brightness": 50}},
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

    /// The replies of `light`'s bulb to a message of `type` (with `res_required`), moving the clock until they
    /// come.
    func replies(_ type: UInt16, _ payload: [UInt8] = [], to light: LightID = "den.strip") async throws
        -> [LIFXPacket]
    {
        let packet = LIFXPacket(
            source: 3, target: DeviceSerial.of(home: "flat", light: light) + [0, 0], wantsReply: true, sequence: 1,
            type: type, payload: payload)
        return try await front.replies(to: packet, movingClockOf: home)
    }

    static let red = HSBK(hue: 0, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
    static let blue = HSBK(hue: 43_690, saturation: 65_535, brightness: 32_768, kelvin: 3_500)

    static func setZones(_ start: UInt8, _ end: UInt8, _ color: HSBK, apply: UInt8 = 1, durationMs: UInt32 = 0)
        -> [UInt8]
    {
        var writer = LIFXWriter()
        writer.uint8(start)
        writer.uint8(end)
        color.write(&writer)
        writer.uint32(durationMs)
        writer.uint8(apply)
        return writer.output
    }

    /// Every zone's colour, read with `GetExtendedColorZones`.
    func zones() async throws -> [HSBK] {
        let state = try await replies(511)
        try #require(state.map(\.type) == [512])
        var reader = LIFXReader(state[0].payload)
        #expect(reader.uint16() == 16 && reader.uint16() == 0)
        let count = Int(reader.uint8())
        return (0..<count).map { _ in HSBK(&reader) }
    }

    @Test func aStripHasSixteenZonesReadOneOrEightAtATime() async throws {
        #expect(try await replies(32).first?.payload.prefix(8) == [1, 0, 0, 0, 32, 0, 0, 0], "a LIFX Z")
        let light = HSBK(try await home.light("den.strip").state, kind: .color)
        let all = try await replies(502, [0, 255])
        #expect(all.map(\.type) == [506, 506] && all.map { $0.payload[0] } == [16, 16])
        #expect(all.map { $0.payload[1] } == [0, 8])
        let one = try await replies(502, [3, 3])
        var zone = LIFXWriter()
        light.write(&zone)
        #expect(one.map(\.type) == [503] && one.first?.payload == [16, 3] + zone.output)
        #expect(try await zones() == Array(repeating: light, count: 16))
        let plain = try await replies(502, [0, 255], to: "den.bulb")
        #expect(plain.map(\.type) == [223], "a bulb without zones: StateUnhandled")
        let effect = try await replies(507)
        #expect(effect.map(\.type) == [509] && effect.first?.payload == [UInt8](repeating: 0, count: 59), "none runs")
    }

    @Test func zonesOfDifferentColoursAreKeptBesideTheLightUntilItsColourChanges() async throws {
        let before = try await home.light("den.strip").state
        let light = HSBK(before, kind: .color)
        let set = try await replies(501, Self.setZones(0, 7, Self.red))
        #expect(set.map(\.type) == [506], "answered with the zones set")
        #expect(try await zones() == Array(repeating: Self.red, count: 8) + Array(repeating: light, count: 8))
        #expect(try await home.light("den.strip").state == before, "the light keeps its one colour")
        // A colour for the whole light: every zone follows it again.
        var color = LIFXWriter()
        color.uint8(0)
        Self.blue.write(&color)
        color.uint32(0)
        _ = try await replies(102, color.output)
        // As given: a bulb keeps its colour as HSBK.
        #expect(try await zones() == Array(repeating: Self.blue, count: 16))
    }

    @Test func oneColourAlongTheWholeStripIsAChangeToTheLightOverItsDuration() async throws {
        _ = try await replies(501, Self.setZones(0, 255, Self.red, durationMs: 1_000))
        try await home.advance(byMilliseconds: 2_000)
        let state = try await home.light("den.strip").state
        #expect(state.brightness == 100 && state.color.x > 0.6, "red at full brightness")
        #expect(await home.commandRecords(light: "den.strip").count == 1)
    }

    @Test func zonesOfDifferentColoursFadeOverTheDurationOnTheSimulationClock() async throws {
        let light = HSBK(try await home.light("den.strip").state, kind: .color)
        let zoneMessage = try await replies(501, Self.setZones(0, 7, Self.red, durationMs: 1_000))
        #expect(zoneMessage.map(\.type) == [506])
        let started = try await zones()
        // Answered after the bulb's latency of 10 ms (and the steps that moved the clock to it): barely begun.
        #expect(started[0] != Self.red && started[8] == light)
        try await home.advance(byMilliseconds: 490)
        let halfway = try await zones()
        #expect(halfway[0] != started[0] && halfway[0] != Self.red, "on its way")
        #expect(halfway[0].saturation > light.saturation && halfway[0].saturation < Self.red.saturation)
        #expect(Array(halfway[8...]) == Array(repeating: light, count: 8), "the zones not set stay")
        try await home.advance(byMilliseconds: 600)
        #expect(try await zones() == Array(repeating: Self.red, count: 8) + Array(repeating: light, count: 8))
    }

    @Test func aHueFadesTheShortWayRound() {
        let from = HSBK(hue: 65_000, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
        let to = HSBK(hue: 1_000, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
        let halfway = from.interpolated(to: to, by: 0.5)
        #expect(halfway.hue < 1_000 || halfway.hue > 65_000, "through red, not round the wheel")
        #expect(from.interpolated(to: to, by: 0) == from && from.interpolated(to: to, by: 1) == to)
    }

    @Test func zonesKeptForLaterShowOnlyWhenApplied() async throws {
        let light = HSBK(try await home.light("den.strip").state, kind: .color)
        _ = try await replies(501, Self.setZones(0, 3, Self.red, apply: 0))
        _ = try await replies(501, Self.setZones(12, 15, Self.blue, apply: 0))
        #expect(try await zones() == Array(repeating: light, count: 16), "kept, not shown")
        _ = try await replies(501, Self.setZones(4, 11, Self.red, apply: 2))
        let expected =
            Array(repeating: Self.red, count: 4) + Array(repeating: light, count: 8)
            + Array(repeating: Self.blue, count: 4)
        #expect(try await zones() == expected, "only those kept, the message's own colour left out")
    }

    @Test func zonesKeptForLaterBySeveralMessagesAtOnceAreAllKept() async throws {
        // lifxlan's set_zone_colors with rapid sends a message a zone, back to back, without waiting.
        let serial = DeviceSerial.of(home: "flat", light: "den.strip")
        let packets = (UInt8(0)..<15).map { zone in
            LIFXPacket(
                source: 3, target: serial + [0, 0], sequence: zone, type: 501,
                payload: Self.setZones(zone, zone, Self.red, apply: 0))
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
        let light = HSBK(try await home.light("den.strip").state, kind: .color)
        _ = try await replies(501, Self.setZones(15, 15, Self.blue, apply: 2))
        #expect(try await zones() == Array(repeating: Self.red, count: 15) + [light], "each built on the others")
    }

    /// A `SetExtendedColorZones` (no transition, applied at once) of red, blue, red, blue from zone 2 on.
    static var fourZonesFromTwo: [UInt8] {
        var writer = LIFXWriter()
        writer.uint32(0)
        writer.uint8(1)
        writer.uint16(2)
        writer.uint8(4)
        for color in [red, blue, red, blue] { color.write(&writer) }
        writer.zeros(8 * 78)
        return writer.output
    }

    /// Every zone given one brightness and colours of their own (what Home Assistant sends a painted strip for a
    /// brightness alone): the strip reports that brightness in `Light.State`, as it does however it sums its zones
    /// up, and the light takes it; the zones keep their colours.
    @Test func zonesOfDifferentColoursAtOneBrightnessGiveTheLightThatBrightness() async throws {
        let light = HSBK(try await home.light("den.strip").state, kind: .color)
        _ = try await replies(501, Self.setZones(0, 7, Self.red))
        var dimmer = Self.red
        dimmer.brightness = 20_000
        var dimmerLight = light
        dimmerLight.brightness = 20_000
        let colors = Array(repeating: dimmer, count: 8) + Array(repeating: dimmerLight, count: 8)
        var writer = LIFXWriter()
        writer.uint32(0)
        writer.uint8(1)
        writer.uint16(0)
        writer.uint8(16)
        for color in colors { color.write(&writer) }
        _ = try await replies(510, writer.output)
        #expect(try await zones() == colors, "each zone keeps its colour, at the brightness given")
        let state = try await replies(101)
        var reader = LIFXReader(try #require(state.first).payload)
        #expect(HSBK(&reader) == dimmerLight, "the strip reports the zones' one brightness")
        #expect(abs(try await home.light("den.strip").state.brightness - 30.5) < 0.1)

        // Zones of different brightnesses leave the light as it is.
        _ = try await replies(501, Self.setZones(0, 3, Self.red))
        #expect(abs(try await home.light("den.strip").state.brightness - 30.5) < 0.1)
        #expect(try await zones() == [Self.red, Self.red, Self.red, Self.red] + Array(colors[4...]))
    }

    /// Zones at one brightness over a duration: the light's level fades there, and the zones fade to their own
    /// colours, kept all the way.
    @Test func zonesAtOneBrightnessKeepTheirColoursWhileTheLightsLevelFades() async throws {
        // A colour given as Home Assistant gives it: 3,500 K, which the light holds as 286 mireds (3,497 K).
        var color = LIFXWriter()
        color.uint8(0)
        Self.red.write(&color)
        color.uint32(0)
        _ = try await replies(102, color.output)
        var writer = LIFXWriter()
        writer.uint32(1_000)
        writer.uint8(1)
        writer.uint16(0)
        writer.uint8(16)
        let colors = (0..<16).map {
            HSBK(hue: UInt16($0 * 4_000), saturation: 65_535, brightness: 20_000, kelvin: 3_500)
        }
        for color in colors { color.write(&writer) }
        _ = try await replies(510, writer.output)
        try await home.advance(byMilliseconds: 500)
        // Part of the way from the light's colour to each zone's own: not every zone the light's colour.
        #expect(Set(try await zones().map(\.hue)).count == 16, "their own colours on the way")
        try await home.advance(byMilliseconds: 600)
        #expect(try await zones() == colors)
        #expect(abs(try await home.light("den.strip").state.brightness - 30.5) < 0.1)
    }

    /// Home Assistant paints a theme on a strip that is off by fading it on and sending the zones at once: zones at
    /// one brightness leave the fade going, as a colour does.
    @Test func zonesAtOneBrightnessLeaveAPowerFadeGoing() async throws {
        // Each message moves the clock only until the bulb takes it, and a query not at all: moved an event at a
        // time until the answer came, the clock may go on through the fade's steps before a query reaches the bulb
        // or while an answer is on its way back.
        @discardableResult func send(_ type: UInt16, _ payload: [UInt8] = []) async throws -> [LIFXPacket] {
            let packet = LIFXPacket(
                source: 3, target: DeviceSerial.of(home: "flat", light: "den.strip") + [0, 0], wantsReply: true,
                sequence: 1, type: type, payload: payload)
            return try await home.driving { await self.front.answer(packet) }.map { try LIFXPacket(bytes: $0) }
        }
        var off = LIFXWriter()
        off.uint16(0)
        off.uint32(0)
        try await send(117, off.output)
        var on = LIFXWriter()
        on.uint16(65_535)
        on.uint32(1_000)
        try await send(117, on.output)
        let startMs = await home.reading { $0.nowMilliseconds }
        var writer = LIFXWriter()
        writer.uint32(0)
        writer.uint8(1)
        writer.uint16(0)
        writer.uint8(16)
        for index in 0..<16 {
            HSBK(hue: UInt16(index * 4_000), saturation: 65_535, brightness: 20_000, kelvin: 3_500).write(&writer)
        }
        try await send(510, writer.output)
        let nowMs = await home.reading { $0.nowMilliseconds }
        try await home.advance(byMilliseconds: startMs + 500 - nowMs)
        var reader = LIFXReader(try #require(try await send(101).first).payload)
        #expect(HSBK(&reader).brightness == 20_000)
        reader.skip(2)
        let level = reader.uint16()
        #expect((30_000...36_000).contains(level), "still half way up: \(level)")
        try await home.advance(byMilliseconds: 600)
        reader = LIFXReader(try #require(try await send(101).first).payload)
        reader.skip(10)
        #expect(reader.uint16() == 65_535)
    }

    @Test func extendedZonesAreSetFromAnIndexOn() async throws {
        let light = HSBK(try await home.light("den.strip").state, kind: .color)
        let set = try await replies(510, Self.fourZonesFromTwo)
        #expect(set.map(\.type) == [512] && set[0].payload.count == 661)
        let expected =
            [light, light, Self.red, Self.blue, Self.red, Self.blue] + Array(repeating: light, count: 10)
        #expect(try await zones() == expected)
    }

    /// What Home Assistant sends a strip for a colour: every zone the same colour, through the extended message;
    /// the light takes it, and reads back with it.
    @Test func oneColourForEveryZoneThroughTheExtendedMessageIsAChangeToTheLight() async throws {
        // 3,497 K: kelvin is kept to the nearest mired, and this one is a whole one (286).
        let color = HSBK(hue: 21_845, saturation: 65_535, brightness: 40_000, kelvin: 3_497)
        var writer = LIFXWriter()
        writer.uint32(0)
        writer.uint8(1)
        writer.uint16(0)
        writer.uint8(16)
        for _ in 0..<16 { color.write(&writer) }
        writer.zeros(8 * 66)
        _ = try await replies(510, writer.output)
        let light = HSBK(try await home.light("den.strip").state, kind: .color)
        #expect(light == color, "\(light)")
        #expect(try await zones() == Array(repeating: color, count: 16))
        let state = try await replies(101)
        var reader = LIFXReader(state[0].payload)
        #expect(HSBK(&reader) == color)
    }

    /// Every zone's colour and the light's (`Get`), read at once without moving the clock, as a client polling
    /// the strip while another's message is on its way reads them.
    func zonesAndLight() async throws -> (zones: [HSBK], light: HSBK) {
        let target = DeviceSerial.of(home: "flat", light: "den.strip") + [0, 0]
        func ask(_ type: UInt16) async throws -> LIFXPacket {
            let replies = await front.answer(LIFXPacket(source: 3, target: target, sequence: 7, type: type))
            return try LIFXPacket(bytes: try #require(replies.first))
        }
        var zones = LIFXReader(try await ask(511).payload)
        _ = (zones.uint16(), zones.uint16())
        let count = Int(zones.uint8())
        var light = LIFXReader(try await ask(101).payload)
        return ((0..<count).map { _ in HSBK(&zones) }, HSBK(&light))
    }

    /// Sends `payload` as a message of `type` to the strip, and reads zones and light with queries sent as it
    /// travels (before the bulb's latency), which the strip answers once it has taken it, as a bulb takes its
    /// messages in the order they came, and again once the message is answered.
    func readWhileOnItsWay(_ type: UInt16, _ payload: [UInt8]) async throws -> (
        sentTravelling: (zones: [HSBK], light: HSBK), taken: (zones: [HSBK], light: HSBK)
    ) {
        let target = DeviceSerial.of(home: "flat", light: "den.strip") + [0, 0]
        let packet = LIFXPacket(
            source: 3, target: target, wantsAcknowledgement: true, sequence: 9, type: type, payload: payload)
        let id: LightID = "den.strip"
        let before = (light: try await home.light(id).state, zones: front.records.zoneStates.withLock { $0[id] })
        let answered = Answered()
        let front = front
        Task {
            _ = await front.answer(packet)
            answered.count.withLock { $0 += 1 }
        }
        for _ in 0..<10_000 where await home.scheduledEventCount == 0 { await Task.yield() }
        // Not taken yet: the light and the zones the strip keeps are as they were.
        let travelling = (light: try await home.light(id).state, zones: front.records.zoneStates.withLock { $0[id] })
        #expect(travelling.light == before.light && travelling.zones == before.zones, "taken before its latency")
        let sentAtMs = await home.nowMilliseconds
        let reading = Task { try await zonesAndLight() }
        let sentTravelling = try await home.driving { await reading.result }.get()
        #expect(await home.nowMilliseconds > sentAtMs, "a query sent on its way was answered before it was taken")
        for _ in 0..<10_000 where answered.count.withLock({ $0 }) < 1 {
            _ = try await home.advanceToNextEvent()
            await Task.yield()
        }
        return (sentTravelling, try await zonesAndLight())
    }

    /// A strip made one colour shows its zones as they were until it takes the colour, as its light does, and
    /// then every zone and the light show it together: neither is ever read apart from the other, and a read sent
    /// while the colour is on its way is answered once the strip has taken it.
    @Test func aStripMadeOneColourShowsItTogetherWithItsLight() async throws {
        _ = try await replies(501, Self.setZones(0, 7, Self.red))
        var extended = LIFXWriter()
        extended.uint32(0)
        extended.uint8(1)
        extended.uint16(0)
        extended.uint8(16)
        for _ in 0..<16 { Self.blue.write(&extended) }
        extended.zeros(8 * 66)
        let (travelling, taken) = try await readWhileOnItsWay(510, extended.output)
        #expect(travelling.zones == taken.zones && travelling.light == taken.light)
        #expect(taken.zones == Array(repeating: Self.blue, count: 16) && taken.light == Self.blue)
    }

    /// `SetColor` makes every zone the colour, whatever it leaves of the light's colour as it was: a brightness
    /// alone too.
    @Test func setColorMakesEveryZoneItsColourEvenForABrightnessAlone() async throws {
        _ = try await replies(501, Self.setZones(0, 7, Self.red))
        let light = try await zonesAndLight().light
        var brighter = light
        brighter.brightness = 65_535
        var color = LIFXWriter()
        color.uint8(0)
        brighter.write(&color)
        color.uint32(0)
        let (travelling, taken) = try await readWhileOnItsWay(102, color.output)
        #expect(travelling.zones == taken.zones && travelling.light == taken.light)
        #expect(taken.light == brighter)
        #expect(taken.zones == Array(repeating: brighter, count: 16), "\(taken.zones)")
    }

    /// A strip draws a wave as one zone: read during it, every zone shows the colour `Get` does; a transient
    /// wave done, the zones are back as they were.
    @Test func aStripDrawsAWaveAsOneZone() async throws {
        _ = try await replies(501, Self.setZones(0, 7, Self.red))
        let before = try await zonesAndLight()
        var wave = LIFXWriter()
        wave.uint8(0)
        wave.uint8(1)  // transient
        Self.blue.write(&wave)
        wave.uint32(1_000)
        wave.uint32(Float(1).bitPattern)
        wave.uint16(0)
        wave.uint8(0)  // saw
        _ = try await replies(103, wave.output)
        try await home.advance(byMilliseconds: 400)
        let during = try await zonesAndLight()
        #expect(during.light != before.light && during.zones == Array(repeating: during.light, count: 16))
        try await home.advance(byMilliseconds: 1_000)
        let after = try await zonesAndLight()
        #expect(after.zones == before.zones && after.light == before.light)
    }

    /// A fade on or off moves the strip's level, not its zones: zones set as it fades are kept through it.
    @Test func zonesAreKeptWhileTheStripFades() async throws {
        _ = try await replies(501, Self.setZones(0, 7, Self.red))
        let zones = try await zones()
        var off = LIFXWriter()
        off.uint16(0)
        off.uint32(1_000)
        _ = try await replies(117, off.output)
        try await home.advance(byMilliseconds: 300)
        #expect(try await home.light("den.strip").state.isOn, "still fading off")
        #expect(try await self.zones().map(\.hue) == zones.map(\.hue))
        try await home.advance(byMilliseconds: 1_000)
        #expect(try await self.zones().map(\.hue) == zones.map(\.hue))
    }

    /// Zones following the light keep its colour through a power fade, as firmware reports them: only the power
    /// level moves.
    @Test func zonesFollowingTheLightKeepItsBrightnessThroughAPowerFade() async throws {
        let zones = try await zones()
        var off = LIFXWriter()
        off.uint16(0)
        off.uint32(1_000)
        _ = try await replies(117, off.output)
        try await home.advance(byMilliseconds: 500)
        #expect(try await home.light("den.strip").state.isOn, "still fading off")
        #expect(try await self.zones() == zones)
        try await home.advance(byMilliseconds: 1_000)
        #expect(try await self.zones() == zones)
    }

    /// aiolifx sends its 82 colours and then, straight after, an empty extended message from zone 82 on: the
    /// second, which places nothing, leaves the strip as the first made it, however the two are interleaved.
    @Test func anEmptyExtendedMessageRightAfterAColourLeavesTheColour() async throws {
        let color = HSBK(hue: 5_461, saturation: 65_535, brightness: 65_535, kelvin: 3_497)
        var full = LIFXWriter()
        full.uint32(0)
        full.uint8(1)
        full.uint16(0)
        full.uint8(82)
        for _ in 0..<16 { color.write(&full) }
        full.zeros(8 * 66)
        var empty = LIFXWriter()
        empty.uint32(0)
        empty.uint8(1)
        empty.uint16(82)
        empty.uint8(0)
        let target = DeviceSerial.of(home: "flat", light: "den.strip") + [0, 0]
        let packets = [full.output, empty.output].enumerated().map { sequence, payload in
            LIFXPacket(
                source: 3, target: target, wantsAcknowledgement: true, sequence: UInt8(sequence), type: 510,
                payload: payload)
        }
        let answered = Answered()
        let front = front
        for packet in packets {
            Task {
                _ = await front.answer(packet)
                answered.count.withLock { $0 += 1 }
            }
            // The second comes while the first's colour is on its way to the strip, as on the LAN.
            for _ in 0..<10_000 where await home.scheduledEventCount == 0 { await Task.yield() }
        }
        for _ in 0..<10_000 where answered.count.withLock({ $0 }) < 2 {
            _ = try await home.advanceToNextEvent()
            await Task.yield()
        }
        #expect(HSBK(try await home.light("den.strip").state, kind: .color) == color)
        #expect(try await zones() == Array(repeating: color, count: 16))
    }

    /// How many messages have been answered, shared with the tasks that answer them.
    final class Answered: Sendable {
        let count = Locked(0)
    }

    /// A message with neither reply nor acknowledgement asked to `light`, as lifxlan sends zones back to back.
    func unanswered(_ type: UInt16, _ payload: [UInt8] = [], sequence: UInt8, to light: LightID = "den.strip")
        -> LIFXPacket
    {
        LIFXPacket(
            source: 3, target: DeviceSerial.of(home: "flat", light: light) + [0, 0], sequence: sequence, type: type,
            payload: payload)
    }

    /// Zone messages and a query read in one go reach the strip in that order: the query is answered with the
    /// zones they placed, not the ones from before.
    @Test func zonesAndAQueryReadInOneGoReachTheStripInThatOrder() async throws {
        let packets = [
            unanswered(501, Self.setZones(0, 7, Self.red), sequence: 1),
            unanswered(501, Self.setZones(8, 15, Self.blue), sequence: 2), unanswered(502, [0, 255], sequence: 3),
        ]
        let replies = try await front.repliesReadInOneGo(packets, movingClockOf: home)
        #expect(replies.map(\.type) == [506, 506])
        let read = replies.map { reply in
            var reader = LIFXReader(reply.payload)
            reader.skip(2)
            return (0..<8).map { _ in HSBK(&reader) }
        }
        #expect(read == [Array(repeating: Self.red, count: 8), Array(repeating: Self.blue, count: 8)], "\(read)")
    }

    /// `SetExtendedColorZones` and `GetExtendedColorZones` read in one go reach the strip in that order.
    @Test func extendedZonesAndAQueryReadInOneGoReachTheStripInThatOrder() async throws {
        let light = HSBK(try await home.light("den.strip").state, kind: .color)
        let packets = [unanswered(510, Self.fourZonesFromTwo, sequence: 1), unanswered(511, sequence: 2)]
        let replies = try await front.repliesReadInOneGo(packets, movingClockOf: home)
        try #require(replies.map(\.type) == [512])
        var reader = LIFXReader(replies[0].payload)
        reader.skip(5)
        let read = (0..<16).map { _ in HSBK(&reader) }
        let expected = [light, light, Self.red, Self.blue, Self.red, Self.blue] + Array(repeating: light, count: 10)
        #expect(read == expected, "\(read)")
    }
}
