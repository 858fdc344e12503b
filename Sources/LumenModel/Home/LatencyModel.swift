/// How long a device takes to apply a command, as a distribution of delays in milliseconds.
///
/// Real bulbs do not answer in constant time: Thread and Zigbee radios have long-tailed delays. A latency
/// model is sampled once per command with the light's own seeded random generator.
public enum LatencyModel: Sendable, Hashable {
    /// Always `ms`.
    case fixed(ms: Double)
    /// Evenly spread between `minMs` and `maxMs`.
    case uniform(minMs: Double, maxMs: Double)
    /// Normal around `meanMs`, cut to `[0, maxMs]`.
    case normal(meanMs: Double, stddevMs: Double, maxMs: Double?)
    /// Log-normal with median `medianMs` and shape `sigma`, cut at `maxMs`: the shape of radio latencies.
    case logNormal(medianMs: Double, sigma: Double, maxMs: Double?)

    /// A named preset.
    public enum Preset: String, Sendable, CaseIterable {
        /// LIFX bulbs over Thread, as measured: p50 ≈ 44 ms, p95 ≈ 94 ms, max ≈ 330 ms.
        case lifxThread = "lifx-thread"
        /// Hue bulbs behind a Zigbee bridge: p50 ≈ 90 ms, p95 ≈ 190 ms, max 600 ms.
        case hueZigbee = "hue-zigbee"
        /// No delay: for tests.
        case instant

        /// The model this preset stands for.
        public var model: LatencyModel {
            switch self {
            // σ = ln(94/44) / 1.645 puts the 95th percentile at 94 ms.
            case .lifxThread: .logNormal(medianMs: 44, sigma: 0.4613, maxMs: 330)
            // σ = ln(190/90) / 1.645.
            case .hueZigbee: .logNormal(medianMs: 90, sigma: 0.4543, maxMs: 600)
            case .instant: .fixed(ms: 0)
            }
        }
    }

    /// The model of a preset.
    public static func preset(_ preset: Preset) -> LatencyModel { preset.model }

    /// Draws one delay in milliseconds.
    public func sample(using random: inout some RandomNumberGenerator) -> Double {
        switch self {
        case .fixed(let ms):
            return ms
        case .uniform(let minMs, let maxMs):
            return minMs == maxMs ? minMs : Double.random(in: minMs...maxMs, using: &random)
        case .normal(let mean, let stddev, let maxMs):
            let value = mean + stddev * Self.standardNormal(using: &random)
            return min(max(0, value), maxMs ?? .infinity)
        case .logNormal(let median, let sigma, let maxMs):
            let value = median * Foundation_exp(sigma * Self.standardNormal(using: &random))
            return min(value, maxMs ?? .infinity)
        }
    }

    /// A standard normal draw (Box–Muller), using two uniform draws so the stream position is predictable.
    static func standardNormal(using random: inout some RandomNumberGenerator) -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &random)
        let u2 = Double.random(in: 0..<1, using: &random)
        return (-2 * Foundation_log(u1)).squareRoot() * Foundation_cos(2 * .pi * u2)
    }
}
