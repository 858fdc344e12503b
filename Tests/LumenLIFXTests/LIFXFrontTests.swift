import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import Testing

@testable import LumenLIFX

/// The LIFX LAN bulbs' answers, packet by packet, over a home on the virtual clock (no UDP).
@Suite("LIFX LAN bulbs", .serialized)
struct LIFXFrontTests {
    static let home = """
        {"schema": 1, "id": "flat", "name": "Flat", "seed": 4, "rooms": [
          {"id": "den", "name": "Den", "lights": [
            {"id": "den.bulb", "name": "Bulb", "kind": "color", "manufacturer": "LIFX", "product": "LIFX A19",
             "latency": {"kind": "fixed", "ms": 40}, "state": {"isOn": false, "brightness": 50}},
            {"id": "den.mini", "name": "Mini", "kind": "color", "manufacturer": "LIFX", "product": "LIFX Mini Colour"},
            {"id": "den.hue", "name": "Hue", "kind": "color", "manufacturer": "Signify"}
          ]}
        ]}
        """

    /// Where the datagrams come from, as the UDP listener writes it out.
    static let sender: @Sendable () -> String = { "127.0.0.1:51234" }
    /// How the command record names that client.
    static let lifxSender = "lifx 127.0.0.1:51234"

    let home: Home
    let front: LIFXFront

    init() throws {
        home = Home(fixture: try Fixture(json: Array(Self.home.utf8)), clock: .virtual)
        front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
    }

    /// The replies to `packet`, moving the clock until they come.
    func replies(_ packet: LIFXPacket) async throws -> [LIFXPacket] {
        try await sentReplies(packet).map(\.packet)
    }

    /// The replies to `packet` sent to `address` (a broadcast when `nil`), each with the address it leaves from,
    /// moving the clock until they come.
    func sentReplies(_ packet: LIFXPacket, at address: IPv4Address? = nil) async throws -> [(
        packet: LIFXPacket, from: IPv4Address?
    )] {
        let work = try #require(front.respond(to: packet.bytes, at: address, from: Self.sender))
        let answered = Locked<[([UInt8], IPv4Address?)]?>(nil)
        Task {
            let gathered = Locked<[([UInt8], IPv4Address?)]>([])
            await work { replies, source in gathered.withLock { $0 += replies.map { ($0, source) } } }
            answered.withLock { $0 = gathered.withLock { $0 } }
        }
        for _ in 0..<10_000 {
            if let replies = answered.withLock({ $0 }) {
                return try replies.map { (try LIFXPacket(bytes: $0.0), $0.1) }
            }
            try await home.advance(byMilliseconds: 10)
            await Task.yield()
        }
        Issue.record("no answer")
        return []
    }

    var bulbSerial: [UInt8] { DeviceSerial.of(home: "flat", light: "den.bulb") }

    @Test func discoveryFindsEveryBulbOnTheLANAndNothingElse() async throws {
        let found = try await replies(LIFXPacket(tagged: true, source: 7, sequence: 1, type: 2))
        #expect(found.count == 2, "the two LIFX bulbs; the Hue light is behind the bridge")
        #expect(found.allSatisfy { $0.type == 3 && $0.source == 7 && $0.sequence == 1 })
        #expect(Set(found.map { Array($0.target.prefix(6)) }).contains(bulbSerial))
        #expect(found[0].payload == [1, 0x7C, 0xDD, 0, 0])
    }

