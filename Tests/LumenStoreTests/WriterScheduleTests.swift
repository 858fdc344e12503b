import LumenModel
import Testing

@testable import LumenStore

/// The writer thread's schedule, decided from the store's shared state alone, so it is tested without
/// threads or a clock: when it commits, how long it sleeps, and who may ring it awake.
@Suite("Writer schedule")
struct WriterScheduleTests {
    let now = ContinuousClock.now

    func noted(_ shared: inout StateStore.Shared, since: ContinuousClock.Instant) {
        shared.mark += 1
        shared.pendingIndex[.home] = 0
        shared.pending = [.record(.home(name: "changed", roomIDs: []))]
        shared.pendingSince = since
    }

    @Test func whileChangesKeepComingAndWaitersCommitThemTheWriterNapsUnrung() {
        var shared = StateStore.Shared(generation: 0)
        // A waiter noted a change and committed it before the writer looked: nothing to do, but the mark moved.
        shared.mark = 1
        let step = shared.nextStep(now: now, durability: .full, relaxedDelay: .zero)
        #expect(step == .wait(StateStore.leaderGrace))
        #expect(shared.writer == .napping)
        // The next changes do not ring it; someone waiting for a commit does.
        var rang = shared.wakeWriter(for: .change)
        #expect(!rang)
        rang = shared.wakeWriter(for: .change)
        #expect(!rang)
        rang = shared.wakeWriter(for: .due)
        #expect(rang)
        #expect(shared.writerWakeups == 1)
    }

    @Test func afterAQuietGracePeriodTheWriterSleepsUntilTheNextChangeRingsIt() {
        var shared = StateStore.Shared(generation: 0)
        shared.mark = 1
        _ = shared.nextStep(now: now, durability: .full, relaxedDelay: .zero)
        shared.writer = .working
        // Nothing changed during the nap: it sleeps for good.
        let step = shared.nextStep(now: now, durability: .full, relaxedDelay: .zero)
        #expect(step == .wait(.seconds(1)))
        #expect(shared.writer == .idle)
        // One ring serves every change until it sleeps again.
        var rang = shared.wakeWriter(for: .change)
        #expect(rang)
        rang = shared.wakeWriter(for: .change)
        #expect(!rang)
        rang = shared.wakeWriter(for: .due)
        #expect(!rang)
        #expect(shared.writerWakeups == 1)
    }

    @Test func relaxedDurabilityNeverNapsForWaitersCommits() {
        var shared = StateStore.Shared(generation: 0)
        shared.mark = 1
        let step = shared.nextStep(now: now, durability: .relaxed, relaxedDelay: .zero)
        #expect(step == .wait(.seconds(1)))
        #expect(shared.writer == .idle)
    }

    @Test(arguments: [Durability.full, .relaxed])
    func aChangeNobodyWaitsForIsCommittedOnceItsDelayHasPassed(_ durability: Durability) {
        var shared = StateStore.Shared(generation: 0)
        let delay = durability == .full ? StateStore.leaderGrace : .milliseconds(200)
        noted(&shared, since: now)
        var step = shared.nextStep(now: now, durability: durability, relaxedDelay: .milliseconds(200))
        #expect(step == .wait(delay))
        #expect(shared.writer == .napping)
        step = shared.nextStep(now: now + delay, durability: durability, relaxedDelay: .milliseconds(200))
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
