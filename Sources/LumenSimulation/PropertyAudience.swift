import LumenModel

/// Who may want to hear of an entity's property changes, kept on the entity itself: which properties a read
/// has put in the home's published values (``PublishedValues``), and which a subscriber watches
/// (``Home/watch(_:)``). A change nobody has read is then announced without looking for it in the table, and
/// one nobody watches is not offered to the watchers (the server's subscriptions), each of which would look
/// for it under a lock of its own.
///
/// Only the `Home` actor reads and sets it, in the same steps that fill the table, register subscribers and
/// announce changes. A property is marked once and never unmarked: when the table lets it go (full, or its
/// entity removed) or its last subscriber leaves, the mark only costs a lookup that finds nothing, as every
/// change cost before.
struct PropertyAudience: Sendable, Equatable {
    private var publishedBits: UInt16 = 0
    private var watchedBits: UInt16 = 0

    /// Whether the published values may hold `property`.
    func isPublished(_ property: some AudienceProperty) -> Bool { publishedBits & property.audienceBit != 0 }
    /// Whether a subscriber may watch `property`.
    func isWatched(_ property: some AudienceProperty) -> Bool { watchedBits & property.audienceBit != 0 }

    /// Marks `property` as put in the published values.
    mutating func markPublished(_ property: some AudienceProperty) { publishedBits |= property.audienceBit }
    /// Marks `property` as watched by a subscriber.
    mutating func markWatched(_ property: some AudienceProperty) { watchedBits |= property.audienceBit }
}

/// A property of one kind of entity, with a bit of its own in a ``PropertyAudience`` (sixteen at most).
protocol AudienceProperty {
    var audienceBit: UInt16 { get }
}

extension LightProperty: AudienceProperty {
    var audienceBit: UInt16 {
        switch self {
        case .isOn: 1 << 0
        case .brightness: 1 << 1
        case .colorTemperature: 1 << 2
        case .color: 1 << 3
        case .name: 1 << 4
        case .model: 1 << 5
        case .isReachable: 1 << 6
        case .settings: 1 << 7
        case .effect: 1 << 8
        }
    }
}

extension RoomProperty: AudienceProperty {
    var audienceBit: UInt16 {
        switch self {
        case .name: 1 << 0
        case .lightIDs: 1 << 1
        case .isScanning: 1 << 2
        case .scan: 1 << 3
        case .anyOn: 1 << 4
        case .allOn: 1 << 5
        }
    }
}
