import LumenModel

/// A power fade a bulb took (`SetLightPower` with a duration), as firmware reports it: the power level moves
/// towards 0 or 65535 over the fade while the colour (the HSBK, the zones, the pixels) stays as it lands.
///
/// Lumen's light fades its level instead (up from the dimmest, or down to it and then off); the bulb reports that
/// fade as its power while the light still lands where the bulb's message left it (``landing``).
struct LIFXPowerFade: Sendable, Hashable {
    /// Whether it fades on (else off).
    var isOn: Bool
    /// The level it starts from: 0 or 65535, or where the fade it turned back, or carried on, had got to.
    var fromLevel: Double
    /// When the bulb took it, in simulation milliseconds.
    var startMs: Double
    /// How long it takes.
    var durationMs: Double
    /// Where the light lands once the fade is done, as the bulb took it.
    var landing: LightState

    /// When it is done.
    var endMs: Double { startMs + durationMs }

    /// The level it ends on.
    var toLevel: Double { isOn ? 65_535 : 0 }

    /// The power level `nowMs` into the fade: part of the way from ``fromLevel`` to ``toLevel`` as its time has
    /// run, never 0 while the light is on (it is on until a fade off lands, and from the start of a fade on).
    func level(atMs nowMs: Double) -> UInt16 {
        let run = durationMs > 0 ? min(max((nowMs - startMs) / durationMs, 0), 1) : 1
        let level = (fromLevel + (toLevel - fromLevel) * run).rounded()
        return UInt16(min(65_535, max(1, level)))
    }
}
