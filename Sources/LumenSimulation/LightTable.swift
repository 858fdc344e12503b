import LumenModel

/// The home's lights: kept side by side in an array, found by ID through an index of slots.
///
/// A light is read and changed where it lies (``subscript(slot:)`` yields it in place), so a command that
/// reads a light's kind, state and room copies none of it; a dictionary's values would be copied whole, with a
/// retain of each of their strings, on every read. A slot stays valid until a light is added or removed.
struct LightTable: Sendable {
    /// A light's place in the table.
    typealias Slot = Int

    private var storage: [SimulatedLight] = []
    private var slots: [LightID: Slot] = [:]

    /// How many lights there are.
    var count: Int { storage.count }

    /// Makes room for `capacity` lights.
    mutating func reserveCapacity(_ capacity: Int) {
        storage.reserveCapacity(capacity)
        slots.reserveCapacity(capacity)
    }

    /// Where the light `id` is, if there is one.
    func slot(of id: LightID) -> Slot? { slots[id] }

    /// The light at `slot`, read or changed in place.
    subscript(slot slot: Slot) -> SimulatedLight {
        _read { yield storage[slot] }
        _modify { yield &storage[slot] }
    }

    /// The light `id`; setting `nil` removes it. A light set is filed under its own ID.
    subscript(id: LightID) -> SimulatedLight? {
        get { slots[id].map { storage[$0] } }
        set {
            guard let newValue else {
                _ = removeValue(forKey: id)
                return
            }
            precondition(newValue.id == id, "light '\(newValue.id)' filed under '\(id)'")
            if let slot = slots[id] {
                storage[slot] = newValue
            } else {
                slots[id] = storage.count
                storage.append(newValue)
            }
        }
    }

    /// Removes the light `id` and returns it; the last light takes its slot.
    mutating func removeValue(forKey id: LightID) -> SimulatedLight? {
        guard let slot = slots.removeValue(forKey: id) else { return nil }
        let last = storage.count - 1
        if slot != last {
            storage.swapAt(slot, last)
            slots[storage[slot].id] = slot
        }
        return storage.removeLast()
    }
}
