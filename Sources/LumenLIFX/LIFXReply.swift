/// The LIFX LAN messages Lumen's bulbs send.
enum LIFXReply: Sendable, Hashable {
    case stateService(port: UInt32)
    /// The host processor's radio signal (milliwatts) and bytes sent and received.
    case stateHostInfo(signal: Float, sent: UInt32, received: UInt32)
    case stateHostFirmware(build: UInt64, major: UInt16, minor: UInt16)
    /// The Wi-Fi signal the bulb hears, in milliwatts (`10 * log10(signal)` is its RSSI in dBm).
    case stateWifiInfo(signal: Float)
    case stateWifiFirmware(build: UInt64, major: UInt16, minor: UInt16)
    case statePower(level: UInt16)
    case stateLabel(String)
    case stateVersion(vendor: UInt32, product: UInt32)
    /// The time now, how long the bulb has been up and how long it was last down, each in nanoseconds.
    case stateInfo(time: UInt64, uptime: UInt64, downtime: UInt64)
    case stateLocation(id: [UInt8], label: String, updatedAt: UInt64)
    case stateGroup(id: [UInt8], label: String, updatedAt: UInt64)
    case echo([UInt8])
    case acknowledgement
    case lightState(HSBK, power: UInt16, label: String)
    case stateLightPower(level: UInt16)
    case stateInfrared(UInt16)
    /// The cycle under way: its length and the seconds left (both 0 when none is), and whether the light was on
    /// before it (it is again after).
    case stateHevCycle(durationS: UInt32, remainingS: UInt32, lastPower: Bool)
    case stateHevCycleConfiguration(indication: Bool, durationS: UInt32)
    /// How the last cycle ended: 0 done, 1 one is under way, 2 cut short by a reboot or power loss, 4 stopped
    /// over the LAN, 255 none yet (LIFX's `LastHevCycleResult`).
    case stateLastHevCycleResult(UInt8)
    /// One zone's colour, of `count` zones.
    case stateZone(count: UInt8, index: UInt8, HSBK)
    /// Up to eight zones' colours from `index` on, of `count` zones.
    case stateMultiZone(count: UInt8, index: UInt8, [HSBK])
    /// Zones' colours from `index` on, of `count` zones.
    case stateExtendedColorZones(count: UInt16, index: UInt16, [HSBK])
    /// The effect a strip runs (``LIFXEffect/none`` when none does).
    case stateMultiZoneEffect(LIFXEffect)
    /// The tiles of a matrix product's chain, from the first.
    case stateDeviceChain([LIFXTileDevice])
    /// A rectangle of tile `tile`'s colours (64, row by row), from column `x` and row `y`, `width` wide.
    case state64(tile: UInt8, x: UInt8, y: UInt8, width: UInt8, [HSBK])
    /// The effect a matrix runs (``LIFXEffect/none`` when none does).
    case stateTileEffect(LIFXEffect)
    case stateUnhandled(type: UInt16)

    /// The types of the messages devices send (`State…`, `Acknowledgement`): a bulb does not answer them.
    static let types: Set<UInt16> = [
        3, 13, 15, 17, 19, 22, 25, 33, 35, 45, 46, 50, 53, 59, 107, 118, 121, 144, 147, 149, 223, 503, 506, 509, 512,
        702, 711, 720,
    ]

    /// Its message type.
    var type: UInt16 {
        switch self {
        case .stateService: 3
        case .stateHostInfo: 13
        case .stateHostFirmware: 15
        case .stateWifiInfo: 17
        case .stateWifiFirmware: 19
        case .statePower: 22
        case .stateLabel: 25
        case .stateVersion: 33
        case .stateInfo: 35
        case .stateLocation: 50
        case .stateGroup: 53
        case .echo: 59
        case .acknowledgement: 45
        case .lightState: 107
        case .stateLightPower: 118
        case .stateInfrared: 121
        case .stateHevCycle: 144
        case .stateHevCycleConfiguration: 147
        case .stateLastHevCycleResult: 149
        case .stateZone: 503
        case .stateMultiZone: 506
        case .stateExtendedColorZones: 512
        case .stateMultiZoneEffect: 509
        case .stateDeviceChain: 702
        case .state64: 711
        case .stateTileEffect: 720
        case .stateUnhandled: 223
        }
    }

    /// Its fields.
    var payload: [UInt8] {
        var writer = LIFXWriter()
        write(&writer)
        return writer.output
    }

    /// Writes its fields.
    func write(_ writer: inout LIFXWriter) {
        switch self {
        case .stateService(let port):
            writer.uint8(1)  // UDP
            writer.uint32(port)
        case .stateHostInfo(let signal, let sent, let received):
            writer.uint32(signal.bitPattern)
            writer.uint32(sent)
            writer.uint32(received)
            writer.zeros(2)
        case .stateWifiInfo(let signal):
            writer.uint32(signal.bitPattern)
            writer.zeros(10)
        case .stateHostFirmware(let build, let major, let minor), .stateWifiFirmware(let build, let major, let minor):
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
        case .stateInfo(let time, let uptime, let downtime):
            writer.uint64(time)
            writer.uint64(uptime)
            writer.uint64(downtime)
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
        case .stateInfrared(let level):
            writer.uint16(level)
        case .stateHevCycle(let duration, let remaining, let lastPower):
            writer.uint32(duration)
            writer.uint32(remaining)
            writer.uint8(lastPower ? 1 : 0)
        case .stateHevCycleConfiguration(let indication, let duration):
            writer.uint8(indication ? 1 : 0)
            writer.uint32(duration)
        case .stateLastHevCycleResult(let result):
            writer.uint8(result)
        case .stateZone(let count, let index, let color):
            writer.uint8(count)
            writer.uint8(index)
            color.write(&writer)
        case .stateMultiZone(let count, let index, let colors):
            writer.uint8(count)
            writer.uint8(index)
            for color in colors.prefix(8) { color.write(&writer) }
            writer.zeros(8 * (8 - min(8, colors.count)))
        case .stateExtendedColorZones(let count, let index, let colors):
            writer.uint16(count)
            writer.uint16(index)
            writer.uint8(UInt8(min(82, colors.count)))
            for color in colors.prefix(82) { color.write(&writer) }
            writer.zeros(8 * (82 - min(82, colors.count)))
        case .stateMultiZoneEffect, .stateDeviceChain, .state64, .stateTileEffect:
            writeMatrixOrEffect(&writer)
        case .stateUnhandled(let type):
            writer.uint16(type)
        }
    }
}
