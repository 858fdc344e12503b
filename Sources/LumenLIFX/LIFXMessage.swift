/// A colour as LIFX writes it: hue, saturation and brightness each 0–65535 (hue round the wheel), and a
/// white point in kelvin (1500–9000).
struct HSBK: Sendable, Hashable {
    var hue: UInt16
    var saturation: UInt16
    var brightness: UInt16
    var kelvin: UInt16
}

extension HSBK {
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

/// Which parts of a colour a message sets (`SetWaveformOptional`'s `set_hue`, `set_saturation`, …).
struct LIFXColorFields: OptionSet, Sendable, Hashable {
    /// The fields as bits: hue 1, saturation 2, brightness 4, kelvin 8.
    let rawValue: UInt8
    /// The hue (`set_hue`).
    static let hue = LIFXColorFields(rawValue: 1)
    /// The saturation (`set_saturation`).
    static let saturation = LIFXColorFields(rawValue: 2)
    /// The brightness (`set_brightness`).
    static let brightness = LIFXColorFields(rawValue: 4)
    /// The white point (`set_kelvin`).
    static let kelvin = LIFXColorFields(rawValue: 8)
    /// Every part of the colour, as `SetWaveform` sets it.
    static let all: LIFXColorFields = [.hue, .saturation, .brightness, .kelvin]
}

/// The LIFX LAN messages Lumen's bulbs read, with their fields (LIFX's "LAN Protocol: Packets").
enum LIFXRequest: Sendable, Hashable {
    case getService
    case getHostInfo
    case getHostFirmware
    case getWifiInfo
    case getWifiFirmware
    case getPower
    case setPower(level: UInt16)
    case getLabel
    case setLabel(String)
    case getVersion
    case getInfo
    /// Restart the bulb: it goes dark and comes back as after a power cut.
    case setReboot
    case getLocation
    /// Put the bulb in a location (`id`, a label, when it was set, as nanoseconds since 1970).
    case setLocation(id: [UInt8], label: String, updatedAt: UInt64)
    case getGroup
    /// Put the bulb in a group, as ``setLocation(id:label:updatedAt:)`` a location.
    case setGroup(id: [UInt8], label: String, updatedAt: UInt64)
    case echo([UInt8])
    case getColor
    case setColor(HSBK, durationMs: UInt32)
    case getLightPower
    case setLightPower(level: UInt16, durationMs: UInt32)
    /// A waveform towards its colour, drawn as ``LIFXWave`` says.
    case setWaveform(LIFXWave)
    /// ``setWaveform(_:)`` for only the parts of the colour in `fields`; the others stay as they are.
    case setWaveformOptional(LIFXWave, fields: LIFXColorFields)
    case getInfrared
    /// Set the infrared LEDs' level, 0–65535 (a product with infrared).
    case setInfrared(UInt16)
    case getHevCycle
    /// Start a HEV (germicidal light) cycle of `durationS` seconds (0: the configured length), or stop the one
    /// under way (a product with HEV).
    case setHevCycle(enable: Bool, durationS: UInt32)
    case getHevCycleConfiguration
    /// Set whether a cycle is shown by the light, and the length a cycle takes when started without one.
    case setHevCycleConfiguration(indication: Bool, durationS: UInt32)
    case getLastHevCycleResult
    /// The colours of zones `start` to `end` (a multizone product).
    case getColorZones(start: UInt8, end: UInt8)
    /// Zones `start` to `end` to `color`, now or later as `apply` says (0 keep for later, 1 now with those
    /// kept, 2 only those kept).
    case setColorZones(start: UInt8, end: UInt8, HSBK, durationMs: UInt32, apply: UInt8)
    case getExtendedColorZones
    /// The firmware effect a strip runs (Lumen's run none).
    case getMultiZoneEffect
    /// Zones from `index` on to `colors`, applied as ``setColorZones(start:end:_:durationMs:apply:)`` says.
    case setExtendedColorZones(durationMs: UInt32, apply: UInt8, index: UInt16, colors: [HSBK])
    /// Run a firmware effect on a strip (Lumen's keep and report it).
    case setMultiZoneEffect(LIFXEffect)
    /// The tiles in a matrix product's chain.
    case getDeviceChain
    /// Where the user placed tile `tile`, in tile widths (a matrix product).
    case setUserPosition(tile: UInt8, x: Float, y: Float)
    /// The colours of a rectangle of tiles (a matrix product).
    case get64(LIFXTileRect)
    /// A rectangle of tiles to `colors` (up to 64, row by row) over `durationMs` (a matrix product).
    case set64(LIFXTileRect, durationMs: UInt32, colors: [HSBK])
    /// A rectangle copied from one frame buffer to another on each tile named (a matrix product).
    case copyFrameBuffer(LIFXFrameCopy)
    /// The firmware effect a matrix runs.
    case getTileEffect
    /// Run a firmware effect on a matrix (Lumen's keep and report it).
    case setTileEffect(LIFXEffect)
    /// A message Lumen does not model: answered `StateUnhandled`.
    case unhandled(type: UInt16)

