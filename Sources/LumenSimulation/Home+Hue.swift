import LumenModel
import LumenProtocol

/// A light as the Hue bridge lists it.
public struct HueLight: Sendable, Hashable {
    /// Its number on the bridge (`/lights/3`).
    public var number: Int
    /// The light.
    public var light: LightSnapshot
}

/// A room as the Hue bridge lists it: a group of type `Room`.
public struct HueRoom: Sendable, Hashable {
    /// Its group number on the bridge.
    public var number: Int
    /// The room.
    public var id: RoomID
    /// Its name.
    public var name: String
    /// The numbers of its lights that stand behind the bridge, in the room's order.
    public var lights: [Int]

    /// A room as the bridge lists it.
    public init(number: Int, id: RoomID, name: String, lights: [Int]) {
        self.number = number
        self.id = id
        self.name = name
        self.lights = lights
    }
}

extension Home {
    /// How long the simulated link button stays pressed, as on a Hue bridge.
    public static let linkButtonMs: Double = 30_000

    /// The lights behind the Hue bridge, in the order of their numbers.
    public func hueLights() -> [HueLight] {
        var result: [HueLight] = []
        for index in 0..<lights.count where governingSettings(at: index).network == .hueBridge {
            let id = lights[slot: index].id
            guard let number = hue.lightNumbers[id], let light = try? light(id) else { continue }
            result.append(HueLight(number: number, light: light))
        }
        return result.sorted { $0.number < $1.number }
    }

    /// The light behind the bridge with this number, if there is one.
    public func hueLight(number: Int) -> HueLight? {
        guard let id = hue.lightsByNumber[number], let index = lights.slot(of: id),
            governingSettings(at: index).network == .hueBridge, let light = try? light(id)
        else { return nil }
        return HueLight(number: number, light: light)
    }

    /// The rooms as the bridge lists them, in the order of their numbers.
    public func hueRooms() -> [HueRoom] {
        roomOrder.compactMap { id -> HueRoom? in
            guard let room = rooms[id], let number = hue.roomNumbers[id] else { return nil }
            let numbers = room.lightIDs.compactMap { light -> Int? in
                guard let index = lights.slot(of: light), governingSettings(at: index).network == .hueBridge else {
                    return nil
                }
                return hue.lightNumbers[light]
            }
            return HueRoom(number: number, id: id, name: room.name, lights: numbers)
        }.sorted { $0.number < $1.number }
    }

    /// The discovery search as the bridge reports it: under way or not, when the last one ended (simulation
    /// milliseconds), and the lights it found, in the order found.
    public func hueSearch() -> (active: Bool, endedMs: Double?, found: [LightID]) {
        // Every room shows the one search; the latest is the one to report.
        let scans = roomOrder.compactMap { id in rooms[id].flatMap { $0.scan ?? $0.lastScan } }
        guard let latest = scans.map(\.id).max() else { return (false, nil, []) }
        let these = scans.filter { $0.id == latest }
        let active = roomOrder.contains { rooms[$0]?.scan?.id == latest }
        return (active, active ? nil : these.first?.endsMs, these.flatMap(\.found))
    }

    /// Presses the bridge's link button: for the next 30 seconds of simulation time an app may pair.
    public func pressLinkButton() {
        refreshRealTime()
        linkButtonUntil = nowMicros + Self.micros(Self.linkButtonMs)
    }

    /// Whether an app may pair now: the link button was pressed less than 30 s ago, or pairing is left open.
    public var isLinkButtonPressed: Bool {
        refreshRealTime()
        return isHuePairingOpen || linkButtonUntil.map { nowMicros < $0 } ?? false
    }

    /// Leaves pairing open (or closes it again): every app may pair without the link button.
    public func setHuePairingOpen(_ open: Bool) { isHuePairingOpen = open }

    /// The most users the bridge keeps; pairing another forgets the oldest, as a full whitelist must.
    public static let hueUserLimit = 64

    /// Pairs an app that calls itself `deviceType`, while the link button is pressed.
    /// - Returns: the new user; its name is drawn from the seed and the number of users paired before, so a
    ///   replay pairs the same names and no two users share one.
    /// - Throws: ``LumenError`` `permissionDenied` when the link button is not pressed.
    public func pairHueUser(deviceType: String) throws(LumenError) -> HueBridgeState.User {
        guard isLinkButtonPressed else {
            throw LumenError(
                .permissionDenied, "link button not pressed; press it (lumenctl sim link-button) and retry")
        }
        // A stream of its own for each pairing: the bridge's other draws (broadcast latencies, discovery's
        // jitter) do not depend on whether an app paired.
        var random = SeededRandom(seed: fixtureIdentity.seed, label: "hue-user-\(hue.pairings)")
        var name = ""
        repeat {
            name = (0..<5).map { _ in String(hex: random.next() & 0xFFFF_FFFF, digits: 8) }.joined()
        } while hue.users.contains { $0.username == name }
        hue.pairings += 1
        let user = HueBridgeState.User(username: name, deviceType: deviceType, createdMs: nowMilliseconds)
        hue.users.append(user)
        if hue.users.count > Self.hueUserLimit { hue.users.removeFirst(hue.users.count - Self.hueUserLimit) }
        persistenceSink?.record(.hue(hue))
        return user
    }

    /// The paired users, oldest first.
    public var hueUsers: [HueBridgeState.User] { hue.users }

    /// The paired user called `username`, if there is one.
    public func hueUser(_ username: String) -> HueBridgeState.User? { hue.users.first { $0.username == username } }

    /// Saves the numbers the bridge gave at start before a light or room goes: without them, a restart would
    /// number the lights after it anew.
    func saveHueNumbersBeforeRemoval() {
        guard hueNumbersUnsaved, let persistenceSink else { return }
        persistenceSink.record(.hue(hue))
        hueNumbersUnsaved = false
    }

    /// Gives a new light its number on the bridge, and saves it.
    func numberForHue(light: LightID) {
        if hue.number(light) { persistenceSink?.record(.hue(hue)) }
    }

    /// Gives a new room its group number on the bridge, and saves it.
    func numberForHue(room: RoomID) {
        if hue.number(room) { persistenceSink?.record(.hue(hue)) }
    }
}
