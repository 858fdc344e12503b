import LumenModel
import LumenProtocol

/// The last value announced for each property that has been read: what a `get` answers without a trip
/// through the `Home` actor.
///
/// Only the actor writes it, in the same step that changes a value and announces it, so a reader on any
/// thread sees a value no older than the last change announced before its read began, as a read on the
/// actor would. A property is filled the first time the actor reads it and kept up to date by every change
/// announced after; the table is bounded, and emptied when full (the next reads refill it).
package final class PublishedValues: Sendable {
    /// The most properties kept: a light has seven, so this covers a home of about 37,000 lights in full.
    static let capacity = 262_144

    private let values = Locked<[PropertyKey: JSONValue]>([:])

    /// The value last announced for `key`, when the table has it.
    package func value(for key: PropertyKey) -> JSONValue? { values.withLock { $0[key] } }

    /// How many properties it holds.
    package var count: Int { values.withLock { $0.count } }

    /// Records a value the actor read (only properties whose every change is announced).
    func fill(_ key: PropertyKey, _ value: JSONValue) {
        guard key.isAnnounced else { return }
        values.withLock { values in
            if values.count >= Self.capacity { values.removeAll() }
            values[key] = value
        }
    }

    /// Follows an announced change of a property the table holds.
    func update(_ key: PropertyKey, _ value: JSONValue) {
        values.withLock { values in
            // One lookup: the value is replaced where it lies, with no second hashing of the key.
            if let index = values.index(forKey: key) { values.values[index] = value }
        }
    }

    /// Forgets every property of a removed entity.
    func remove(_ entity: Entity) {
        values.withLock { values in values = values.filter { $0.key.entity != entity } }
    }
}
