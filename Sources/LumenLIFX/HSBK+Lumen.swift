import LumenModel
import LumenProtocol
import LumenSimulation

/// How LIFX's HSBK reads as Lumen's state, and back (docs/lifx.md lists each rule with its source).
extension HSBK {
    /// The colour of a light in `state`, as a bulb of `kind` reports it: brightness scaled to 0–65535; a
    /// colour light showing a colour has its hue and saturation from its xy through sRGB, one showing a colour
    /// temperature (set last) is white, with no hue or saturation; the white point from its mireds.
    public init(_ state: LightState, kind: LightKind) {
        let level = kind.supports(.brightness) ? state.brightness : 100
        var hue: UInt16 = 0
        var saturation: UInt16 = 0
        if kind.supports(.color), !state.showsColorTemperature {
            let (h, s) = state.color.hueAndSaturation
            hue = UInt16((h * 65_535).rounded())
            saturation = UInt16((s * 65_535).rounded())
        }
        self.init(
            hue: hue, saturation: saturation, brightness: UInt16((level / 100 * 65_535).rounded()),
            kelvin: UInt16(min(9_000, max(1_500, (1_000_000 / Double(state.colorTemperature)).rounded()))))
    }

    /// Whether `other` is the same colour, at whatever brightness.
    func hasSameColor(as other: HSBK) -> Bool {
        hue == other.hue && saturation == other.saturation && kelvin == other.kelvin
    }

    /// What setting this colour asks of a light of `kind`: its brightness, to a ten-thousandth of a percent,
    /// fine enough to read back as sent (a LIFX brightness below 1 % is the dimmest level, the bulb staying
    /// on); the kelvin as its colour temperature, kept as a bulb keeps it; and, saturated, a colour from hue and
    /// saturation (unsaturated, a colour light shows the kelvin's white).
    public func change(for kind: LightKind) -> LightChange {
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
