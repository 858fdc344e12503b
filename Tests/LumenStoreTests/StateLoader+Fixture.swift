import LumenModel
import LumenStore

extension StateLoader {
    /// Loads with a fixture already parsed, as the tests have it.
    func load(
        fixture: Fixture, origin: FixtureOrigin, fixtureIsExplicit: Bool, reset: Bool, acceptingLoss: Bool = false
    ) throws(Refusal) -> Outcome {
        try load(
            fixtureDigest: origin.digest, fixtureIsExplicit: fixtureIsExplicit, reset: reset,
            acceptingLoss: acceptingLoss
        ) { (fixture, origin) }
    }
}
