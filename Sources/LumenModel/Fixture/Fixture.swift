import LumenProtocol

/// A home to simulate, as a JSON fixture describes it: rooms, lights, their latency and fault models,
/// lights waiting to be discovered, a fault schedule and a seed.
///
/// A snapshot of a running simulation is a fixture too, with ``generation`` and ``origin`` set, so any saved
/// state can be replayed as a fixture. The schema is documented in `docs/fixtures.md` and
/// `fixtures/lumen-fixture.schema.json`.
///
/// ```swift
/// let fixture = try Fixture(json: Array(try Data(contentsOf: url)))
/// print(fixture.rooms.count)
/// ```
public struct Fixture: Sendable, Hashable {
    /// The schema version this build reads and writes.
    public static let currentSchema = 1

    /// The names of the fronts whose records a fixture or state may hold, each a key of the document.
    public static let frontNames = ["hue", "lifx"]
    /// The fronts whose record holds one entry a light, under the light's ID (the LIFX bulbs'): journaled an entry
    /// at a time (``StateRecord/frontEntry(_:key:_:)``), and an entry dropped with its light.
    public static let entryFrontNames: Set<String> = ["lifx"]

    /// The schema version of the document.
    public var schema: Int = Fixture.currentSchema
    /// A stable identity for the home ("demo-home"); a state file remembers which fixture it came from.
    public var id: String
    /// The home's display name.
    public var name: String
    /// The seed of every random choice in the simulation.
    public var seed: UInt64 = 0
    /// How writes are made durable, unless the command line says otherwise.
    public var durability: Durability?
    /// The date, time and UTC offset the simulated wall clock starts at, unless the command line says otherwise;
    /// `nil` for the real time on the real clock and ``WallClock/virtualDefault`` on the virtual one.
    public var start: WallClock?
    /// Device settings every light inherits unless its room or itself says otherwise.
    public var defaults = DeviceSettings()
    /// How discovery scans behave.
    public var discovery = DiscoverySettings()
    /// The command budget of the bridge the home's Hue lights stand behind.
    public var bridge = BridgeSettings()
    /// What each front keeps across restarts, by the front's name (``frontNames``): its own record, which only
    /// the front reads (the Hue bridge's users and numbers under `hue`).
    public var fronts: [String: JSONValue] = [:]
    /// The rooms, in order.
    public var rooms: [RoomFixture]
    /// Faults that start and end at set times.
    public var faultSchedule: [ScheduledFault] = []
    /// Snapshot only: the generation number of this snapshot (1, 2, 3, … per write).
    public var generation: Int?
    /// Snapshot only: the fixture this state was started from.
    public var origin: FixtureOrigin?

    /// A fixture.
    public init(id: String, name: String, seed: UInt64 = 0, rooms: [RoomFixture]) {
        self.id = id
        self.name = name
        self.seed = seed
        self.rooms = rooms
    }
}

/// How writes reach the disk.
public enum Durability: String, Sendable, Hashable, CaseIterable {
    /// A `set` is acknowledged only once its change is on disk.
    case full
    /// A `set` is acknowledged when applied; the change is on disk within a bounded delay.
    case relaxed
}

/// Which fixture a snapshot was started from.
public struct FixtureOrigin: Sendable, Hashable {
    /// The fixture's ``Fixture/id``.
    public var id: String
    /// A digest of the fixture's text, so an edited fixture is told apart from the one the state came from.
    public var digest: String

    /// An origin.
    public init(id: String, digest: String) {
        self.id = id
        self.digest = digest
    }
}

/// Latency, faults and power-on behaviour, each optional so that a light inherits what it does not set from
/// its room, and the room from the home.
public struct DeviceSettings: Sendable, Hashable {
    /// The latency model.
    public var latency: LatencyModel?
    /// The chance a command is dropped, 0–1.
    public var dropProbability: Double?
    /// How long a command to an unresponsive device waits, in milliseconds.
    public var timeoutMs: Double?
    /// Commands a second the device accepts.
    public var rateLimitPerSecond: Double?
    /// What the light does when power returns.
    public var powerOn: PowerOnBehavior?
    /// What the light does with brightness and colour changes while off.
    public var whileOff: OffBehavior?
    /// What the device does with commands beyond its rate limit.
    public var overload: OverloadBehavior?
    /// The family of devices it belongs to; unset, it follows from the manufacturer and latency preset.
    public var family: DeviceFamily?
    /// The network it is reached over, which decides the front that shows it; unset, its family's.
    public var network: LightNetwork?

    /// Settings; `nil` inherits.
    public init(
        latency: LatencyModel? = nil, dropProbability: Double? = nil, timeoutMs: Double? = nil,
        rateLimitPerSecond: Double? = nil, powerOn: PowerOnBehavior? = nil, whileOff: OffBehavior? = nil,
        overload: OverloadBehavior? = nil, family: DeviceFamily? = nil, network: LightNetwork? = nil
    ) {
        self.latency = latency
        self.dropProbability = dropProbability
        self.timeoutMs = timeoutMs
        self.rateLimitPerSecond = rateLimitPerSecond
        self.powerOn = powerOn
        self.whileOff = whileOff
        self.overload = overload
        self.family = family
        self.network = network
    }

