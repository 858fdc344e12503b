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

    /// Whether the controller reports it unreachable: its family's controller notices a light gone only after
    /// a while (``DeviceFamily/unreachableReportDelayMs``), and one that comes back at once.
    var reportsUnreachable: Bool
    /// Bumped each time it goes out of reach or comes back, so that a report of a spell already over is
    /// dropped.
    var reachabilitySpell: UInt32 = 0

    /// Whether it can really be reached (what the simulation scope's ground truth shows).
    var isReachable: Bool { !forcedUnreachable && activeFaults == 0 }

    init(fixture: LightFixture, room: RoomID, seed: UInt64) {
        id = fixture.id
        name = fixture.name
        model = fixture.model
        self.room = room
        state = fixture.state
        forcedUnreachable = !fixture.isReachable
        reportsUnreachable = !fixture.isReachable
        random = SeededRandom(seed: seed, label: fixture.id.rawValue)
    }
}

/// A room: its lights in order, and the lights waiting to be discovered.
struct SimulatedRoom: Sendable {
    var name: String
    var defaults: DeviceSettings
    var lightIDs: [LightID]
    var undiscovered: [PendingLight]
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
package struct DiscoveryScan: Sendable, Hashable {
    /// Which scan this is (scans are numbered from 1 in a home).
    package let id: UInt64
    /// When it started, in simulation milliseconds.
    let startedMs: Double
    /// When it ends.
    package let endsMs: Double
    /// The lights found so far, in the order found.
    var found: [LightID]

    /// The scan as JSON: what `lumenctl discover` shows while it runs.
    package func jsonValue(isScanning: Bool) -> JSONValue {
        .object([
            "isScanning": .bool(isScanning), "startedMs": .double(startedMs), "endsMs": .double(endsMs),
            "found": .array(found.map { .string($0.rawValue) }),
        ])
    }
}