    /// The message of type `type` with `payload`.
    init(type: UInt16, payload: [UInt8]) {
        var reader = LIFXReader(payload)
        switch type {
        case 2: self = .getService
        case 12: self = .getHostInfo
        case 14: self = .getHostFirmware
        case 16: self = .getWifiInfo
        case 18: self = .getWifiFirmware
        case 20: self = .getPower
        case 21: self = .setPower(level: reader.uint16())
        case 23: self = .getLabel
        case 24: self = .setLabel(reader.text(32))
        case 32: self = .getVersion
        case 34: self = .getInfo
        case 38: self = .setReboot
        case 48: self = .getLocation
        case 49:
            let (id, label) = (reader.bytes(16), reader.text(32))
            self = .setLocation(id: id, label: label, updatedAt: reader.uint64())
        case 51: self = .getGroup
        case 52:
            let (id, label) = (reader.bytes(16), reader.text(32))
            self = .setGroup(id: id, label: label, updatedAt: reader.uint64())
        case 58: self = .echo(reader.bytes(64))
        case 101: self = .getColor
        case 102:
            reader.skip(1)
            let color = HSBK(&reader)
            self = .setColor(color, durationMs: reader.uint32())
        case 103:
            self = .setWaveform(LIFXWave(&reader))
        case 119:
            let wave = LIFXWave(&reader)
            var fields: LIFXColorFields = []
            for field in [LIFXColorFields.hue, .saturation, .brightness, .kelvin] where reader.uint8() != 0 {
                fields.insert(field)
            }
            self = .setWaveformOptional(wave, fields: fields)
        case 120: self = .getInfrared
        case 122: self = .setInfrared(reader.uint16())
        case 142: self = .getHevCycle
        case 143:
            let enable = reader.uint8() != 0
            self = .setHevCycle(enable: enable, durationS: reader.uint32())
        case 145: self = .getHevCycleConfiguration
        case 146:
            let indication = reader.uint8() != 0
            self = .setHevCycleConfiguration(indication: indication, durationS: reader.uint32())
        case 148: self = .getLastHevCycleResult
        case 501:
            let start = reader.uint8()
            let end = reader.uint8()
            let color = HSBK(&reader)
            let duration = reader.uint32()
            self = .setColorZones(start: start, end: end, color, durationMs: duration, apply: reader.uint8())
        case 502:
            let start = reader.uint8()
            self = .getColorZones(start: start, end: reader.uint8())
        case 510:
            let duration = reader.uint32()
            let apply = reader.uint8()
            let index = reader.uint16()
            let count = min(82, Int(reader.uint8()))
            let colors = (0..<count).map { _ in HSBK(&reader) }
            self = .setExtendedColorZones(durationMs: duration, apply: apply, index: index, colors: colors)
        case 507: self = .getMultiZoneEffect
        case 511: self = .getExtendedColorZones
        case 116: self = .getLightPower
        case 117: self = .setLightPower(level: reader.uint16(), durationMs: reader.uint32())
        default: self = Self.effectOrMatrixMessage(type: type, &reader) ?? .unhandled(type: type)
        }
    }

