import LumenModel
import LumenSimulation
import LumenTestSupport
import Testing

@Suite("Latency models")
struct LatencyModelTests {
    func percentile(_ sorted: [Double], _ p: Double) -> Double { sorted[Int(Double(sorted.count - 1) * p)] }

    @Test func lifxThreadPresetMatchesMeasuredThreadBulbs() {
        var random = SeededRandom(seed: 42)
        let samples = (0..<20_000).map { _ in LatencyModel.preset(.lifxThread).sample(using: &random) }.sorted()
        let p50 = percentile(samples, 0.5)
        let p95 = percentile(samples, 0.95)
        #expect(abs(p50 - 44) / 44 < 0.10, "p50 \(p50)")
        #expect(abs(p95 - 94) / 94 < 0.10, "p95 \(p95)")
        #expect(samples.last! <= 330)
    }

    @Test func fixedAndUniformStayInTheirBounds() {
        var random = SeededRandom(seed: 1)
        #expect(LatencyModel.fixed(ms: 300).sample(using: &random) == 300)
        for _ in 0..<1_000 {
            let value = LatencyModel.uniform(minMs: 10, maxMs: 20).sample(using: &random)
            #expect((10...20).contains(value))
            #expect(LatencyModel.normal(meanMs: 5, stddevMs: 50, maxMs: 40).sample(using: &random) >= 0)
        }
    }

    @Test func instantIsZero() {
        var random = SeededRandom(seed: 1)
        #expect(LatencyModel.preset(.instant).sample(using: &random) == 0)
    }
}
