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

/// What pairing with the Hue bridge did: the user it made, and those it forgot to make room.
public struct HuePairing: Sendable, Hashable {
    /// The new user.
    public var user: HueBridgeState.User
    /// The users forgotten to make room for it, unused longest first: none unless the whitelist was full.
    public var forgotten: [HueBridgeState.User]
}

extension Home {
    /// How long the simulated link button stays pressed, as on a Hue bridge.
    public static let linkButtonMs: Double = 30_000

    /// The lights behind the Hue bridge, in the order of their numbers.
    public func hueLights() -> [HueLight] {
        var result: [HueLight] = []
        for index in 0..<lights.count where governingSettings(at: index).network == .hueBridge {
            let id = lights[slot: index].id
            guard let number = hue.lightNumbers[id], let light = try? acceptedLight(id) else { continue }
            result.append(HueLight(number: number, light: light))
        }
        return result.sorted { $0.number < $1.number }
    }

    /// The light behind the bridge with this number, if there is one.
    public func hueLight(number: Int) -> HueLight? {
        guard let id = hue.lightsByNumber[number], let index = lights.slot(of: id),
            governingSettings(at: index).network == .hueBridge, let light = try? acceptedLight(id)
        else { return nil }
        return HueLight(number: number, light: light)
    }

    /// A light as a bridge reports it once it has accepted a command: with every fade landed, since the fade
    /// goes on in the bulb, out of the bridge's sight.
    func acceptedLight(_ id: LightID) throws(LumenError) -> LightSnapshot {
        var light = try light(id)
        if let fades = transitions[id] { light.state = fades.landing(over: light.state) }
        return light
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

    /// The most users the bridge keeps unless told otherwise (``setHueUserLimit(_:)``).
    public static let defaultHueUserLimit = 64

    /// Keeps at most `limit` users from now on; pairing past it forgets the user unused longest.
    public func setHueUserLimit(_ limit: Int) { hueUserLimit = max(1, limit) }

    /// Pairs an app that calls itself `deviceType`: while the link button is pressed, or at once when the
    /// simulation names the user.
    /// - Parameter username: the name to pair, for a test that needs a fixed user; `nil` draws one of 40
    ///   hexadecimal digits from the kernel's random source, as a bridge draws it, so that no one can compute
    ///   it from the fixture and its seed.
    /// - Returns: the new user, and those forgotten to make room for it (none unless the whitelist was full).
    /// - Throws: ``LumenError`` `permissionDenied` when no name is given and the link button is not pressed;
    ///   `alreadyExists` for a name paired already; `invalidParams` for a name ``HueBridgeState/isUsername(_:)``
    ///   refuses.
    @discardableResult
    public func pairHueUser(deviceType: String, username: String? = nil) throws(LumenError) -> HuePairing {
        var name: String
        if let username {
            guard HueBridgeState.isUsername(username) else {
                throw LumenError(.invalidParams, HueBridgeState.usernameRule)
            }
            guard hueUser(username) == nil else {
                throw LumenError(.alreadyExists, "the Hue user '\(username)' is paired already; pair another name")
            }
            name = username
        } else {
            guard isLinkButtonPressed else {
                throw LumenError(
                    .permissionDenied, "link button not pressed; press it (lumenctl sim link-button) and retry")
            }
            repeat { name = .unguessable(digits: 40) } while hueUser(name) != nil
        }
        var forgotten: [HueBridgeState.User] = []
        // The users unused longest go first: an app in use keeps its name however many others pair after it.
        while hue.users.count >= hueUserLimit { forgotten.append(hue.users.removeFirst()) }
        hue.pairings += 1
        let user = HueBridgeState.User(username: name, deviceType: deviceType, createdMs: nowMilliseconds)
        hue.users.append(user)
        persistenceSink?.record(.hue(hue))
        return HuePairing(user: user, forgotten: forgotten)
    }

    /// The paired users, the one unused longest first.
    public var hueUsers: [HueBridgeState.User] { hue.users }

    /// The paired user called `username`, if there is one.
    public func hueUser(_ username: String) -> HueBridgeState.User? { hue.users.first { $0.username == username } }

    /// The paired user called `username`, if there is one, marked as used now (moved to the end).
    public func useHueUser(_ username: String) -> HueBridgeState.User? {
        guard let index = hue.users.firstIndex(where: { $0.username == username }) else { return nil }
        let user = hue.users.remove(at: index)
        hue.users.append(user)
        return user
    }

    /// What the bridge keeps now: its users, numbers, scenes and the groups apps created.
    public var hueState: HueBridgeState { hue }

    /// Changes what the bridge keeps with `change` and saves it, all or nothing: a scene or group stored, a user
    /// forgotten. Nothing changes when `change` throws.
    public func changeHueState<Result: Sendable, Failure: Error>(
        _ change: @Sendable (inout HueBridgeState) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        var state = hue
        let result = try change(&state)
        hue = state
        persistenceSink?.record(.hue(hue))
        return result
    }

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