    /// Whether the device answers it with a state whatever the header asks (a `Get`, or a message it does not
    /// handle, answered `StateUnhandled`).
    var isQuery: Bool {
        switch self {
        case .getService, .getHostInfo, .getHostFirmware, .getWifiInfo, .getWifiFirmware, .getPower, .getLabel,
            .getVersion, .getInfo, .getLocation, .getGroup, .echo, .getColor, .getLightPower, .getInfrared,
            .getHevCycle, .getHevCycleConfiguration, .getLastHevCycleResult, .getColorZones, .getExtendedColorZones,
            .getMultiZoneEffect, .getDeviceChain, .get64, .getTileEffect, .unhandled:
            true
        default: false
        }
    }

    /// Whether carrying it out changes what the bulb keeps beside its light (``LIFXDeviceRecords``), which is
    /// saved with the home.
    var changesRecords: Bool {
        switch self {
        case .setColor, .setWaveform, .setWaveformOptional, .setLocation, .setGroup, .setInfrared, .setHevCycle,
            .setHevCycleConfiguration, .setColorZones, .setExtendedColorZones, .setUserPosition, .setTileEffect,
            .setMultiZoneEffect:
            true
        // Only the frame buffer shown is kept: the others do not outlive the bulb's power.
        case .set64(let rect, _, _): rect.frameBuffer == 0
        case .copyFrameBuffer(let copy): copy.destination == 0
        default: false
        }
    }

    /// Whether it gives the light a colour as a client wrote it, which the bulb keeps only when it differs from the
    /// one it kept.
    var givesColor: Bool {
        switch self {
        case .setColor, .setWaveform, .setWaveformOptional: true
        default: false
        }
    }

    /// The most bytes a bulb's state reply to it takes on the wire, header included: what an answer reserves of
    /// ``LIFXAnswerBudget`` for it before the state is known.
    var stateReplySize: Int {
        switch self {
        // Up to two StateMultiZone of eight zones each: Lumen's strips have 16.
        case .getColorZones, .setColorZones: return 2 * (LIFXPacket.headerSize + 66)
        case .getExtendedColorZones, .setExtendedColorZones: return LIFXPacket.headerSize + 5 + 82 * 8
        // A State64 for each tile asked, at most the longest chain's (the Tile's five).
        case .get64:
            return LIFXMatrixGeometry.mostTiles * (LIFXPacket.headerSize + 5 + 8 * LIFXMatrix.colorsPerMessage)
        default: break
        }
        let payload =
            switch self {
            case .getService: 5
            case .getHostInfo, .getWifiInfo: 14
            case .getHostFirmware, .getWifiFirmware: 20
            case .getPower, .setPower, .getLightPower, .setLightPower, .unhandled: 2
            case .getLabel, .setLabel: 32
            case .getVersion: 12
            case .getInfo: 24
            // A reboot has no state message: acknowledged, never answered with a state.
            case .setReboot: 0
            case .getLocation, .setLocation, .getGroup, .setGroup: 56
            case .echo: 64
            case .getColor, .setColor, .setWaveform, .setWaveformOptional: 52
            case .getInfrared, .setInfrared: 2
            case .getHevCycle, .setHevCycle: 9
            case .getHevCycleConfiguration, .setHevCycleConfiguration: 5
            // One byte, or `StateUnhandled`'s two from a product without HEV.
            case .getLastHevCycleResult: 2
            case .getMultiZoneEffect, .setMultiZoneEffect: 59
            case .getDeviceChain: 882
            // Neither has a state message: acknowledged, never answered with a state.
            case .setUserPosition, .set64, .copyFrameBuffer: 0
            case .getTileEffect, .setTileEffect: 187
            case .get64: 0
            case .getColorZones, .setColorZones, .getExtendedColorZones, .setExtendedColorZones: 0
            }
        return LIFXPacket.headerSize + payload
    }
}
