import Dispatch
import Foundation
import Glibc
import LumenModel
import LumenProtocol
import Synchronization
import Testing

@testable import LumenSimulation

/// The home's executor: work made at once on the caller's thread when the actor is free, queued jobs run by
/// the workplaces it was given, one at a time.
@Suite("The home's executor")
struct HomeExecutorTests {
    /// Counts the drains handed to it, and runs them on Dispatch's threads.
    final class CountingWorkplace: HomeWorkplace {
        let drains = Atomic<Int>(0)

        func runHomeWork(_ block: @escaping @Sendable () -> Void) {
            drains.add(1, ordering: .relaxed)
            DispatchQueue.global().async(execute: block)
        }

        /// Every job queued from a test's threads (which have no workplace of their own) runs here.
        var workplaces: HomeWorkplaces { HomeWorkplaces(current: { nil }, fallback: self) }
    }

    /// Keeps the drains handed to it until told to run them.
    final class HeldWorkplace: HomeWorkplace {
        let held = Mutex<[@Sendable () -> Void]>([])

        func runHomeWork(_ block: @escaping @Sendable () -> Void) { held.withLock { $0.append(block) } }

        func runAll() {
            for block in held.withLock({ blocks in
                defer { blocks = [] }
                return blocks
            }) { block() }
        }

        var workplaces: HomeWorkplaces { HomeWorkplaces(current: { nil }, fallback: self) }
    }

    @Test func workIsMadeAtOnceOnTheCallersThreadWhenTheActorIsFree() throws {
        let runner = CountingWorkplace()
        let home = Home(
            fixture: try Fixture(json: Array(singleLight().utf8)), clock: .real, workplaces: runner.workplaces)
        let caller = UInt(pthread_self())
        let made = try home.now { home throws(LumenError) -> (UInt, Bool, Result<LightState, LumenError>?) in
            let ticket = try home.submit(LightChange(isOn: true), to: "bulb")
            return (UInt(pthread_self()), home.executor.isHeldByCurrentThread, ticket.settledResult)
        }
        let (thread, held, result) = try #require(made)
        #expect(thread == caller)
        #expect(held)
        #expect(try result?.get().isOn == true, "an instant light applied it before now returned")
        #expect(!home.executor.isHeldByCurrentThread, "let go on return")
        #expect(runner.drains.load(ordering: .relaxed) == 0, "nothing was queued")
    }

    @Test func anErrorInTheWorkIsThrownToTheCaller() throws {
        let home = Home(fixture: try Fixture(json: Array(singleLight().utf8)), clock: .virtual)
        #expect(throws: LumenError.self) {
            _ = try home.now { home throws(LumenError) in try home.submit(LightChange(isOn: true), to: "nothing") }
        }
        #expect(!home.executor.isHeldByCurrentThread)
    }

    @Test func workIsRefusedWhileTheActorIsHeld() async throws {
        let home = Home(fixture: try Fixture(json: Array(singleLight().utf8)), clock: .virtual)
        // Held by a job (the task's call on the actor): asked meanwhile, even from that thread, it says busy.
        let refused = try await home.withIsolation { home in
            let inner = try? home.now { _ in 1 }
            return inner == nil && home.executor.isHeldByCurrentThread
        }
        #expect(refused)
        #expect(try home.now { _ in 2 } == 2, "free again once the job is done")
    }

    @Test func aJobQueuedWhileWorkHoldsTheActorRunsOnceItIsLetGo() async throws {
        let runner = CountingWorkplace()
        let home = Home(
            fixture: try Fixture(json: Array(singleLight().utf8)), clock: .virtual, workplaces: runner.workplaces)
        let queued = try home.now { home -> Task<Int, Never> in
            // Isolated to the home like the closure it is made in: its first job is queued on the actor.
            Task { home.lightCount }
        }
        let task = try #require(queued)
        #expect(await task.value == 1)
        #expect(runner.drains.load(ordering: .relaxed) >= 1, "the job was run by a drain the runner was handed")
    }

    @Test func jobsQueuedBeforeWorkMadeAtOnceRunFirst() async throws {
        let runner = HeldWorkplace()
        let home = Home(
            fixture: try Fixture(json: Array(singleLight().utf8)), clock: .virtual, workplaces: runner.workplaces)
        let order = Mutex<[String]>([])
        // Queued while the actor is held; its drain is handed to the runner, which keeps it.
        let task = try #require(
            try home.now { home in
                Task {
                    _ = home.lightCount
                    order.withLock { $0.append("queued job") }
                }
            })
        #expect(runner.held.withLock { $0.count } == 1)
        // The actor is free, with a job waiting for a drain that has not started: work made now runs it first.
        let made: Void? = try home.now { _ in order.withLock { $0.append("work made now") } }
        #expect(made != nil)
        await task.value
        #expect(order.withLock { $0 } == ["queued job", "work made now"])
        runner.runAll()  // the drain finds nothing left
    }

    @Test func queuedJobsAndWorkMadeAtOnceNeverOverlap() async throws {
        let home = Home(fixture: try Fixture(json: Array(singleLight().utf8)), clock: .virtual)
        final class Watch: Sendable {
            let order = Mutex<[Int]>([])
            let inside = Atomic<Int>(0)
            let overlapped = Atomic<Bool>(false)

            func enter() {
                if inside.add(1, ordering: .relaxed).newValue > 1 { overlapped.store(true, ordering: .relaxed) }
            }

            func leave() { inside.subtract(1, ordering: .relaxed) }
        }
        let watch = Watch()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    try? await home.withIsolation { _ in
                        watch.enter()
                        watch.order.withLock { $0.append(index) }
                        watch.leave()
                    }
                }
                // Work made at once competes with the queued jobs; it never overlaps them either.
                _ = try? home.now { _ in
                    watch.enter()
                    watch.leave()
                }
            }
        }
        let overlaps = watch.overlapped.load(ordering: .relaxed)
        #expect(!overlaps)
        #expect(watch.order.withLock { $0.count } == 200)
    }
}

