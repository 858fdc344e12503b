/// The longest spans of simulated time a client or a fixture may ask for, named once.
public enum SimulatedDurations {
    /// The longest a transition, a power cycle, a scan or a pending light's delay may last: an hour, in
    /// milliseconds. Longer is almost surely a unit mistake (seconds for milliseconds).
    public static let longestMs = 3_600_000.0
    /// ``longestMs`` as a range from zero.
    public static let milliseconds = 0.0...longestMs
}
