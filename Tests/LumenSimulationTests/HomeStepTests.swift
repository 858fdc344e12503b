import Glibc
import LumenModel
import LumenProtocol
import Testing

@testable import LumenSimulation

/// A step made once and taken at once, as a `set` takes its write: on the caller's thread with the actor held,
/// or not at all while it is busy.
@Suite("A home step")
struct HomeStepTests {
    /// Switches a light on and says where it ran.
    static let switchOn = HomeStep<LightID, (thread: UInt, held: Bool, isOn: Bool?)> {
        home, light throws(LumenError) in
        let receipt = try home.send(LightChange(isOn: true), to: light)
        guard case .settled(let result) = receipt else {
            return (UInt(pthread_self()), home.executor.isHeldByCurrentThread, nil)
        }
        return (UInt(pthread_self()), home.executor.isHeldByCurrentThread, try result.get().isOn)
    }

    @Test func isTakenAtOnceOnTheCallersThreadWithTheActorHeld() throws {
        let home = Home(fixture: try Fixture(json: Array(singleLight().utf8)), clock: .real)
        let taken = try #require(try home.now(Self.switchOn, "bulb"))
        #expect(taken.thread == UInt(pthread_self()))
        #expect(taken.held)
        #expect(taken.isOn == true, "an instant light took it before now returned")
        #expect(!home.executor.isHeldByCurrentThread, "let go on return")
    }

    @Test func anErrorInTheStepIsThrownToTheCaller() throws {
        let home = Home(fixture: try Fixture(json: Array(singleLight().utf8)), clock: .real)
        #expect(throws: LumenError.self) { _ = try home.now(Self.switchOn, "nothing") }
        #expect(!home.executor.isHeldByCurrentThread)
        #expect(try home.now(Self.switchOn, "bulb")?.isOn == true, "free again after the error")
    }

    @Test func isRefusedWhileTheActorIsHeldAndTakenByOneWhoHoldsIt() async throws {
        let home = Home(fixture: try Fixture(json: Array(singleLight().utf8)), clock: .real)
        let (refused, taken) = try await home.withIsolation { home throws(LumenError) in
            let refused = try home.now(Self.switchOn, "bulb") == nil
            return (refused, try Self.switchOn(home, "bulb"))
        }
        #expect(refused, "asked at once while a job holds the actor, it says busy")
        #expect(taken.held && taken.isOn == true, "taken by the job that holds the actor")
    }
}
