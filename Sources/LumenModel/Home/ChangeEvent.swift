import LumenProtocol

/// Something in a home that can change: the home itself, a room or a light.
public enum Entity: Sendable, Hashable, CustomStringConvertible {
    case home
    case room(RoomID)
    case light(LightID)

    public var description: String {
        switch self {
        case .home: "home"
        case .room(let id): "room \(id)"
        case .light(let id): "light \(id)"
        }
    }
}

/// One property of one entity: what a connection reads, a change event announces and a subscription
/// watches. Typed from the `Home` actor to the wire, where it becomes a name.
public enum PropertyKey: Sendable, Hashable, CustomStringConvertible {
    case home(HomeProperty)
    case room(RoomID, RoomProperty)
    case light(LightID, LightProperty)

    /// The entity whose property it is.
    public var entity: Entity {
        switch self {
        case .home: .home
        case .room(let id, _): .room(id)
        case .light(let id, _): .light(id)
        }
    }

    /// The property's name on the wire.
    public var name: String {
        switch self {
        case .home(let property): property.rawValue
        case .room(_, let property): property.rawValue
        case .light(_, let property): property.rawValue
        }
    }

    /// Whether every change of this property is announced by a change event, so that the last value
    /// announced is the value now (the settings are announced for persistence only).
    public var isAnnounced: Bool {
        if case .light(_, .settings) = self { return false }
        return true
    }

    public var description: String { "\(entity) \(name)" }
}

/// One change the simulation applied: the single stream both persistence and subscriptions consume.
///
/// A change is emitted only when a value really changed, once per property.
public struct ChangeEvent: Sendable, Hashable {
    /// What changed.
    public enum Change: Sendable, Hashable {
        /// A property took a new value, in its wire form (made once, here, for every subscriber).
        case property(PropertyKey, JSONValue)
        /// The entity was removed; everything attached to it ends.
        case removed(Entity)
    }

    /// How it changed.
    public var change: Change
    /// When, in microseconds of simulation time.
    public var timeMicros: Int64

    /// A change event.
    public init(_ change: Change, timeMicros: Int64) {
        self.change = change
        self.timeMicros = timeMicros
    }

    /// The entity that changed.
    public var entity: Entity {
        switch change {
        case .property(let key, _): key.entity
        case .removed(let entity): entity
        }
    }

    /// The event as one line of JSON, for logs and the determinism test's transcript.
    public var jsonValue: JSONValue {
        var object: JSONObject = ["t": .int(Int(timeMicros))]
        switch entity {
        case .home: object["entity"] = "home"
        case .room(let id): object["room"] = .string(id.rawValue)
        case .light(let id): object["light"] = .string(id.rawValue)
        }
        switch change {
        case .property(let key, let value):
            object["property"] = .string(key.name)
            object["value"] = value
        case .removed:
            object["removed"] = true
        }
        return .object(object)
    }
}
