import Glibc
import LumenModel
import LumenServer
import LumenSimulation
import LumenTestSupport
import Testing

/// Where the home's queued work runs when lumend's loops run it: on the loop of the task that asked.
@Suite("The home's work on event loops", .timeLimit(.minutes(1)))
struct HomeWorkplaceTests {
    @Test func aTaskOnALoopHasItsWorkOnTheHomeRunOnThatLoop() async throws {
        let loops = [EventLoop(name: "test-loop-1"), EventLoop(name: "test-loop-2")]
        let home = Home(
            fixture: try Fixture(json: Array(TestFixtures.instantHome.utf8)), clock: .virtual,
            workplaces: EventLoop.homeWorkplaces(fallback: nil))
        for loop in loops {
            let (caller, worker) = await Task(executorPreference: loop) {
                let caller = UInt(pthread_self())
                let worker = try? await home.withIsolation { _ in UInt(pthread_self()) }
                return (caller, worker)
            }.value
            #expect(worker == caller)
        }
        for loop in loops { await loop.shutDown() }
    }

    @Test func workAskedFromNoLoopRunsOnTheFallback() async throws {
        let fallback = EventLoop(name: "test-main-loop")
        let home = Home(
            fixture: try Fixture(json: Array(TestFixtures.instantHome.utf8)), clock: .virtual,
            workplaces: EventLoop.homeWorkplaces(fallback: fallback))
        let loopThread = await Task(executorPreference: fallback) { UInt(pthread_self()) }.value
        let worker = try await home.withIsolation { _ in UInt(pthread_self()) }
        #expect(worker == loopThread)
        await fallback.shutDown()
    }
}