    @Test func aColourChangeIsOneCommandAcknowledgedAfterTheLatency() async throws {
        let color = HSBK(hue: 0, saturation: 0, brightness: 65_535, kelvin: 2_700)
        var payload = [UInt8(0)]
        var writer = LIFXWriter()
        color.write(&writer)
        writer.uint32(0)
        payload += writer.output
        let set = LIFXPacket(
            source: 9, target: bulbSerial + [0, 0], wantsAcknowledgement: true, sequence: 5, type: 102, payload: payload
        )
        let answer = try await replies(set)
        #expect(answer.map(\.type) == [45])
        let state = try await home.light("den.bulb").state
        #expect(state.brightness == 100 && state.colorTemperature == 370 && !state.isOn, "LIFX stores colour while off")
        #expect(await home.commandRecords(light: "den.bulb").map(\.source) == [Self.lifxSender])
        // Power on over LIFX, with a reply.
        let on = LIFXPacket(
            source: 9, target: bulbSerial + [0, 0], wantsReply: true, sequence: 6, type: 117,
            payload: [0xFF, 0xFF, 0, 0, 0, 0])
        let power = try await replies(on)
        #expect(power.map(\.type) == [118] && power[0].payload == [0xFF, 0xFF])
        #expect(try await home.light("den.bulb").state.isOn)
        #expect(
            await home.commandRecords(light: "den.bulb").map(\.source) == .init(repeating: Self.lifxSender, count: 2))
    }

    @Test func queriesAnswerTheStateLabelVersionAndGroup() async throws {
        let target = bulbSerial + [0, 0]
        let state = try await replies(LIFXPacket(source: 1, target: target, sequence: 1, type: 101))
        #expect(state.map(\.type) == [107])
        var reader = LIFXReader(state[0].payload)
        let color = HSBK(&reader)
        #expect(color.brightness == 32_768)
        reader.skip(2)
        #expect(reader.uint16() == 0 && reader.text(32) == "Bulb")
        let version = try await replies(LIFXPacket(source: 1, target: target, sequence: 2, type: 32))
        #expect(version[0].payload.prefix(8) == [1, 0, 0, 0, 27, 0, 0, 0])
        let group = try await replies(LIFXPacket(source: 1, target: target, sequence: 3, type: 51))
        var groupReader = LIFXReader(group[0].payload)
        groupReader.skip(16)
        #expect(groupReader.text(32) == "Den")
        let unhandled = try await replies(LIFXPacket(source: 1, target: target, sequence: 4, type: 120))
        #expect(unhandled.map(\.type) == [223] && unhandled[0].payload == [120, 0])
    }

    @Test func anUnreachableBulbAnswersNothingAndMalformedDatagramsAreCounted() async throws {
        try await home.setReachable(false, light: "den.bulb")
        #expect(try await replies(LIFXPacket(source: 1, target: bulbSerial + [0, 0], sequence: 1, type: 101)).isEmpty)
        #expect(front.respond(to: [1, 2, 3], from: Self.sender) == nil)
        #expect(front.malformed.load(ordering: .relaxed) == 1)
    }

    @Test func aWaveformEndsOnItsColourUnlessItIsTransient() async throws {
        func waveform(transient: Bool) -> LIFXPacket {
            var writer = LIFXWriter()
            writer.uint8(0)
            writer.uint8(transient ? 1 : 0)
            HSBK(hue: 0, saturation: 65_535, brightness: 65_535, kelvin: 3_500).write(&writer)
            writer.uint32(200)
            writer.uint32(Float(2).bitPattern)
            writer.uint16(0)
            writer.uint8(0)
            return LIFXPacket(
                source: 3, target: bulbSerial + [0, 0], wantsAcknowledgement: true, sequence: 1, type: 103,
                payload: writer.output)
        }
        let before = try await home.light("den.bulb").state
        #expect(try await replies(waveform(transient: true)).map(\.type) == [45])
        #expect(try await home.light("den.bulb").state == before)
        #expect(try await replies(waveform(transient: false)).map(\.type) == [45])
        try await home.advance(byMilliseconds: 1_000)
        let after = try await home.light("den.bulb").state
        #expect(after.color.x > 0.6, "red, over 400 ms")
        #expect(await home.commandRecords(light: "den.bulb").map(\.source) == [Self.lifxSender])
    }

    /// A bulb counts every message: one that changes no state (a label, a transient waveform) is dropped as a
    /// change is.
    @Test func everyMessageCanBeDroppedEvenOneThatChangesNothing() async throws {
        try await home.updateSettings(DeviceSettings(dropProbability: 1), light: "den.bulb")
        let target = bulbSerial + [0, 0]
        var label = LIFXWriter()
        label.text("Renamed", count: 32)
        var waveform = LIFXWriter()
        waveform.uint8(0)
        waveform.uint8(1)
        HSBK(hue: 0, saturation: 65_535, brightness: 65_535, kelvin: 3_500).write(&waveform)
        waveform.uint32(200)
        waveform.uint32(Float(2).bitPattern)
        waveform.uint16(0)
        waveform.uint8(0)
        for (type, payload) in [(24, label.output), (103, waveform.output)] {
            let packet = LIFXPacket(
                source: 3, target: target, wantsAcknowledgement: true, sequence: 1, type: UInt16(type),
                payload: payload)
            #expect(try await replies(packet).isEmpty, "type \(type) was answered though the bulb drops everything")
        }
        #expect(try await home.light("den.bulb").name == "Bulb")
    }

    @Test func aChangeIsAnsweredAsTheHeaderAsksAndABroadcastReachesEveryBulb() async throws {
        let on: [UInt8] = [0xFF, 0xFF, 0, 0, 0, 0]
        func setPower(ack: Bool, reply: Bool, tagged: Bool = false) -> LIFXPacket {
            LIFXPacket(
                tagged: tagged, source: 2, target: tagged ? [UInt8](repeating: 0, count: 8) : bulbSerial + [0, 0],
                wantsReply: reply, wantsAcknowledgement: ack, sequence: 9, type: 117, payload: on)
        }
        #expect(try await replies(setPower(ack: false, reply: false)).isEmpty)
        #expect(try await replies(setPower(ack: true, reply: true)).map(\.type) == [45, 118])
        let everyBulb = try await replies(setPower(ack: true, reply: false, tagged: true))
        #expect(everyBulb.map(\.type) == [45, 45])
        #expect(try await home.light("den.mini").state.isOn)
        // A reply sent to a bulb is not answered.
        #expect(front.respond(to: LIFXPacket(source: 2, sequence: 1, type: 107).bytes, from: Self.sender) == nil)
    }

    @Test func aMessageReachesTheBulbItNamesOrEveryBulbWhenItNamesNone() async throws {
        func getPower(target: [UInt8]) -> LIFXPacket {
            LIFXPacket(source: 4, target: target + [0, 0], sequence: 1, type: 20)
        }
        let mini = DeviceSerial.of(home: "flat", light: "den.mini")
        let toBulb = try await replies(getPower(target: bulbSerial))
        #expect(toBulb.map { Array($0.target.prefix(6)) } == [bulbSerial], "only the bulb named answers")
        #expect(try await replies(getPower(target: mini)).map { Array($0.target.prefix(6)) } == [mini])
        #expect(try await replies(getPower(target: [0xD0, 0x73, 0xD5, 1, 2, 3])).isEmpty, "no bulb has that serial")
        // Untagged with a target of zeros: every bulb, as a tagged broadcast.
        let every = try await replies(getPower(target: [0, 0, 0, 0, 0, 0]))
        #expect(Set(every.map { Array($0.target.prefix(6)) }) == [bulbSerial, mini])
    }

    @Test func aLabelIsTakenAndAnsweredAfterTheBulbsLatency() async throws {
        var label = LIFXWriter()
        label.text("Desk", count: 32)
        let packet = LIFXPacket(
            source: 5, target: bulbSerial + [0, 0], wantsReply: true, sequence: 1, type: 24, payload: label.output)
        let start = await home.nowMilliseconds
        let answered = Locked<[[UInt8]]?>(nil)
        Task {
            let replies = await front.answer(packet)
            answered.withLock { $0 = replies }
        }
        // The clock moves only from event to event: the answer's, 40 ms on, is the only one there is.
        for _ in 0..<10_000 where answered.withLock({ $0 }) == nil {
            _ = try await home.advanceToNextEvent()
            await Task.yield()
        }
        #expect(try answered.withLock { $0 }?.map { try LIFXPacket(bytes: $0).type } == [25])
        #expect(await home.nowMilliseconds - start == 40, "answered without waiting the bulb's 40 ms latency")
        #expect(try await home.light("den.bulb").name == "Desk")
    }

    @Test func aBulbOnTheLANShowsItsSerialInItsModel() async throws {
        let serial = bulbSerial.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
        let model = try await home.value(of: .light("den.bulb", .model))
        #expect(model["serial"] == .string(serial.joined(separator: ":")))
        #expect(try await home.value(of: .light("den.hue", .model))["serial"] == nil, "not on the LAN")
    }

    @Test func eachBulbHasItsOwnAddressAndADatagramSentThereReachesItAlone() async throws {
        let mini = DeviceSerial.of(home: "flat", light: "den.mini")
        let first = try #require(IPv4Address("127.0.0.1"))
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 0, firstAddress: first)
        #expect(await front.bulbs().map(\.address.description) == ["127.0.0.1", "127.0.0.2"])
        // A target of zeros, as a client that knows only the address sends it.
        let getLabel = LIFXPacket(source: 4, sequence: 1, type: 23)
        let toMini = try await sentReplies(getLabel, at: IPv4Address("127.0.0.2"))
        #expect(toMini.map { Array($0.packet.target.prefix(6)) } == [mini], "the bulb at that address alone")
        #expect(toMini.map(\.from) == [IPv4Address("127.0.0.2")], "its reply leaves from its address")
        // To the mini's address naming the other bulb: no bulb there has that serial.
        let named = LIFXPacket(source: 4, target: bulbSerial + [0, 0], sequence: 2, type: 23)
        #expect(try await sentReplies(named, at: IPv4Address("127.0.0.2")).isEmpty)
        #expect(try await sentReplies(getLabel, at: IPv4Address("127.0.0.3")).isEmpty, "no bulb at that address")
        // A broadcast: each bulb answers from its own address.
        let every = try await sentReplies(LIFXPacket(tagged: true, source: 4, sequence: 3, type: 2))
        #expect(Set(every.compactMap(\.from)) == [IPv4Address("127.0.0.1"), IPv4Address("127.0.0.2")])
    }

    @Test func aFixtureAddressIsKeptAndTheOthersTakeTheNextFreeOnes() async throws {
        let fixture = """
            {"schema": 1, "id": "flat", "name": "Flat", "rooms": [{"id": "den", "name": "Den", "lights": [
              {"id": "a", "name": "A", "kind": "color", "manufacturer": "LIFX"},
              {"id": "b", "name": "B", "kind": "color", "manufacturer": "LIFX", "lifx": {"address": "10.0.0.5"}},
              {"id": "c", "name": "C", "kind": "color", "manufacturer": "LIFX", "lifx": {"address": "10.0.0.2"}},
              {"id": "d", "name": "D", "kind": "color", "manufacturer": "LIFX"}
            ]}]}
            """
        let home = Home(fixture: try Fixture(json: Array(fixture.utf8)), clock: .virtual)
        let lights = await LIFXFront(
            scopeContext: ScopeContext(home: home), port: 0, firstAddress: try #require(IPv4Address("10.0.0.1"))
        ).bulbs()
        #expect(lights.map(\.address.description) == ["10.0.0.1", "10.0.0.5", "10.0.0.2", "10.0.0.3"])
    }
}
