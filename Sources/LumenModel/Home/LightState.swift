import LumenProtocol

/// What a light is doing: the part of a light a `set` changes.
public struct LightState: Sendable, Hashable {
    /// Whether the light is on.
    public var isOn: Bool
    /// Brightness in percent, 1–100 (a dimmable light is never at 0 while on; off is `isOn == false`).
    public var brightness: Double
    /// Colour temperature in mireds, 153 (6500 K) – 500 (2000 K).
    public var colorTemperature: Int
    /// Colour, CIE 1931 xy.
    public var color: CIEColor

    /// A state.
    public init(isOn: Bool, brightness: Double, colorTemperature: Int, color: CIEColor) {
        self.isOn = isOn
        self.brightness = brightness
        self.colorTemperature = colorTemperature
        self.color = color
    }

    /// One state property's value in its wire form (`nil` for a property that is not part of the state).
    public func value(of property: LightProperty) -> JSONValue? {
        switch property {
        case .isOn: .bool(isOn)
        case .brightness: .double(brightness)
        case .colorTemperature: .int(colorTemperature)
        case .color: color.jsonValue
        case .name, .model, .isReachable, .effect, .settings: nil
        }
    }

    /// The state a bulb shows on first power-up: on, full brightness, warm white (a colour light showing that
    /// white).
    public static let factoryDefault = LightState(
        isOn: true, brightness: 100, colorTemperature: 366, color: CIEColor(mireds: 366))

    /// Whether a colour light shows its colour temperature rather than a colour: its colour is that
    /// temperature's white, as a colour temperature set last leaves it. Fronts report their colour mode by it.
    public var showsColorTemperature: Bool { color == CIEColor(mireds: colorTemperature) }

    /// The brightness range.
    public static let brightnessRange: ClosedRange<Double> = 1...100
    /// The colour temperatures any light takes, in mireds (1,500–9,000 K); each family takes its own part of
    /// it (``DeviceFamily/colorTemperatureRange(of:)``).
    public static let colorTemperatureRange = CIEColor.widestMiredRange
    /// The range of each colour coordinate.
    public static let colorCoordinateRange: ClosedRange<Double> = 0...1
}

/// A property of a light: the key `get`, `set` and `subscribe` name it by, change events carry, and
/// subscriptions are filed under. Its raw value is its name on the wire.
public enum LightProperty: String, Sendable, Hashable, CaseIterable {
    case isOn
    case brightness
    case colorTemperature
    case color
    case name
    case model
    case isReachable
    /// What the light does besides holding its state (``LightEffect``): `none`, `colorLoop` or `breathe`.
    case effect
    /// The device settings (latency, faults, behaviour); announced for persistence, not a connection.
    case settings

    /// The properties a command sets: the light's state.
    public static let stateProperties: [LightProperty] = [.isOn, .brightness, .colorTemperature, .color]

    /// Whether this is part of the light's state, set by a device command.
    public var isState: Bool {
        switch self {
        case .isOn, .brightness, .colorTemperature, .color: true
        case .name, .model, .isReachable, .effect, .settings: false
        }
    }

    /// Whether a device of `kind` has this property: every light has a name, a model and reachability; the
    /// state properties depend on what the device can do.
    public func isSupported(by kind: LightKind) -> Bool { !isState || kind.supports(self) }
}

/// A property of the home.
public enum HomeProperty: String, Sendable, Hashable, CaseIterable {
    case name
    case roomIDs
    /// The last command whose outcome became known, from the command record.
    case lastCommand
}

/// A property of a room.
public enum RoomProperty: String, Sendable, Hashable, CaseIterable {
    case name
    case lightIDs
    case isScanning
    case scan
    case anyOn
    case allOn
}

/// What kind of device a light is, which decides what it can do.
public enum LightKind: String, Sendable, Hashable, CaseIterable {
    /// A plug or relay: on and off only.
    case onoff
    /// A white bulb with a dimmer.
    case dimmable
    /// A tunable white bulb (colour temperature).
    case ambiance
    /// A full-colour bulb (xy colour and colour temperature).
    case color

    /// The state properties this kind of device supports.
    public var capabilities: Set<LightProperty> {
        switch self {
        case .onoff: Self.onoffCapabilities
        case .dimmable: Self.dimmableCapabilities
        case .ambiance: Self.ambianceCapabilities
        case .color: Self.colorCapabilities
        }
    }

    /// Whether this kind of device has the state property `property` (one of ``capabilities``), decided
    /// without hashing: every command and every change asks.
    public func supports(_ property: LightProperty) -> Bool {
        switch property {
        case .isOn: true
        case .brightness: self != .onoff
        case .colorTemperature: self == .ambiance || self == .color
        case .color: self == .color
        case .name, .model, .isReachable, .effect, .settings: false
        }
    }

    // Made once, from ``supports(_:)``: listing them is rarer than asking.
    private static let onoffCapabilities = listed(.onoff)
    private static let dimmableCapabilities = listed(.dimmable)
    private static let ambianceCapabilities = listed(.ambiance)
    private static let colorCapabilities = listed(.color)

    private static func listed(_ kind: LightKind) -> Set<LightProperty> {
        Set(LightProperty.stateProperties.filter(kind.supports))
    }
}

/// The make and kind of a simulated device.
public struct DeviceModel: Sendable, Hashable {
    /// What it can do.
    public var kind: LightKind { didSet { lifxProductID = Self.lifxProductID(kind: kind, product: product) } }
    /// Who made it ("Signify").
    public var manufacturer: String
    /// The product name ("Hue White and Color Ambiance A19").
    public var product: String { didSet { lifxProductID = Self.lifxProductID(kind: kind, product: product) } }
    /// The LIFX product a light of this model is on the LIFX LAN (``lifxProductID(kind:product:)``): worked out
    /// once, as every LIFX colour read and set asks for it.
    package private(set) var lifxProductID: UInt32

    /// A device model.
    public init(kind: LightKind, manufacturer: String, product: String) {
        self.kind = kind
        self.manufacturer = manufacturer
        self.product = product
        lifxProductID = Self.lifxProductID(kind: kind, product: product)
    }
}

/// What a light does when its power comes back.
public enum PowerOnBehavior: String, Sendable, Hashable, CaseIterable {
    /// Come back in the state it had before the power cut (Hue's "last state").
    case restore
    /// Come back in ``LightState/factoryDefault``.
    case `default`
    /// Come back on, in the level and colour it had (a LIFX bulb).
    case on
}

/// What a light does with a brightness or colour change while it is off.
public enum OffBehavior: String, Sendable, Hashable, CaseIterable {
    /// Refuse it with `deviceOff`, as a Hue bulb does (the bridge's error 201, "device is set to off").
    case refuse
    /// Take it and show it at the next power-on, as a Matter light with `ExecuteIfOff` set does.
    case store
}

/// What a device does with commands beyond its rate limit.
public enum OverloadBehavior: String, Sendable, Hashable, CaseIterable {
    /// Answer at once that it is too busy, as a Hue bridge does (HTTP 429): the client can back off.
    case busy
    /// Drop them silently, as LIFX firmware does with excess UDP packets: the client times out.
    case drop
}
