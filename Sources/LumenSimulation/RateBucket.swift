/// A token bucket: what a rate limit counts commands with, a light's own or the bridge's.
struct RateBucket: Sendable {
    var tokens: Double
    var updatedAt: Int64

    /// Takes a token from a bucket refilled at `rate` a second and holding one second's worth (at least one);
    /// `false` when it has none. A missing bucket starts full.
    static func take(from bucket: inout RateBucket?, rate: Double, at now: Int64) -> Bool {
        let capacity = max(1, rate)
        var current = bucket ?? RateBucket(tokens: capacity, updatedAt: now)
        let elapsed = Double(now - current.updatedAt) / 1_000_000
        current.tokens = min(capacity, current.tokens + elapsed * rate)
        current.updatedAt = now
        defer { bucket = current }
        guard current.tokens >= 1 else { return false }
        current.tokens -= 1
        return true
    }
}
