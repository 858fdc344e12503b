import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

@testable import LumenLIFX

/// The LIFX LAN protocol's header and messages, byte for byte as LIFX documents them, and HSBK as Lumen's state.
@Suite("LIFX LAN protocol")
struct LIFXCodecTests {
    /// LIFX's own example: a tagged `SetColor` to every bulb, source 0, sequence 0: green at half brightness,
    /// 3500 K, over 1024 ms ("LAN Protocol: Header", "Building a LIFX packet").
    static let documentedSetColor: [UInt8] = [
        0x31, 0x00, 0x00, 0x34, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x66, 0x00, 0x00, 0x00,
        0x00, 0x55, 0x55, 0xFF, 0xFF, 0xFF, 0xFF, 0xAC, 0x0D, 0x00, 0x04, 0x00, 0x00,
    ]

    @Test func theDocumentedSetColorReadsAndWritesTheSame() throws {
        let packet = try LIFXPacket(bytes: Self.documentedSetColor)
        #expect(packet.tagged && packet.source == 0 && packet.sequence == 0 && packet.type == 102)
        #expect(!packet.wantsReply && !packet.wantsAcknowledgement)
        let request = LIFXRequest(type: packet.type, payload: packet.payload)
        #expect(
            request
                == .setColor(
                    HSBK(hue: 21_845, saturation: 65_535, brightness: 65_535, kelvin: 3_500), durationMs: 1_024))
        #expect(packet.bytes == Self.documentedSetColor)
    }

    @Test func aReplyEchoesSourceAndSequenceFromTheBulb() throws {
        let get = LIFXPacket(source: 0xDEAD_BEEF, target: [0xD0, 0x73, 0xD5, 1, 2, 3, 0, 0], sequence: 42, type: 101)
        let read = try LIFXPacket(bytes: get.bytes)
        #expect(read == get)
        let serial: [UInt8] = [0xD0, 0x73, 0xD5, 1, 2, 3]
        let state = LIFXReply.lightState(
            HSBK(hue: 1, saturation: 2, brightness: 3, kelvin: 3_500), power: 65_535, label: "Bedside")
        let reply = read.reply(type: state.type, payload: state.payload, from: serial)
        #expect(reply.source == 0xDEAD_BEEF && reply.sequence == 42 && reply.target == serial + [0, 0])
        #expect(reply.bytes.count == 36 + 52)
        #expect(LIFXReply.acknowledgement.payload.isEmpty && LIFXReply.acknowledgement.type == 45)
    }

    @Test func malformedDatagramsAreToldApart() {
        #expect(throws: LIFXPacket.Malformed.short) { try LIFXPacket(bytes: [1, 2, 3]) }
        var wrongSize = Self.documentedSetColor
        wrongSize[0] = 0x30
        #expect(throws: LIFXPacket.Malformed.wrongSize) { try LIFXPacket(bytes: wrongSize) }
        var otherProtocol = Self.documentedSetColor
        otherProtocol[2] = 0x01
        #expect(throws: LIFXPacket.Malformed.notLIFX) { try LIFXPacket(bytes: otherProtocol) }
        // A message Lumen does not model is read as such, to be answered StateUnhandled.
        #expect(LIFXRequest(type: 401, payload: []) == .unhandled(type: 401))
    }

    @Test func labelsAreCutAtACharacterAndReadToTheirFirstZero() {
        let long = String(repeating: "é", count: 20)
        let payload = LIFXReply.stateLabel(long).payload
        #expect(payload.count == 32)
        var reader = LIFXReader(payload)
        #expect(reader.text(32) == String(repeating: "é", count: 16))
        #expect(LIFXRequest(type: 24, payload: Array("Desk".utf8) + [0, 0x41]) == .setLabel("Desk"))
    }

    @Test func hsbkAndLumensStateMapBothWays() {
        // Unsaturated: a white point, as a colour temperature.
        let white = HSBK(hue: 0, saturation: 0, brightness: 32_768, kelvin: 2_700).change(for: .color)
        #expect(white.colorTemperature == 370 && white.color == nil && white.brightness == 50.0008)
        // Saturated red: a colour near red's corner of the gamut.
        let red = HSBK(hue: 0, saturation: 65_535, brightness: 65_535, kelvin: 3_500).change(for: .color)
        #expect(red.brightness == 100 && (red.color?.x ?? 0) > 0.6)
        // The kelvin is kept beside the colour, as a bulb keeps it.
        #expect(red.colorTemperature == 286)
        // Brightness 0 keeps the bulb on at its dimmest level.
        #expect(HSBK(hue: 0, saturation: 0, brightness: 0, kelvin: 3_500).change(for: .dimmable).brightness == 1)
        // And back: a light's hue and saturation survive the round trip through xy.
        var state = LightState.factoryDefault
        state.color = CIEColor(hue: 1.0 / 3, saturation: 1)
        let green = HSBK(state, kind: .color)
        #expect(green.hue == 21_845 && green.saturation == 65_535, "\(green)")
        #expect(HSBK(state, kind: .ambiance).saturation == 0)
        #expect(HSBK(LightState.factoryDefault, kind: .color).kelvin == 2_732)
    }

    @Test func aStateReplysReservedSizeIsItsSizeOnTheWire() {
        let color = HSBK(hue: 1, saturation: 2, brightness: 3, kelvin: 3_500)
        let answered: [(LIFXRequest, LIFXReply)] = [
            (.getService, .stateService(port: 56_700)),
            (.getHostFirmware, .stateHostFirmware(build: 1, major: 3, minor: 90)),
            (.setPower(level: 0), .statePower(level: 0)),
            (.setLabel("Desk"), .stateLabel("Desk")),
            (.getVersion, .stateVersion(vendor: 1, product: 27)),
            (.getGroup, .stateGroup(id: [UInt8](repeating: 1, count: 16), label: "Den", updatedAt: 0)),
            (.getLocation, .stateLocation(id: [UInt8](repeating: 1, count: 16), label: "Home", updatedAt: 0)),
            (.echo([1, 2]), .echo([1, 2])),
            (.setColor(color, durationMs: 0), .lightState(color, power: 0, label: "Bulb")),
            (.setLightPower(level: 1, durationMs: 0), .stateLightPower(level: 1)),
            (.unhandled(type: 120), .stateUnhandled(type: 120)),
        ]
        for (request, reply) in answered {
            #expect(request.stateReplySize == LIFXPacket.headerSize + reply.payload.count, "\(request)")
        }
    }

    /// A reply written into one array, as a bulb answers, is the datagram its header and payload make apart: a
    /// short one, one longer than the room first made for it, and labels cut inside a character.
    @Test func aReplyWrittenInOneArrayIsItsPacketsBytes() throws {
        let get = LIFXPacket(source: 0xDEAD_BEEF, target: [0xD0, 0x73, 0xD5, 1, 2, 3, 0, 0], sequence: 42, type: 101)
        let serial: [UInt8] = [0xD0, 0x73, 0xD5, 1, 2, 3]
        let color = HSBK(hue: 1, saturation: 2, brightness: 3, kelvin: 3_500)
        let cut = String(repeating: "a", count: 31) + "é and more"
        let replies: [LIFXReply] = [
            .acknowledgement, .stateService(port: 56_700), .statePower(level: 65_535), .stateLabel(cut),
            .lightState(color, power: 0, label: cut), .lightState(color, power: 65_535, label: "Bulb"),
            .stateGroup(id: [UInt8](repeating: 7, count: 16), label: "Den", updatedAt: 1),
            .stateExtendedColorZones(count: 82, index: 0, [HSBK](repeating: color, count: 82)),
            .echo([UInt8](repeating: 9, count: 64)), .stateUnhandled(type: 120),
        ]
        for reply in replies {
            let apart = get.reply(type: reply.type, payload: reply.payload, from: serial).bytes
            #expect(get.datagram(replying: reply, from: serial) == apart, "\(reply)")
        }
        #expect(try LIFXPacket(bytes: get.datagram(replying: .stateLabel(cut), from: serial)).payload.count == 32)
    }
}

extension LIFXPacket {
    /// A reply from the device whose MAC is `serial`, made field by field: the same source and sequence, addressed
    /// from it; what ``datagram(replying:from:)`` writes in one go is checked against it.
    func reply(type: UInt16, payload: [UInt8] = [], from serial: [UInt8]) -> LIFXPacket {
        LIFXPacket(source: source, target: serial + [0, 0], sequence: sequence, type: type, payload: payload)
    }
}
