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

/// One change the simulation applied: the single stream both persistence and subscriptions consume.
///
/// A change is emitted only when a value really changed, once per property.
public struct ChangeEvent: Sendable, Hashable {
    /// What changed.
    public enum Change: Sendable, Hashable {
        /// A property took a new value.
        case property(String, JSONValue)
        /// The entity was removed; everything attached to it ends.
        case removed
    }

    /// The entity that changed.
    public var entity: Entity
    /// How it changed.
    public var change: Change
    /// When, in microseconds of simulation time.
    public var timeMicros: Int64

    /// A change event.
    public init(entity: Entity, change: Change, timeMicros: Int64) {
        self.entity = entity
        self.change = change
        self.timeMicros = timeMicros
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
        case .property(let name, let value):
            object["property"] = .string(name)
            object["value"] = value
        case .removed:
            object["removed"] = true
        }
        return .object(object)
    }
}