/// A thread that finds the actor held by another thread's work made at once waits a moment for it, not longer.
@Suite("The home's executor, held at once by another thread", .timeLimit(.minutes(1)))
struct HomeExecutorWaitTests {
    /// Runs `body` on a thread of its own and returns at once.
    static func onThread(_ body: @escaping @Sendable () -> Void) {
        Thread.detachNewThread(body)
    }

    @Test func aThreadThatFindsTheActorHeldAtOnceWaitsForItToBeLetGo() {
        let executor = HomeExecutor(atOnceWait: .seconds(60))
        let second = Atomic<Int>(0)  // 0: not yet, 1: made at once, 2: refused
        let entered = executor.tryRunNow {
            HomeExecutorWaitTests.onThread {
                second.store(executor.tryRunNow({}) ? 1 : 2, ordering: .sequentiallyConsistent)
            }
            // Let go only once the other thread waits for it: without the wait it would have been refused.
            while executor.waiting.load(ordering: .sequentiallyConsistent) == 0,
                second.load(ordering: .sequentiallyConsistent) == 0
            {}
        }
        #expect(entered)
        while second.load(ordering: .sequentiallyConsistent) == 0 {}
        #expect(second.load(ordering: .sequentiallyConsistent) == 1, "it waited and made its work at once")
    }

    @Test func aThreadThatWaitsLongerThanAHoldOffersItsCoreUntilTheActorIsLetGo() {
        let offers = Atomic<Int>(0)
        let executor = HomeExecutor(
            atOnceWait: .seconds(5), spinBeforeYielding: .microseconds(1),
            yieldCore: { offers.add(1, ordering: .sequentiallyConsistent) })
        let second = Atomic<Int>(0)  // 0: not yet, 1: made at once, 2: refused
        let entered = executor.tryRunNow {
            HomeExecutorWaitTests.onThread {
                second.store(executor.tryRunNow({}) ? 1 : 2, ordering: .sequentiallyConsistent)
            }
            // Let go only once the waiting thread has offered its core twice: a holder that lost its core.
            while offers.load(ordering: .sequentiallyConsistent) < 2,
                second.load(ordering: .sequentiallyConsistent) == 0
            {}
        }
        #expect(entered)
        while second.load(ordering: .sequentiallyConsistent) == 0 {}
        #expect(second.load(ordering: .sequentiallyConsistent) == 1, "it still waited, and made its work at once")
        #expect(offers.load(ordering: .sequentiallyConsistent) >= 2)
    }

    @Test func aThreadThatFindsTheActorFreeOffersNothing() {
        let offers = Atomic<Int>(0)
        let executor = HomeExecutor(yieldCore: { offers.add(1, ordering: .sequentiallyConsistent) })
        #expect(executor.tryRunNow {})
        #expect(offers.load(ordering: .sequentiallyConsistent) == 0)
    }

    @Test func theWaitIsBoundedWhenTheHolderDoesNotLetGo() {
        let executor = HomeExecutor(atOnceWait: .milliseconds(1))
        let second = Atomic<Int>(0)
        let entered = executor.tryRunNow {
            HomeExecutorWaitTests.onThread {
                second.store(executor.tryRunNow({}) ? 1 : 2, ordering: .sequentiallyConsistent)
            }
            // Held until the other thread has given up.
            while second.load(ordering: .sequentiallyConsistent) == 0 {}
        }
        #expect(entered)
        #expect(second.load(ordering: .sequentiallyConsistent) == 2, "refused once the moment passed")
        #expect(executor.waiting.load(ordering: .sequentiallyConsistent) == 0)
    }

    @Test func workMadeAtOnceThatCallsInAgainIsRefusedAtOnce() {
        // A wait for itself would outlast the suite's time limit.
        let executor = HomeExecutor(atOnceWait: .seconds(3_600))
        var inner: Bool?
        let entered = executor.tryRunNow { inner = executor.tryRunNow({}) }
        #expect(entered)
        #expect(inner == false, "its own thread holds it: no wait, which would never end")
    }

    @Test func aThreadDoesNotWaitForAJobsDrain() async throws {
        let home = Home(fixture: try Fixture(json: Array(singleLight().utf8)), clock: .virtual)
        let refused = Atomic<Int>(0)
        let sawWaiting = try await home.withIsolation { _ in
            HomeExecutorWaitTests.onThread {
                refused.store((try? home.now { _ in 1 }) == nil ? 1 : 2, ordering: .sequentiallyConsistent)
            }
            // The job holds the actor until the other thread has its answer, watching for it to wait.
            var saw = false
            while refused.load(ordering: .sequentiallyConsistent) == 0 {
                saw = saw || home.executor.waiting.load(ordering: .sequentiallyConsistent) > 0
            }
            return saw
        }
        #expect(refused.load(ordering: .sequentiallyConsistent) == 1)
        #expect(!sawWaiting, "told at once: a job may hold the actor for long")
    }
}
