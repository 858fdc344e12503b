import LumenModel
import LumenProtocol

/// The checkpoints taken of a home, by name: copies of the whole home (as fixtures) to bring it back to.
///
/// Names follow the rules of IDs (``EntityID/validate(_:)``), and at most ``limit`` are kept at once, each a
/// copy of the whole home; taking one again under a name already taken replaces it.
///
/// ```swift
/// var checkpoints = Checkpoints()
/// try checkpoints.keep(home.snapshot(), as: "before")
/// let fixture = try checkpoints.fixture(named: "before")
/// ```
struct Checkpoints: Sendable {
    /// The most checkpoints kept at once.
    static let limit = 64

    private var kept: [String: Fixture] = [:]

    /// How many are kept.
    var count: Int { kept.count }

    /// Keeps `fixture` under `name`, replacing one of that name; `fixture` is made only when it will be kept.
    /// - Throws: ``LumenError`` `invalidParams` for a name that breaks the rules of IDs, `limitExceeded` for a
    ///   new name when ``limit`` are kept.
    mutating func keep(_ fixture: @autoclosure () -> Fixture, as name: String) throws(LumenError) {
        if let why = EntityID.validate(name) {
            throw LumenError(
                .invalidParams, "a checkpoint is named as an ID is: \(why)", data: ["checkpoint": .string(name)])
        }
        guard kept[name] != nil || kept.count < Self.limit else {
            throw LumenError(
                .limitExceeded,
                "lumend keeps at most \(Self.limit) checkpoints; drop one with dropCheckpoint first, "
                    + "or take this one under a name already taken",
                data: ["checkpoint": .string(name)])
        }
        kept[name] = fixture()
    }

    /// Forgets the checkpoint `name`, making room for another.
    /// - Throws: ``LumenError`` `noSuchEntity` for a checkpoint never taken.
    mutating func drop(_ name: String) throws(LumenError) {
        guard kept.removeValue(forKey: name) != nil else { throw noSuchCheckpoint(name) }
    }

    /// The home as the checkpoint `name` kept it.
    /// - Throws: ``LumenError`` `noSuchEntity` for a checkpoint never taken.
    func fixture(named name: String) throws(LumenError) -> Fixture {
        guard let fixture = kept[name] else { throw noSuchCheckpoint(name) }
        return fixture
    }

    /// The error for a checkpoint never taken (or dropped), naming those that are kept.
    private func noSuchCheckpoint(_ name: String) -> LumenError {
        let taken = kept.keys.sorted().map { "'\($0)'" }.joined(separator: ", ")
        return LumenError(
            .noSuchEntity,
            "no checkpoint '\(name)'; take one with checkpoint first" + (taken.isEmpty ? "" : " (taken: \(taken))"),
            data: ["checkpoint": .string(name)])
    }
}
