import LumenModel
import LumenProtocol

/// One simulated device: its identity, state, and the bookkeeping that makes it behave like hardware.
///
/// Lights are values owned by the ``Home`` actor rather than actors of their own: every change to every light
/// is applied by the home's one event loop in a defined order, which is what makes a seeded run replay byte
/// for byte. A light costs a few hundred bytes.
struct SimulatedLight: Sendable {
    let id: LightID
    var name: String
    let model: DeviceModel
    var room: RoomID
    var state: LightState
    /// Set by a harness or a fixture: unreachable until set back.
    var forcedUnreachable: Bool
    /// The number of scheduled faults under way that make it unreachable.
    var activeFaults: Int = 0
    var random: SeededRandom
    /// When the last queued command takes effect: later commands never overtake it (per-device FIFO).
    var lastApplyAt: Int64 = 0
    /// Bumped when a transition starts or is cut short, so its stale steps are ignored. (The transition
    /// itself, like a light's own settings and rate-limit bucket, lives in a side table of the home: most
    /// lights have none, and a light stays a few hundred bytes.)
    var transitionGeneration: UInt32 = 0
    /// Its saved form as last handed to the persistence sink, which the sink may still hold: a change of
    /// state alone is written into it while it does.
    var pendingRecord: PendingLightRecord?
    /// The settings that govern it (its own, then its room's, then the home's), worked out at its first
    /// command and kept until its own settings change.
    var governingSettings: GoverningSettings?
    /// Which of its properties a read has published, and which a subscriber watches.
    var audience = PropertyAudience()

    var isReachable: Bool { !forcedUnreachable && activeFaults == 0 }

    init(fixture: LightFixture, room: RoomID, seed: UInt64) {
        id = fixture.id
        name = fixture.name
        model = fixture.model
        self.room = room
        state = fixture.state
        forcedUnreachable = !fixture.isReachable
        random = SeededRandom(seed: seed, label: fixture.id.rawValue)
    }
}

/// A change that moves in steps, as Matter lights do: ten steps a second, the last one exact.
///
/// A fade runs from `from` towards `fadeTo` and then lands on `landing`. The two differ only when fading off:
/// brightness falls to the lowest level, then the light switches off with its brightness back where it was,
/// for the next power-on (as a Hue bulb does with `on: false` and a transition time).
struct Transition: Sendable {
    static let stepMicros: Int64 = 100_000

    let from: LightState
    let fadeTo: LightState
    let landing: LightState
    let start: Int64
    let duration: Int64

    /// A fade from `current` to `landing` over `duration` µs from `start`, as a light of `kind` shows it;
    /// `nil` when nothing would move (the change then lands at once).
    init?(current: LightState, landing: LightState, kind: LightKind, start: Int64, duration: Int64) {
        var from = current
        var fadeTo = landing
        let dims = kind.supports(.brightness)
        let lowest = LightState.brightnessRange.lowerBound
        if dims, current.isOn, !landing.isOn {
            // Fading off: down to the lowest level, still on; the switch comes at the end.
            fadeTo.isOn = true
            fadeTo.brightness = lowest
        } else if dims, !current.isOn, landing.isOn {
            // Fading on: on at once at the lowest level, in the colour it will have, then up.
            from = landing
            from.brightness = lowest
        }
        guard duration > 0,
            from.brightness != fadeTo.brightness || from.colorTemperature != fadeTo.colorTemperature
                || from.color != fadeTo.color
        else { return nil }
        self.from = from
        self.fadeTo = fadeTo
        self.landing = landing
        self.start = start
        self.duration = duration
    }

    /// The state `time` into the transition, rounded as a device would report it.
    func state(at time: Int64) -> LightState {
        guard time < start + duration else { return landing }
        let f = Double(time - start) / Double(duration)
        func mix(_ a: Double, _ b: Double, places: Double) -> Double {
            ((a + (b - a) * f) * places).rounded() / places
        }
        var state = fadeTo
        state.isOn = from.isOn || fadeTo.isOn
        state.brightness = mix(from.brightness, fadeTo.brightness, places: 10)
        state.colorTemperature = Int(
            mix(Double(from.colorTemperature), Double(fadeTo.colorTemperature), places: 1))
        state.color = CIEColor(
            x: mix(from.color.x, fadeTo.color.x, places: 10_000), y: mix(from.color.y, fadeTo.color.y, places: 10_000))
        return state
    }
}

/// The rate limit's token bucket for one light.
struct RateBucket: Sendable {
    var tokens: Double
    var updatedAt: Int64
}

/// A room: its lights in order, the lights waiting to be discovered, and any scan under way.
struct SimulatedRoom: Sendable {
    let id: RoomID
    var name: String
    var defaults: DeviceSettings
    var lightIDs: [LightID]
    var undiscovered: [PendingLight]
    var scan: DiscoveryScan?
    /// The last scan that ended: what `scan` reads between scans, as its last change announced.
    var lastScan: DiscoveryScan? = nil
    /// How many of its lights are on: what `anyOn` and `allOn` are read from.
    var onCount = 0
    /// Which of its properties a read has published, and which a subscriber watches.
    var audience = PropertyAudience()

    /// Whether any light is on, and whether every light is (an empty room has neither), as a Hue group's
    /// `any_on` and `all_on`.
    var groupState: (anyOn: Bool, allOn: Bool) { (onCount > 0, !lightIDs.isEmpty && onCount == lightIDs.count) }

    /// Counts one of its lights switching on or off, and returns its group state before and after. Mutating,
    /// so a room kept in a dictionary is changed where it lies: reading `groupState` through the dictionary's
    /// values copies the whole room.
    mutating func countSwitch(on: Bool) -> GroupSwitch {
        let before = groupState
        onCount += on ? 1 : -1
        return GroupSwitch(before: before, after: groupState, audience: audience)
    }

    /// A light of the room switching on or off: the room's group state before and after, and who may want to
    /// hear of the room's changes.
    struct GroupSwitch {
        let before: (anyOn: Bool, allOn: Bool)
        let after: (anyOn: Bool, allOn: Bool)
        let audience: PropertyAudience
    }
}

/// A discovery scan under way in a room.
public struct DiscoveryScan: Sendable, Hashable {
    /// Which scan this is (scans are numbered from 1 in a home).
    public let id: UInt64
    /// When it started, in simulation milliseconds.
    public let startedMs: Double
    /// When it ends.
    public let endsMs: Double
    /// The lights found so far, in the order found.
    public var found: [LightID]

    /// The scan as JSON: what `lumenctl discover` shows while it runs.
    public func jsonValue(isScanning: Bool) -> JSONValue {
        .object([
            "isScanning": .bool(isScanning), "startedMs": .double(startedMs), "endsMs": .double(endsMs),
            "found": .array(found.map { .string($0.rawValue) }),
        ])
    }
}
