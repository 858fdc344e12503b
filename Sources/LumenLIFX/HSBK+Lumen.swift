import LumenModel
import LumenProtocol
import LumenSimulation

/// How LIFX's HSBK reads as Lumen's state, and back (docs/lifx.md lists each rule with its source).
extension HSBK {
    /// The colour of a light in `state`, as a bulb of `kind` reports it: brightness scaled to 0–65535; a
    /// colour light showing a colour has its hue and saturation from its xy through sRGB, one showing a colour
    /// temperature (set last) is white, with no hue or saturation; the white point from its mireds, or on a light
    /// without colour temperature the Mini White's one white.
    init(_ state: LightState, kind: LightKind) {
        let level = kind.supports(.brightness) ? state.brightness : 100
        var hue: UInt16 = 0
        var saturation: UInt16 = 0
        if kind.supports(.color), !state.showsColorTemperature {
            let (h, s) = state.color.hueAndSaturation
            hue = UInt16((h * 65_535).rounded())
            saturation = UInt16((s * 65_535).rounded())
        }
        // A light without colour temperature is a Mini White (product 51), whose one white LIFX's product list
        // gives as its kelvin range: clients check a colour they send against that range.
        let kelvin =
            kind.supports(.colorTemperature)
            ? UInt16(min(9_000, max(1_500, (1_000_000 / Double(state.colorTemperature)).rounded())))
            : Self.miniWhiteKelvin
        self.init(
            hue: hue, saturation: saturation, brightness: UInt16((level / 100 * 65_535).rounded()), kelvin: kelvin)
    }

    /// The one white of the LIFX Mini White (product 51), as LIFX's product list gives it.
    static let miniWhiteKelvin: UInt16 = 2_700

    /// Whether `other` is the same colour, at whatever brightness.
    func hasSameColor(as other: HSBK) -> Bool {
        hue == other.hue && saturation == other.saturation && kelvin == other.kelvin
    }

    /// The colour `fraction` (0–1) of the way from this one to `target`, as a bulb fades: the hue the short way
    /// round the wheel, the rest in a straight line.
    func interpolated(to target: HSBK, by fraction: Double) -> HSBK {
        let t = min(max(fraction, 0), 1)
        func line(_ from: UInt16, _ to: UInt16) -> UInt16 {
            UInt16((Double(from) + (Double(to) - Double(from)) * t).rounded())
        }
        var turn = Int(target.hue) - Int(hue)
        if turn > 32_768 { turn -= 65_536 } else if turn < -32_768 { turn += 65_536 }
        let newHue = (Int(hue) + Int((Double(turn) * t).rounded()) + 65_536) % 65_536
        return HSBK(
            hue: UInt16(newHue), saturation: line(saturation, target.saturation),
            brightness: line(brightness, target.brightness), kelvin: line(kelvin, target.kelvin))
    }

    /// What setting this colour asks of a light of `kind`: its brightness, to a ten-thousandth of a percent,
    /// fine enough to read back as sent (a LIFX brightness below 1 % is the dimmest level, the bulb staying
    /// on); the kelvin as its colour temperature, kept as a bulb keeps it; and, saturated, a colour from hue and
    /// saturation (unsaturated, a colour light shows the kelvin's white).
    func change(for kind: LightKind) -> LightChange {
        var change = LightChange()
        if kind.supports(.brightness) {
            change.brightness = max(1, (Double(brightness) / 65_535 * 1_000_000).rounded() / 10_000)
        }
        if kind.supports(.colorTemperature) {
            change.colorTemperature = CIEColor.mireds(
                kelvin: Double(kelvin), in: DeviceFamily.lifx.colorTemperatureRange)
        }
        if saturation > 0, kind.supports(.color) {
            change.color = CIEColor(hue: Double(hue) / 65_535, saturation: Double(saturation) / 65_535)
        }
        return change
    }
}
