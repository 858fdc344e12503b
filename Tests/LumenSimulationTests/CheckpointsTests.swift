import LumenModel
import LumenProtocol
import Testing

@testable import LumenSimulation

/// The checkpoints a home keeps, without a home: their names, their limit, and what a missing one says.
@Suite("Checkpoints")
struct CheckpointsTests {
    static func fixture(_ name: String) -> Fixture {
        Fixture(id: "home", name: name, seed: 1, rooms: [])
    }

    @Test func aCheckpointKeepsItsFixtureUntilTakenAgainOrDropped() throws {
        var checkpoints = Checkpoints()
        try checkpoints.keep(Self.fixture("first"), as: "a")
        #expect(try checkpoints.fixture(named: "a").name == "first")
        try checkpoints.keep(Self.fixture("second"), as: "a")
        #expect(try checkpoints.fixture(named: "a").name == "second")
        #expect(checkpoints.count == 1)
        try checkpoints.drop("a")
        #expect(checkpoints.count == 0)
        let error = #expect(throws: LumenError.self) { try checkpoints.drop("a") }
        #expect(error?.code == .noSuchEntity)
    }

    @Test func aNameBreakingTheRulesOfIDsIsRefusedBeforeTheHomeIsCopied() {
        var checkpoints = Checkpoints()
        var copied = false
        func copy() -> Fixture {
            copied = true
            return Self.fixture("copy")
        }
        let error = #expect(throws: LumenError.self) { try checkpoints.keep(copy(), as: "not a name") }
        #expect(error?.code == .invalidParams)
        #expect(error?.data["checkpoint"] == .string("not a name"))
        #expect(!copied)
        #expect(checkpoints.count == 0)
    }

    @Test func atTheLimitOnlyANameAlreadyTakenIsKept() throws {
        var checkpoints = Checkpoints()
        for number in 1...Checkpoints.limit { try checkpoints.keep(Self.fixture("\(number)"), as: "c\(number)") }
        let error = #expect(throws: LumenError.self) { try checkpoints.keep(Self.fixture("more"), as: "more") }
        #expect(error?.code == .limitExceeded)
        #expect(error?.message.contains("at most \(Checkpoints.limit)") == true)
        try checkpoints.keep(Self.fixture("again"), as: "c1")
        try checkpoints.drop("c2")
        try checkpoints.keep(Self.fixture("more"), as: "more")
        #expect(checkpoints.count == Checkpoints.limit)
    }

    @Test func aMissingCheckpointNamesThoseKeptInOrder() throws {
        var checkpoints = Checkpoints()
        let none = #expect(throws: LumenError.self) { try checkpoints.fixture(named: "x") }
        #expect(none?.message == "no checkpoint 'x'; take one with checkpoint first")
        try checkpoints.keep(Self.fixture("b"), as: "b")
        try checkpoints.keep(Self.fixture("a"), as: "a")
        let some = #expect(throws: LumenError.self) { try checkpoints.fixture(named: "x") }
        #expect(some?.message.hasSuffix("(taken: 'a', 'b')") == true)
        #expect(some?.data["checkpoint"] == .string("x"))
    }
}