    /// These settings with every unset one taken from `parent`.
    public func inheriting(from parent: DeviceSettings) -> DeviceSettings {
        DeviceSettings(
            latency: latency ?? parent.latency,
            dropProbability: dropProbability ?? parent.dropProbability,
            timeoutMs: timeoutMs ?? parent.timeoutMs,
            rateLimitPerSecond: rateLimitPerSecond ?? parent.rateLimitPerSecond,
            powerOn: powerOn ?? parent.powerOn, whileOff: whileOff ?? parent.whileOff,
            overload: overload ?? parent.overload, family: family ?? parent.family,
            network: network ?? parent.network)
    }

    /// The family of a light made by `manufacturer` that these settings govern: as set, else as its maker
    /// and latency preset say (``DeviceFamily/inferred(manufacturer:latency:)``).
    public func effectiveFamily(manufacturer: String) -> DeviceFamily {
        family ?? .inferred(manufacturer: manufacturer, latency: latency)
    }

    /// Whether nothing is set.
    public var isEmpty: Bool { self == DeviceSettings() }

    /// The fault model these settings describe, with built-in defaults for what is unset.
    public var faultModel: FaultModel {
        FaultModel(
            dropProbability: dropProbability ?? 0, timeoutMs: timeoutMs ?? 2_000,
            rateLimitPerSecond: rateLimitPerSecond)
    }
}

/// How discovery scans behave, as on a Hue bridge: one search at a time for the whole home.
public struct DiscoverySettings: Sendable, Hashable {
    /// How long a scan lasts, in milliseconds (Hue: 60 s).
    public var scanDurationMs: Double = 60_000
    /// The most lights one scan adds, across the home (Hue: 15).
    public var maxLightsPerScan: Int = 15
    /// How far a light's discovery may fall from its `delayMs`, either way, in milliseconds: drawn from the seed
    /// for each scan, as a light answers a search when its radio does.
    public var jitterMs: Double = 1_000

    /// Discovery settings.
    public init(scanDurationMs: Double = 60_000, maxLightsPerScan: Int = 15, jitterMs: Double = 1_000) {
        self.scanDurationMs = scanDurationMs
        self.maxLightsPerScan = maxLightsPerScan
        self.jitterMs = jitterMs
    }
}

/// The command budget of the home's bridge, shared by every light behind it (the Hue family's): about 10
/// light commands a second in all and one group command a second, beyond which it answers busy.
public struct BridgeSettings: Sendable, Hashable {
    /// Commands to single lights a second, across all its lights.
    public var lightCommandsPerSecond: Double = 10
    /// Group (room) commands a second.
    public var groupCommandsPerSecond: Double = 1

    /// Bridge settings.
    public init(lightCommandsPerSecond: Double = 10, groupCommandsPerSecond: Double = 1) {
        self.lightCommandsPerSecond = lightCommandsPerSecond
        self.groupCommandsPerSecond = groupCommandsPerSecond
    }
}

/// A room in a fixture.
public struct RoomFixture: Sendable, Hashable {
    /// Its ID.
    public var id: RoomID
    /// Its display name.
    public var name: String
    /// Settings its lights inherit.
    public var defaults = DeviceSettings()
    /// Its lights, in order.
    public var lights: [LightFixture]
    /// Lights a discovery scan in this room finds.
    public var undiscovered: [PendingLight] = []

    /// A room.
    public init(id: RoomID, name: String, lights: [LightFixture], undiscovered: [PendingLight] = []) {
        self.id = id
        self.name = name
        self.lights = lights
        self.undiscovered = undiscovered
    }
}

/// A light in a fixture.
public struct LightFixture: Sendable, Hashable {
    /// Its ID.
    public var id: LightID
    /// Its display name.
    public var name: String
    /// What device it is.
    public var model: DeviceModel
    /// Its state.
    public var state: LightState = .factoryDefault
    /// Whether it can be reached now.
    public var isReachable = true
    /// Its own settings, overriding its room's.
    public var settings = DeviceSettings()
    /// The address its bulb answers at on the LIFX LAN (`lifx.address`), when the fixture gives one; else the
    /// LIFX front gives it the next free address from the one lumend's `--lifx` names.
    public var lifxAddress: IPv4Address?

    /// A light.
    public init(id: LightID, name: String, model: DeviceModel, state: LightState = .factoryDefault) {
        self.id = id
        self.name = name
        self.model = model
        self.state = state
    }
}

/// A light that a discovery scan finds after `delayMs` of scanning.
public struct PendingLight: Sendable, Hashable {
    /// How long after a scan starts the light is found, in milliseconds.
    public var delayMs: Double
    /// The light as it will appear.
    public var light: LightFixture

    /// A pending light.
    public init(delayMs: Double, light: LightFixture) {
        self.delayMs = delayMs
        self.light = light
    }
}
