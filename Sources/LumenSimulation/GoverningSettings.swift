import LumenModel

/// The settings that govern a light (its own, then its room's, then the home's), worked out once, with what
/// every command reads of them ready to read.
///
/// A light keeps a reference, so one that has not been sent a command yet costs a word; a command reads a
/// few fields through it rather than copying the settings out.
final class GoverningSettings: Sendable {
    /// The latency model (none set: instant).
    let latency: LatencyModel
    /// The latency in microseconds when the model is a fixed one, which draws no random number.
    let fixedLatencyMicros: Int64?
    /// The chance, 0–1, that the device drops a command.
    let dropProbability: Double
    /// How long a command to a device that does not answer waits before it fails, in microseconds.
    let timeoutMicros: Int64
    /// The most commands a second the device takes; `nil` for no limit.
    let rateLimitPerSecond: Double?
    /// What the device does with commands beyond its rate limit.
    let overload: OverloadBehavior
    /// What the light does with brightness and colour changes while off.
    let whileOff: OffBehavior
    /// What the light does when power returns.
    let powerOn: PowerOnBehavior
    /// The family it belongs to, which supplies what the settings leave unset.
    let family: DeviceFamily
    /// The network it is reached over.
    let network: LightNetwork

    /// The settings of a light made by `manufacturer`, with its family's defaults for what they leave unset.
    init(_ settings: DeviceSettings, manufacturer: String) {
        family = settings.effectiveFamily(manufacturer: manufacturer)
        latency = settings.latency ?? .fixed(ms: 0)
        fixedLatencyMicros = if case .fixed(let ms) = latency { Home.micros(ms) } else { nil }
        let faults = settings.faultModel
        dropProbability = faults.dropProbability
        timeoutMicros = Home.micros(faults.timeoutMs)
        rateLimitPerSecond = faults.rateLimitPerSecond ?? family.defaultRateLimitPerSecond
        overload = settings.overload ?? family.defaultOverload
        whileOff = settings.whileOff ?? family.defaultWhileOff
        powerOn = settings.powerOn ?? family.defaultPowerOn
        network = settings.network ?? family.defaultNetwork
    }
}
