import LumenModel
import LumenStore

/// What `make fuzz` feeds random bytes to: each of the parsers that read what lumend did not write itself
/// this run (state files after a crash or damage, fixtures from users). Each must answer with a value or an
/// error for any input, never crash, hang or read out of bounds.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// A snapshot file: verified and decoded as start-up does.
    case snapshot
    /// A journal file: read, and its commits applied to a small home as start-up does.
    case journal
    /// A fixture file.
    case fixture

    /// Runs the target on one input.
    public func run(_ bytes: [UInt8]) {
        switch self {
        case .snapshot:
            if case .state(let fixture, _) = StateSnapshot.decode(bytes) {
                _ = StateSnapshot.encode(fixture)
            }
        case .journal:
            let contents = StateJournal.read(bytes)
            var batches = contents.batches.map(\.records)
            if let carry = contents.carry { batches.insert(carry.records, at: 0) }
            _ = try? Self.home.applying(batches: batches)
        case .fixture:
            if let fixture = try? Fixture(json: bytes) {
                _ = fixture.jsonValue
            }
        }
    }

    /// The home journal commits are applied to: the embedded demo home.
    static let home: Fixture = try! Fixture(json: Fixture.embeddedDemoHomeJSON)
}
