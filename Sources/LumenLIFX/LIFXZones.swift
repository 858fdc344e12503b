/// A strip's zones (LIFX Z, Beam): the colours clients gave them, over the light's own colour.
///
/// Lumen's light has one colour. A client that gives every zone the same colour changes the light, as `SetColor`
/// does; zones given different colours are kept here, beside the light, together with the light's colour when
/// they were set (``base``): once the light's colour changes (a `SetColor`, the scope protocol, the Hue bridge),
/// every zone follows the light again, as a strip does when given one colour.
struct LIFXZones: Sendable, Hashable {
    /// How many zones a strip has: a two-metre LIFX Z's.
    static let count = 16

    /// The light's colour when the zones were set.
    var base: HSBK
    /// The zones' colours as last applied.
    var colors: [HSBK]
    /// Colours set to be applied later (`apply` 0), over ``colors``.
    var pending: [HSBK]?
    /// The fade under way to ``colors``, if any.
    var fade: Fade?

    /// A fade of several colours (a strip's zones, a matrix's pixels) from those they showed to new ones, each on
    /// its own, on the simulation clock.
    struct Fade: Sendable, Hashable {
        /// The colours shown when it began.
        var from: [HSBK]
        /// When it began, in simulation milliseconds.
        var startMs: Double
        /// How long it takes.
        var durationMs: Double

        /// A fade from `from` to `target` starting at `nowMs` over `durationMs`; `nil` when there is nothing to
        /// fade (no time, or no change).
        static func from(_ from: [HSBK], to target: [HSBK], atMs nowMs: Double, durationMs: Double) -> Fade? {
            durationMs > 0 && from != target ? Fade(from: from, startMs: nowMs, durationMs: durationMs) : nil
        }

        /// The colours shown at `nowMs` on the way to `target`: each the share of the way from where it began that
        /// the fade's time has run, as a strip fades each zone on its own.
        func shown(towards target: [HSBK], atMs nowMs: Double) -> [HSBK] {
            guard durationMs > 0, nowMs < startMs + durationMs, from.count == target.count else { return target }
            let fraction = (nowMs - startMs) / durationMs
            return zip(from, target).map { $0.interpolated(to: $1, by: fraction) }
        }
    }

    /// The zones' colours at `nowMs`, part of the way there while they fade.
    func shown(atMs nowMs: Double) -> [HSBK] { fade?.shown(towards: colors, atMs: nowMs) ?? colors }

    /// Shows `newColors` from `nowMs`, faded to over `durationMs` from what the zones show then.
    mutating func show(_ newColors: [HSBK], atMs nowMs: Double, durationMs: Double) {
        fade = Fade.from(shown(atMs: nowMs), to: newColors, atMs: nowMs, durationMs: durationMs)
        colors = newColors
    }

    /// The zones now of a strip whose light shows `light`, from those `kept` when they were set: kept while the
    /// light shows the same colour, whatever its level (a fade on or off moves the level, not the zones).
    static func current(_ kept: LIFXZones?, light: HSBK) -> LIFXZones {
        if let kept, kept.base.hasSameColor(as: light) { return kept }
        return LIFXZones(base: light, colors: Array(repeating: light, count: count), pending: nil, fade: nil)
    }

    /// Sets the zones from `index` on to `newColors`, as `apply` says: 0 keeps them for later; 1 applies them
    /// with those kept; 2 applies only those kept, leaving `newColors` out.
    /// - Returns: the zones' colours to show now; `nil` when nothing is applied yet.
    mutating func set(_ newColors: [HSBK], from index: Int, apply: UInt8) -> [HSBK]? {
        var placed = pending ?? colors
        if apply != 2 {
            for (offset, color) in newColors.enumerated() where index + offset < Self.count {
                placed[index + offset] = color
            }
        }
        if apply == 0 {
            pending = placed
            return nil
        }
        pending = nil
        return placed
    }
}
