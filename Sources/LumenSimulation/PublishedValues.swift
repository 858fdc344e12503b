import LumenModel
import Synchronization

/// The values of properties that publish their changes, kept where any thread can read them without a hop
/// onto the home's executor: `get` is most of what clients send, and the hop is most of what a `get` costs.
///
/// Only the home writes here, on its own executor: it fills an entry when a property is first read there,
/// and updates or removes entries as it emits changes, so an entry is never older than the changes already
/// announced. Entries exist only for what was read; past ``limit`` values the table starts afresh.
final class PublishedValues: Sendable {
    /// The properties that emit a change event whenever their value changes (or never change).
    static let cacheable: Set<String> = [
        "name", "roomIDs", "lightIDs", "isScanning", "scan", "model", "isReachable", "isOn", "brightness",
        "colorTemperature", "color",
    ]

    /// The most values kept.
    let limit: Int
    private let table = Mutex<(values: [Entity: [String: JSONValue]], count: Int)>(([:], 0))

    init(limit: Int = 65_536) { self.limit = limit }

    /// The value last published for a property, or `nil` when it is not kept.
    func value(of property: String, of entity: Entity) -> JSONValue? {
        table.withLock { $0.values[entity]?[property] }
    }

    /// Keeps a value just read on the home's executor.
    func remember(_ value: JSONValue, of property: String, of entity: Entity) {
        guard Self.cacheable.contains(property) else { return }
        table.withLock { table in
            if table.count >= limit { table = ([:], 0) }
            if table.values[entity, default: [:]].updateValue(value, forKey: property) == nil { table.count += 1 }
        }
    }

    /// Applies a change the home is emitting: a new value replaces a kept one; a removal forgets the entity.
    func apply(_ entity: Entity, _ change: ChangeEvent.Change) {
        table.withLock { table in
            switch change {
            case .property(let property, let value):
                guard table.values[entity]?[property] != nil else { return }
                table.values[entity]?[property] = value
            case .removed:
                table.count -= table.values.removeValue(forKey: entity)?.count ?? 0
            }
        }
    }
}
