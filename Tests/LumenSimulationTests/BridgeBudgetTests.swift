import LumenModel
import LumenProtocol
import Testing

@testable import LumenSimulation

/// The bridge's command budget, without a home: light and group commands a second, refilled as time passes.
@Suite("The bridge's budget")
struct BridgeBudgetTests {
    @Test func aFullSecondOfLightCommandsFitsAndTheNextIsBusyUntilTheBudgetRefills() throws {
        var bridge = BridgeBudget(BridgeSettings(lightCommandsPerSecond: 10, groupCommandsPerSecond: 1), seed: 1)
        for _ in 0..<10 { try bridge.take(group: false, at: 0) }
        let error = #expect(throws: LumenError.self) { try bridge.take(group: false, at: 0) }
        #expect(error?.code == .busy)
        #expect(error?.data["bridge"] == .string("lights"))
        // A tenth of a second brings back one command, and only one.
        #expect(throws: LumenError.self) { try bridge.take(group: false, at: 99_999) }
        try bridge.take(group: false, at: 199_999)
        #expect(throws: LumenError.self) { try bridge.take(group: false, at: 199_999) }
    }

    @Test func groupCommandsHaveABudgetOfTheirOwn() throws {
        var bridge = BridgeBudget(BridgeSettings(lightCommandsPerSecond: 10, groupCommandsPerSecond: 1), seed: 1)
        try bridge.take(group: true, at: 0)
        let error = #expect(throws: LumenError.self) { try bridge.take(group: true, at: 500_000) }
        #expect(error?.data["bridge"] == .string("groups"))
        #expect(error?.message.contains("1 group command a second") == true)
        // The light budget is untouched by the group's.
        for _ in 0..<10 { try bridge.take(group: false, at: 500_000) }
        try bridge.take(group: true, at: 1_000_000)
    }

    @Test func aBudgetBelowOneASecondStillHoldsOneCommand() throws {
        var bridge = BridgeBudget(BridgeSettings(lightCommandsPerSecond: 0.5, groupCommandsPerSecond: 1), seed: 1)
        try bridge.take(group: false, at: 0)
        #expect(throws: LumenError.self) { try bridge.take(group: false, at: 1_999_999) }
        try bridge.take(group: false, at: 2_000_000)
    }

    @Test func newSettingsApplyToTheBucketsAlreadyUnderWay() throws {
        var bridge = BridgeBudget(BridgeSettings(lightCommandsPerSecond: 1, groupCommandsPerSecond: 1), seed: 1)
        try bridge.take(group: false, at: 0)
        bridge.settings.lightCommandsPerSecond = 100
        // Empty still, the bucket refills at the new rate.
        #expect(throws: LumenError.self) { try bridge.take(group: false, at: 0) }
        try bridge.take(group: false, at: 10_000)
    }

    @Test func theBridgesRandomStreamIsTheHomesSeedUnderItsOwnLabel() {
        var bridge = BridgeBudget(BridgeSettings(), seed: 42)
        var expected = LumenSimulation.SeededRandom(seed: 42, label: "bridge")
        for _ in 0..<4 { #expect(bridge.random.next() == expected.next()) }
    }

    @Test func aMissingBucketStartsFullAndHoldsOneSecondsWorth() {
        var bucket: RateBucket?
        for _ in 0..<3 { #expect(RateBucket.take(from: &bucket, rate: 3, at: 0)) }
        #expect(!RateBucket.take(from: &bucket, rate: 3, at: 0))
        // Ten seconds idle refill one second's worth, no more.
        for _ in 0..<3 { #expect(RateBucket.take(from: &bucket, rate: 3, at: 10_000_000)) }
        #expect(!RateBucket.take(from: &bucket, rate: 3, at: 10_000_000))
    }
}
