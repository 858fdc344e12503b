/// A colour as LIFX writes it: hue, saturation and brightness each 0–65535 (hue round the wheel), and a
/// white point in kelvin (1500–9000).
public struct HSBK: Sendable, Hashable {
    public var hue: UInt16
    public var saturation: UInt16
    public var brightness: UInt16
    public var kelvin: UInt16

    /// A colour.
    public init(hue: UInt16, saturation: UInt16, brightness: UInt16, kelvin: UInt16) {
        self.hue = hue
        self.saturation = saturation
        self.brightness = brightness
        self.kelvin = kelvin
    }

    init(_ reader: inout LIFXReader) {
        self.init(
            hue: reader.uint16(), saturation: reader.uint16(), brightness: reader.uint16(), kelvin: reader.uint16())
    }

    func write(_ writer: inout LIFXWriter) {
        writer.uint16(hue)
        writer.uint16(saturation)
        writer.uint16(brightness)
        writer.uint16(kelvin)
    }
}

/// The LIFX LAN messages Lumen's bulbs read, with their fields (LIFX's "LAN Protocol: Packets").
public enum LIFXRequest: Sendable, Hashable {
    case getService
    case getHostFirmware
    case getPower
    case setPower(level: UInt16)
    case getLabel
    case setLabel(String)
    case getVersion
    case getLocation
    case getGroup
    case echo([UInt8])
    case getColor
    case setColor(HSBK, durationMs: UInt32)
    case getLightPower
    case setLightPower(level: UInt16, durationMs: UInt32)
    /// A waveform towards `color`: a transient one comes back to where it started, the others stay there.
    case setWaveform(transient: Bool, HSBK, periodMs: UInt32, cycles: Float)
    /// A message Lumen does not model: answered `StateUnhandled`.
    case unhandled(type: UInt16)

    /// The message of type `type` with `payload`.
    public init(type: UInt16, payload: [UInt8]) {
        var reader = LIFXReader(payload)
        switch type {
        case 2: self = .getService
        case 14: self = .getHostFirmware
        case 20: self = .getPower
        case 21: self = .setPower(level: reader.uint16())
        case 23: self = .getLabel
        case 24: self = .setLabel(reader.text(32))
        case 32: self = .getVersion
        case 48: self = .getLocation
        case 51: self = .getGroup
        case 58: self = .echo(reader.bytes(64))
        case 101: self = .getColor
        case 102:
            reader.skip(1)
            let color = HSBK(&reader)
            self = .setColor(color, durationMs: reader.uint32())
        case 103:
            reader.skip(1)
            let transient = reader.uint8() != 0
            let color = HSBK(&reader)
            let period = reader.uint32()
            self = .setWaveform(
                transient: transient, color, periodMs: period, cycles: Float(bitPattern: reader.uint32()))
        case 116: self = .getLightPower
        case 117: self = .setLightPower(level: reader.uint16(), durationMs: reader.uint32())
        default: self = .unhandled(type: type)
        }
    }

    /// Whether the device answers it with a state whatever the header asks (a `Get`, or a message it does not
    /// handle, answered `StateUnhandled`).
    public var isQuery: Bool {
        switch self {
        case .getService, .getHostFirmware, .getPower, .getLabel, .getVersion, .getLocation, .getGroup, .echo,
            .getColor, .getLightPower, .unhandled:
            true
        default: false
        }
    }

    /// The most bytes a bulb's state reply to it takes on the wire, header included: what an answer reserves of
    /// ``LIFXAnswerBudget`` for it before the state is known.
    public var stateReplySize: Int {
        let payload =
            switch self {
            case .getService: 5
            case .getHostFirmware: 20
            case .getPower, .setPower, .getLightPower, .setLightPower, .unhandled: 2
            case .getLabel, .setLabel: 32
            case .getVersion: 12
            case .getLocation, .getGroup: 56
            case .echo: 64
            case .getColor, .setColor, .setWaveform: 52
            }
        return LIFXPacket.headerSize + payload
    }
}

/// The LIFX LAN messages Lumen's bulbs send.
public enum LIFXReply: Sendable, Hashable {
    case stateService(port: UInt32)
    case stateHostFirmware(build: UInt64, major: UInt16, minor: UInt16)
    case statePower(level: UInt16)
    case stateLabel(String)
    case stateVersion(vendor: UInt32, product: UInt32)
    case stateLocation(id: [UInt8], label: String, updatedAt: UInt64)
    case stateGroup(id: [UInt8], label: String, updatedAt: UInt64)
    case echo([UInt8])
    case acknowledgement
    case lightState(HSBK, power: UInt16, label: String)
    case stateLightPower(level: UInt16)
    case stateUnhandled(type: UInt16)

    /// The types of the messages devices send (`State…`, `Acknowledgement`): a bulb does not answer them.
    public static let types: Set<UInt16> = [
        3, 13, 15, 17, 19, 22, 25, 33, 35, 45, 46, 50, 53, 59, 107, 118, 121, 144, 223, 503, 506, 512, 703, 711,
    ]

    /// Its message type.
    public var type: UInt16 {
        switch self {
        case .stateService: 3
        case .stateHostFirmware: 15
        case .statePower: 22
        case .stateLabel: 25
        case .stateVersion: 33
        case .stateLocation: 50
        case .stateGroup: 53
        case .echo: 59
        case .acknowledgement: 45
        case .lightState: 107
        case .stateLightPower: 118
        case .stateUnhandled: 223
        }
    }

    /// Its fields.
    public var payload: [UInt8] {
        var writer = LIFXWriter()
        switch self {
        case .stateService(let port):
            writer.uint8(1)  // UDP
            writer.uint32(port)
        case .stateHostFirmware(let build, let major, let minor):
            writer.uint64(build)
            writer.zeros(8)
            writer.uint16(minor)
            writer.uint16(major)
        case .statePower(let level), .stateLightPower(let level):
            writer.uint16(level)
        case .stateLabel(let label):
            writer.text(label, count: 32)
        case .stateVersion(let vendor, let product):
            writer.uint32(vendor)
            writer.uint32(product)
            writer.zeros(4)
        case .stateLocation(let id, let label, let updatedAt), .stateGroup(let id, let label, let updatedAt):
            writer.bytes(id, count: 16)
            writer.text(label, count: 32)
            writer.uint64(updatedAt)
        case .echo(let bytes):
            writer.bytes(bytes, count: 64)
        case .acknowledgement:
            break
        case .lightState(let color, let power, let label):
            color.write(&writer)
            writer.zeros(2)
            writer.uint16(power)
            writer.text(label, count: 32)
            writer.zeros(8)
        case .stateUnhandled(let type):
            writer.uint16(type)
        }
        return writer.output
    }
}
