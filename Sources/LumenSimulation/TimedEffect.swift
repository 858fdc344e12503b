/// A light's own effect that runs for the time it is given and lands, as a Hue bulb's sunrise or sunset does:
/// played through the light's fades, and ended, every fade where it stands, by the next command the light takes.
package struct TimedEffect: Sendable, Hashable {
    /// What a timed effect does.
    package enum Kind: String, Sendable, Hashable {
        /// Comes on at the dimmest, warmest white and rises to full brightness (the home's dawn, wherever the light
        /// was).
        case sunrise
        /// Dims from where the light is down to off.
        case sunset
    }

    /// What it does.
    package var kind: Kind
    /// How long it was given to run, in milliseconds.
    package var durationMs: Double

    /// The longest a timed effect runs: six hours, in milliseconds, as a Hue bridge takes it. Past the longest
    /// transition a client may ask for (``SimulatedDurations/longestTransitionMs``): the effect's fades are the
    /// light's own, not a client's.
    package static let longestMs = 21_600_000.0

    /// An effect of `kind` that runs for `durationMs` milliseconds.
    package init(_ kind: Kind, durationMs: Double) {
        self.kind = kind
        self.durationMs = durationMs
    }
}
