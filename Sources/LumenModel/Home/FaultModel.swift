/// How a device misbehaves.
public struct FaultModel: Sendable, Hashable {
    /// The chance, 0–1, that a command is lost and times out.
    public var dropProbability: Double
    /// How long a command waits for a device that does not answer before it fails, in milliseconds.
    public var timeoutMs: Double
    /// The most commands a second the device accepts (real LIFX bulbs take about 20); `nil` for no limit.
    public var rateLimitPerSecond: Double?

    /// A fault model.
    public init(dropProbability: Double = 0, timeoutMs: Double = 2_000, rateLimitPerSecond: Double? = nil) {
        self.dropProbability = dropProbability
        self.timeoutMs = timeoutMs
        self.rateLimitPerSecond = rateLimitPerSecond
    }

    /// A device that never misbehaves.
    public static let none = FaultModel()
}

/// A fault that starts and ends at set times, so a scenario can script a flaky network.
public struct ScheduledFault: Sendable, Hashable {
    /// What happens.
    public enum Kind: String, Sendable, CaseIterable {
        /// The light cannot be reached: commands fail after the timeout, `isReachable` is false.
        case unreachable
        /// The light loses power: it is unreachable, then comes back per its power-on behaviour.
        case powerCycle
    }

    /// The light affected.
    public var light: LightID
    /// What happens.
    public var kind: Kind
    /// When it starts, in milliseconds of simulation time.
    public var fromMs: Double
    /// When it ends.
    public var untilMs: Double

    /// A scheduled fault.
    public init(light: LightID, kind: Kind, fromMs: Double, untilMs: Double) {
        self.light = light
        self.kind = kind
        self.fromMs = fromMs
        self.untilMs = untilMs
    }
}
