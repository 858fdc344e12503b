/// The longest spans of simulated time a client or a fixture may ask for, named once.
public enum SimulatedDurations {
    /// The longest a power cycle, a scan or a pending light's delay may last: an hour, in milliseconds. Longer
    /// is almost surely a unit mistake (seconds for milliseconds).
    public static let longestMs = 3_600_000.0
    /// ``longestMs`` as a range from zero.
    public static let milliseconds = 0.0...longestMs

    /// The longest transition a client may ask for: two hours, in milliseconds, longer than a Hue bridge takes (65535
    /// tenths of a second through v1, 100 minutes through v2), which automations ask for as a slow sunrise; a
    /// LIFX duration past it is cut to it. Settling the clock goes at most this far unless told otherwise.
    public static let longestTransitionMs = 7_200_000.0
    /// ``longestTransitionMs`` as a range from zero.
    public static let transitionMilliseconds = 0.0...longestTransitionMs

    /// The farthest the virtual clock moves at once, however it is moved (`advance {ms}`, or settling's
    /// `maxMs`): a day, in milliseconds.
    public static let longestAdvanceMs = 86_400_000.0
    /// ``longestAdvanceMs`` as a range from zero.
    public static let advanceMilliseconds = 0.0...longestAdvanceMs

    /// Why `ms`, given as `name`, is no way to move the clock, or `nil` when it is one.
    public static func advanceProblem(_ ms: Double, _ name: String) -> String? {
        guard !ms.isFinite || !advanceMilliseconds.contains(ms) else { return nil }
        return "\(name) must be from 0 to \(Int(longestAdvanceMs)) ms (a day), got \(JSONNumber(ms))"
    }
}
