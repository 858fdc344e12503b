import LumenModel

/// A small, fast, seedable random generator (SplitMix64), so a fixture's seed replays the same simulation.
///
/// Each light has its own stream, derived from the home's seed and the light's ID, so one light's traffic
/// never shifts the random choices of another.
package struct SeededRandom: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    /// A generator starting at `seed`.
    package init(seed: UInt64) { state = seed }

    /// A generator for the stream named `label` under `seed`; the same pair always gives the same stream.
    package init(seed: UInt64, label: String) {
        state = seed ^ FNV1a.hash(label.utf8)
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
