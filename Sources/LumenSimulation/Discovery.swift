import LumenModel
import LumenProtocol

/// Discovery as a Hue bridge runs it: one search at a time for the whole home, which every room shows while it
/// runs, numbered from 1; and what each room shows of the last search once it has ended.
///
/// It plans a search (which waiting lights it finds, and when) and keeps each room's view of it; the home
/// schedules the events that step it, adds the lights found and tells of each step.
///
/// ```swift
/// var discovery = Discovery(DiscoverySettings())
/// let search = discovery.begin(at: now, rooms: [("hall", waiting)], random: &random)
/// // at each find: discovery.noteFound(light, in: room); at the end: discovery.end(in: room, scan: id)
/// ```
struct Discovery: Sendable {
    /// How scans behave.
    var settings: DiscoverySettings
    private var nextScanID: UInt64 = 1
    /// The scan each room shows while it runs, with the lights found in that room.
    private var running: [RoomID: DiscoveryScan] = [:]
    /// The last scan each room showed, once it ended.
    private var ended: [RoomID: DiscoveryScan] = [:]

    /// Discovery with `settings`, no scan yet made.
    init(_ settings: DiscoverySettings) { self.settings = settings }

    /// A search begun: its scan, when it ends, the lights it will find (each in its room, earliest first), and
    /// the rooms that now show it, in order.
    struct Search: Sendable {
        let scan: DiscoveryScan
        let endsAt: Int64
        let finds: [(room: RoomID, light: LightID, at: Int64)]
        let rooms: [RoomID]
    }

    /// The scan `room` shows while one runs.
    func scan(in room: RoomID) -> DiscoveryScan? { running[room] }

    /// The search under way, as the first of `rooms` that shows it shows it.
    func runningSearch(in rooms: [RoomID]) -> DiscoveryScan? { rooms.lazy.compactMap { running[$0] }.first }

    /// Has `room` (one added during a search) show the search under way, `scan`.
    mutating func join(_ room: RoomID, _ scan: DiscoveryScan) { running[room] = scan }

    /// Begins a search at `now` (simulation microseconds) across `rooms`, in order, each with the lights waiting
    /// there; every room not showing a scan shows it. A light is found its `delayMs` into the search, moved by
    /// a jitter drawn from `random` (up to ``DiscoverySettings/jitterMs`` either way), and always before the
    /// search ends; the search finds at most ``DiscoverySettings/maxLightsPerScan``, earliest first, ties in
    /// room order and then in the order they wait. Lights it cannot reach in time wait for a later search.
    mutating func begin(
        at now: Int64, rooms: [(id: RoomID, waiting: [PendingLight])], random: inout SeededRandom
    ) -> Search {
        let id = nextScanID
        nextScanID += 1
        let duration = Home.micros(settings.scanDurationMs)
        let scan = DiscoveryScan(
            id: id, startedMs: Double(now) / 1_000, endsMs: Double(now + duration) / 1_000, found: [])
        var findable: [(due: Int64, order: Int, room: RoomID, light: LightID)] = []
        for room in rooms {
            for pending in room.waiting where Home.micros(pending.delayMs) < duration {
                let jitter = settings.jitterMs > 0 ? Double.random(in: -1...1, using: &random) : 0
                let delay = min(max(0, Home.micros(pending.delayMs + jitter * settings.jitterMs)), duration - 1)
                findable.append((delay, findable.count, room.id, pending.light.id))
            }
        }
        findable.sort { ($0.due, $0.order) < ($1.due, $1.order) }
        let finds = findable.prefix(settings.maxLightsPerScan).map {
            (room: $0.room, light: $0.light, at: now + $0.due)
        }
        var showing: [RoomID] = []
        for room in rooms where running[room.id] == nil {
            running[room.id] = scan
            showing.append(room.id)
        }
        return Search(scan: scan, endsAt: now + duration, finds: finds, rooms: showing)
    }

    /// Notes that the scan `room` shows found `light` there; returns the scan as the room now shows it.
    mutating func noteFound(_ light: LightID, in room: RoomID) -> DiscoveryScan? {
        running[room]?.found.append(light)
        return running[room]
    }

    /// Ends the scan numbered `scan` in `room`, when the room still shows it; returns it as it ended.
    mutating func end(in room: RoomID, scan: UInt64) -> DiscoveryScan? {
        guard let current = running[room], current.id == scan else { return nil }
        running[room] = nil
        ended[room] = current
        return current
    }

    /// Forgets what `room`, which is removed, showed.
    mutating func forget(_ room: RoomID) {
        running[room] = nil
        ended[room] = nil
    }

    /// What `room`'s `scan` property reads: the scan under way, or between scans the last one's outcome, as
    /// the change that ended it announced.
    func scanValue(in room: RoomID) -> JSONValue {
        if let scan = running[room] { return scan.jsonValue(isScanning: true) }
        return ended[room]?.jsonValue(isScanning: false) ?? .object(["isScanning": false])
    }

    /// The latest search, which every room of `rooms` shows: under way or not, when it ended (simulation
    /// milliseconds), and the lights it found, room by room in the order found.
    func latestSearch(in rooms: [RoomID]) -> (active: Bool, endedMs: Double?, found: [LightID]) {
        let scans = rooms.compactMap { running[$0] ?? ended[$0] }
        guard let latest = scans.map(\.id).max() else { return (false, nil, []) }
        let these = scans.filter { $0.id == latest }
        let active = rooms.contains { running[$0]?.id == latest }
        return (active, active ? nil : these.first?.endsMs, these.flatMap(\.found))
    }
}
