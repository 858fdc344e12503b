import LumenModel
import Testing

@testable import LumenStore

/// The writer's schedule, decided from the store's shared state alone, so it is tested without
/// a loop or a clock: when it commits, how long it sleeps, and who may wake it.
@Suite("Writer schedule")
struct WriterScheduleTests {
    let now = ContinuousClock.now

    func noted(_ shared: inout StateStore.Shared, since: ContinuousClock.Instant) {
        shared.mark += 1
        shared.pendingIndex[.entity(.home)] = 0
        shared.pending = [.record(.home(name: "changed", roomIDs: []))]
        shared.pendingSince = since
    }

    @Test(arguments: [Durability.full, .relaxed])
    func withNothingToDoTheWriterSleepsUntilAChangeWakesIt(_ durability: Durability) {
        var shared = StateStore.Shared(generation: 0)
        let step = shared.nextStep(now: now, durability: durability, relaxedDelay: .zero)
        #expect(step == .idle)
        #expect(shared.writer == .idle)
        // One wake-up serves every change until it sleeps again.
        var woken = shared.wakeWriter(for: .change)
        #expect(woken)
        woken = shared.wakeWriter(for: .change)
        #expect(!woken)
        woken = shared.wakeWriter(for: .due)
        #expect(!woken)
        #expect(shared.writerWakeups == 1)
    }

    @Test func inFullDurabilityAChangeIsCommittedAtOnce() {
        var shared = StateStore.Shared(generation: 0)
        noted(&shared, since: now)
        #expect(shared.nextStep(now: now, durability: .full, relaxedDelay: .milliseconds(200)) == .commit)
    }

    @Test func relaxedDurabilityLetsChangesGatherUnlessSomeoneWaits() {
        var shared = StateStore.Shared(generation: 0)
        noted(&shared, since: now)
        var step = shared.nextStep(now: now, durability: .relaxed, relaxedDelay: .milliseconds(200))
        #expect(step == .wait(.milliseconds(200)))
        #expect(shared.writer == .napping)
        // A napping writer is not woken by more changes, only by what is due.
        var woken = shared.wakeWriter(for: .change)
        #expect(!woken)
        woken = shared.wakeWriter(for: .due)
        #expect(woken)
        step = shared.nextStep(now: now + .milliseconds(200), durability: .relaxed, relaxedDelay: .milliseconds(200))
        #expect(step == .commit)
    }

    @Test func aSnapshotAskedForIsWrittenAtOnceAndAStopComesFirst() {
        var shared = StateStore.Shared(generation: 0)
        noted(&shared, since: now)
        shared.snapshotWanted = true
        var step = shared.nextStep(now: now, durability: .relaxed, relaxedDelay: .seconds(1))
        #expect(step == .commit)
        shared.stopping = true
        step = shared.nextStep(now: now, durability: .relaxed, relaxedDelay: .seconds(1))
        #expect(step == .stop)
    }

    @Test func afterAFailureTheWriterWaitsOutTheBackoffThenRetries() {
        var shared = StateStore.Shared(generation: 0)
        shared.lastError = FileSystemError("fdatasync", "state.journal", errno: 5)
        shared.retryAt = now + .milliseconds(100)
        var step = shared.nextStep(now: now, durability: .full, relaxedDelay: .zero)
        #expect(step == .wait(.milliseconds(100)))
        #expect(shared.writer == .napping)
        step = shared.nextStep(now: now + .milliseconds(100), durability: .full, relaxedDelay: .zero)
        #expect(step == .commit)
    }
}
