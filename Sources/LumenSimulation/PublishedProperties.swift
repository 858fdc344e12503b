import LumenModel

/// Which of an entity's properties a read has put in the home's published values (``PublishedValues``), kept
/// on the entity itself, so a change nobody has read is announced without looking for it in the table.
///
/// Only the `Home` actor reads and sets it, in the same steps that fill the table and announce changes. A
/// property is marked when a read puts it in the table and never unmarked: when the table lets it go (full,
/// or its entity removed), the mark only costs a lookup that finds nothing, as every change cost before.
struct PublishedProperties: Sendable, Equatable {
    private var bits: UInt8 = 0

    /// Whether `property` may be in the table.
    func contains(_ property: LightProperty) -> Bool { bits & Self.bit(property) != 0 }
    /// Whether `property` may be in the table.
    func contains(_ property: RoomProperty) -> Bool { bits & Self.bit(property) != 0 }

    /// Marks `property` as put in the table.
    mutating func insert(_ property: LightProperty) { bits |= Self.bit(property) }
    /// Marks `property` as put in the table.
    mutating func insert(_ property: RoomProperty) { bits |= Self.bit(property) }

    private static func bit(_ property: LightProperty) -> UInt8 {
        switch property {
        case .isOn: 1 << 0
        case .brightness: 1 << 1
        case .colorTemperature: 1 << 2
        case .color: 1 << 3
        case .name: 1 << 4
        case .model: 1 << 5
        case .isReachable: 1 << 6
        case .settings: 1 << 7
        }
    }

    private static func bit(_ property: RoomProperty) -> UInt8 {
        switch property {
        case .name: 1 << 0
        case .lightIDs: 1 << 1
        case .isScanning: 1 << 2
        case .scan: 1 << 3
        case .anyOn: 1 << 4
        case .allOn: 1 << 5
        }
    }
}
