import LumenModel
import LumenProtocol

/// The home's bridge as a sender of commands: its budget of light and group commands a second across all
/// its lights, and the random stream of its own choices (a group broadcast's latency, discovery's jitter).
///
/// A value the home owns and asks before a command goes through the bridge:
///
/// ```swift
/// var bridge = BridgeBudget(BridgeSettings(), seed: 7)
/// try bridge.take(group: false, at: now)  // throws `busy` beyond the budget
/// ```
struct BridgeBudget: Sendable {
    /// The budget: commands a second.
    var settings: BridgeSettings
    /// The token buckets for light commands and for group commands, once the bridge has been sent some.
    private var lightBucket: RateBucket?
    private var groupBucket: RateBucket?
    /// The random stream of the bridge's own choices.
    var random: SeededRandom

    /// A bridge with `settings`, its random stream drawn from the home's `seed`.
    init(_ settings: BridgeSettings, seed: UInt64) {
        self.settings = settings
        random = SeededRandom(seed: seed, label: "bridge")
    }

    /// Takes one light command (`group` false) or one group command from the budget at `now` (simulation
    /// microseconds); each budget holds one second's worth, at least one command, and refills as time passes.
    /// - Throws: ``LumenError`` `busy` when the bridge has none left, as a Hue bridge answers a flood.
    mutating func take(group: Bool, at now: Int64) throws(LumenError) {
        let rate = group ? settings.groupCommandsPerSecond : settings.lightCommandsPerSecond
        let taken =
            group
            ? RateBucket.take(from: &groupBucket, rate: rate, at: now)
            : RateBucket.take(from: &lightBucket, rate: rate, at: now)
        guard !taken else { return }
        let what = group ? "group command" : "light command"
        throw LumenError(
            .busy,
            "the bridge accepts at most \(JSONNumber(rate)) \(what)\(rate == 1 ? "" : "s") a second across its lights; "
                + "slow down and retry",
            data: ["bridge": .string(group ? "groups" : "lights")])
    }
}
