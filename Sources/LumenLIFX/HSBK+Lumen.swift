import LumenModel
import LumenProtocol
import LumenSimulation

/// How LIFX's HSBK reads as Lumen's state, and back (docs/lifx.md lists each rule with its source).
extension HSBK {
    /// The colour of a light of `model` in `state`, as its bulb reports it: brightness scaled to 0–65535; a
    /// colour light showing a colour has its hue and saturation from its xy through sRGB, one showing a colour
    /// temperature (set last) is white, with no hue or saturation; the white point from its mireds, within its
    /// product's kelvin range (``DeviceModel/lifxKelvinRange``): a light without colour temperature is a Mini
    /// White, whose range is its one white, 2,700 K.
    init(_ state: LightState, model: DeviceModel) {
        let kind = model.kind
        let level = kind.supports(.brightness) ? state.brightness : 100
        var hue: UInt16 = 0
        var saturation: UInt16 = 0
        if kind.supports(.color), !state.showsColorTemperature {
            let (h, s) = state.color.hueAndSaturation
            hue = UInt16((h * 65_535).rounded())
            saturation = UInt16((s * 65_535).rounded())
        }
        // Clients check a colour they send against the product's range, and send back what they read: a state
        // outside it (one an older lumend saved) reads as the nearer end, as the bulb would have taken it.
        let kelvin = model.lifxKelvinRange.clamping(Int((1_000_000 / Double(state.colorTemperature)).rounded()))
        self.init(
            hue: hue, saturation: saturation, brightness: UInt16((level / 100 * 65_535).rounded()),
            kelvin: UInt16(kelvin))
    }

    /// This colour as a bulb whose product takes the kelvins `range` (``DeviceModel/lifxKelvinRange``) takes it:
    /// a kelvin outside it as the nearer end.
    func keepingKelvin(to range: ClosedRange<Int>) -> HSBK {
        var kept = self
        kept.kelvin = UInt16(range.clamping(Int(kelvin)))
        return kept
    }

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
            // The bulb took the kelvin within its product's range (``keepingKelvin(to:)``), which lies in this.
            change.colorTemperature = CIEColor.mireds(kelvin: Double(kelvin), in: LightState.colorTemperatureRange)
        }
        if saturation > 0, kind.supports(.color) {
            change.color = CIEColor(hue: Double(hue) / 65_535, saturation: Double(saturation) / 65_535)
        }
        return change
    }
}
