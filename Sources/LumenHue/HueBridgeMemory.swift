import LumenModel
import LumenProtocol
import LumenSimulation

/// A light as the Hue bridge lists it.
struct HueLight: Sendable, Hashable {
    /// Its number on the bridge (`/lights/3`).
    var number: Int
    /// The light, as the bridge reports it once it has accepted a command.
    var light: LightSnapshot
    /// What it does besides holding its state: the bridge's `effect` and `alert`.
    var effect: LightEffect = .none
    /// The speed API v2 gave its dynamics, if it did.
    var speed: Double?
    /// The timed effect it plays (API v2's `timed_effects`, a sunrise or a sunset), while it runs.
    var timedEffect: TimedEffect?
    /// The speed of the scene whose palette it plays (API v2's `dynamic_palette`), while such a scene holds it:
    /// set by ``HueBridgeMemory/withPaletteSpeeds(_:)``.
    var paletteSpeed: Double?
    /// The colour temperatures it takes, in mireds, within the API's 153–500: a bridge lists them for each light
    /// (`capabilities.control.ct`, v2's `mirek_schema`) and brings a value past them into them.
    let miredRange: ClosedRange<Int>

    /// The light `device` numbered `number`, as the bridge reports it once it has accepted a command: with
    /// every fade landed, and a colour temperature past the light's range within the API's (a LIFX light's
    /// 1,500 K) read as the nearer end.
    init(number: Int, _ device: DeviceLight) {
        self.number = number
        light = device.light
        light.state = device.landedState
        effect = device.effect
        timedEffect = device.timedEffect
        miredRange = device.colorTemperatureRange.clamped(to: CIEColor.miredRange)
        let showsWhite = light.state.showsColorTemperature
        light.state.colorTemperature = miredRange.clamping(light.state.colorTemperature)
        // A colour light showing its white still shows one, the nearer end's, not a colour.
        if showsWhite { light.state.color = CIEColor(mireds: light.state.colorTemperature) }
    }
}

/// A room as the Hue bridge lists it: a group of type `Room`.
struct HueRoom: Sendable, Hashable {
    /// Its group number on the bridge.
    var number: Int
    /// The room.
    var id: RoomID
    /// Its name.
    var name: String
    /// The numbers of its lights that stand behind the bridge, in the room's order.
    var lights: [Int]
    /// Its class (`Living room`, `Kitchen`…).
    var roomClass = "Other"
}

/// What pairing with the Hue bridge did: the user it made, and those it forgot to make room.
struct HuePairing: Sendable, Hashable {
    /// The new user.
    var user: HueBridgeState.User
    /// The users forgotten to make room for it, unused longest first: none unless the whitelist was full.
    var forgotten: [HueBridgeState.User]
}

/// What the bridge knows between requests: what it keeps across restarts, saved with the home under `hue`, and
/// what lasts while lumend runs.
struct HueBridgeMemory: Sendable {
    /// Its users, its numbers for lights and rooms, its scenes and groups.
    var state = HueBridgeState()
    /// Whether `state` was read from the home's record yet: it is, on the bridge's first visit to the home.
    var isLoaded = false
    /// Until when the link button counts as pressed, in simulation milliseconds.
    var linkButtonUntilMs: Double?
    /// Whether any app may pair without the link button.
    var isPairingOpen = false
    /// The most users kept; pairing past it forgets the user unused longest.
    var userLimit = HueBridge.defaultUserLimit
    /// The home's ``Home/topologyGeneration`` the numbers were last brought up to date with.
    var numberedGeneration: Int?
    /// Whether `state` changed since it was last saved.
    var isUnsaved = false
    /// The scenes recalled, by v1 ID, each with the state its lights were left in: a scene stays active while
    /// they keep it, as a bridge reports one, and not after a light of it changed. Not kept across restarts.
    var recalledScenes: [String: [LightID: LightState]] = [:]
    /// The scenes among ``recalledScenes`` recalled to play their palette (API v2's `dynamic_palette`), which
    /// API v2 reports as their mode while they stay active.
    var dynamicScenes: Set<String> = []
    /// When each scene was last recalled (by v1 ID), as API v2's `status.last_recall` gives it: kept once the
    /// scene is inactive again, not across restarts.
    var lastRecalls: [String: String] = [:]
    /// The speed API v2 last gave each light's dynamics (`dynamics.speed`), reported back as given.
    var lightSpeeds: [LightID: Double] = [:]

    /// Reads the state the home keeps for the bridge, once, and gives every room and light the home gained
    /// since the last visit its number, in the home's order; a light gone leaves the scenes and groups that held
    /// it, as on a bridge (its number stays taken), and a room gone leaves its class.
    mutating func catchUp(with home: isolated Home) {
        if !isLoaded {
            // A record that does not read was refused at start (``HueBridge/numberAtStart(_:)``).
            state = (try? HueBridgeState(record: home.frontRecord(HueBridge.recordName))) ?? HueBridgeState()
            isLoaded = true
        }
        guard numberedGeneration != home.topologyGeneration else { return }
        numberedGeneration = home.topologyGeneration
        let rooms = home.roomList
        let roomLights = rooms.reduce(0) { $0 + $1.lights.count }
        state.reserveCapacity(lights: max(0, roomLights - state.lightNumbers.count))
        for room in rooms {
            if state.number(room.id) { isUnsaved = true }
            for light in room.lights where state.number(light) { isUnsaved = true }
        }
        // Every light of the home is in one room, numbered by now: when as many are numbered as the home has and
        // the rooms hold, the numbered are the home's, and none is gone. Looking at each costs a lookup a light.
        // A gone light keeps its number, so once one has gone every later catch-up looks at each.
        let noneGone = state.lightNumbers.count == home.lightCount && roomLights == home.lightCount
        if !noneGone {
            for light in state.lightNumbers.keys where !home.hasLight(light) {
                if state.forget(light) { isUnsaved = true }
            }
        }
        // A room gone takes its class with it; its number stays taken, as a light's does.
        for room in state.roomClasses.keys where !home.hasRoom(room) {
            state.roomClasses[room] = nil
            isUnsaved = true
        }
        // A record saved before v2's UUIDs were kept gets them here, once, and saved with it.
        if state.giveResourceIDs(lightsAndRooms: true) { isUnsaved = true }
    }

    /// Changes what the bridge keeps with `change`, all or nothing: nothing changes when `change` throws.
    mutating func change<Result, Failure: Error>(
        _ change: (inout HueBridgeState) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        var changed = state
        let result = try change(&changed)
        // A scene or zone made has its UUID from the moment it is stored; one gone takes its UUID with it.
        changed.giveResourceIDs(
            lightsAndRooms: false, gone: state.createdResourceKeys.subtracting(changed.createdResourceKeys))
        state = changed
        isUnsaved = true
        // A scene gone takes its last recall with it; the bridge holds at most 200 scenes, so this stays small.
        if !lastRecalls.isEmpty {
            let stored = Set(state.scenes.map(\.id))
            lastRecalls = lastRecalls.filter { stored.contains($0.key) }
        }
        return result
    }

    /// Marks the scene `id` active, its lights as `lights` show them now, and every other scene sharing a light
    /// with it inactive: the lights are the last recalled scene's.
    /// - Parameters:
    ///   - dynamic: whether it was recalled to play its palette (API v2's `dynamic_palette`).
    ///   - time: the wall clock's time of the recall, as API v2 reports it (`2026-01-01T00:00:00Z`).
    mutating func recalled(_ id: String, lights: [HueLight], dynamic: Bool = false, at time: String) {
        let numbers = Set(state.scenes.first { $0.id == id }?.lights ?? [])
        let states = Dictionary(
            lights.filter { numbers.contains($0.number) }.map { ($0.light.id, $0.light.state) },
            uniquingKeysWith: { first, _ in first })
        for (other, held) in recalledScenes where !Set(held.keys).isDisjoint(with: states.keys) {
            recalledScenes[other] = nil
            dynamicScenes.remove(other)
        }
        recalledScenes[id] = states
        if dynamic { dynamicScenes.insert(id) } else { dynamicScenes.remove(id) }
        lastRecalls[id] = time
    }

    /// The scenes active now, among `lights` as they are: forgetting, for good, those a light of has changed
    /// since their recall, or that are gone.
    mutating func activeScenes(lights: [HueLight]) -> Set<String> {
        guard !recalledScenes.isEmpty else {
            dynamicScenes = []
            return []
        }
        let held = Set(recalledScenes.values.flatMap(\.keys))
        var now: [LightID: LightState] = [:]
        for light in lights where held.contains(light.light.id) { now[light.light.id] = light.light.state }
        let stored = Set(state.scenes.map(\.id))
        for (id, held) in recalledScenes where !stored.contains(id) || held.contains(where: { now[$0.key] != $0.value })
        {
            recalledScenes[id] = nil
        }
        dynamicScenes.formIntersection(recalledScenes.keys)
        return Set(recalledScenes.keys)
    }

    /// `lights`, each held by an active scene recalled with `dynamic_palette` given that scene's speed as the
    /// speed it plays the palette at; the others none. While any scene was recalled so, forgets the scenes no
    /// longer active, as ``activeScenes(lights:)`` does.
    mutating func withPaletteSpeeds(_ lights: [HueLight]) -> [HueLight] {
        // Most reads find no scene recalled with its palette: they cost nothing here.
        guard !dynamicScenes.isEmpty else { return lights }
        let dynamic = activeScenes(lights: lights).intersection(dynamicScenes)
        guard !dynamic.isEmpty else { return lights }
        var speeds: [LightID: Double] = [:]
        for scene in state.scenes where dynamic.contains(scene.id) {
            for light in (recalledScenes[scene.id] ?? [:]).keys { speeds[light] = scene.speed }
        }
        return lights.map { light in
            var light = light
            light.paletteSpeed = speeds[light.light.id]
            return light
        }
    }

    /// The lights behind the bridge, in the order of their numbers.
    func lights(in home: isolated Home) -> [HueLight] {
        home.devices(on: .hueBridge).compactMap { device in
            state.lightNumbers[device.light.id].map { number in
                var light = HueLight(number: number, device)
                light.speed = lightSpeeds[device.light.id]
                return light
            }
        }.sorted { $0.number < $1.number }
    }

    /// The light behind the bridge with the number `number` gives.
    /// - Throws: ``HueError`` 3 when there is none.
    func light(_ number: String, in home: isolated Home) throws(HueError) -> HueLight {
        guard let value = Int(number), let id = state.lightsByNumber[value],
            let device = home.device(id, on: .hueBridge)
        else { throw HueError.notAvailable("/lights/\(number)") }
        return HueLight(number: value, device)
    }

    /// The rooms, in the order of their numbers, each listing those of `lights` in it.
    func rooms(in home: isolated Home, lights: [HueLight]) -> [HueRoom] {
        let behindBridge = Set(lights.map(\.light.id))
        return home.roomList.compactMap { room -> HueRoom? in
            guard let number = state.roomNumbers[room.id] else { return nil }
            let numbers = room.lights.compactMap { behindBridge.contains($0) ? state.lightNumbers[$0] : nil }
            return HueRoom(
                number: number, id: room.id, name: room.name, lights: numbers,
                roomClass: state.roomClasses[room.id] ?? "Other")
        }.sorted { $0.number < $1.number }
    }

    /// Whether an app may pair at `nowMs`: the link button was pressed less than 30 s before, or pairing is open.
    func isLinkButtonPressed(atMs nowMs: Double) -> Bool {
        isPairingOpen || linkButtonUntilMs.map { nowMs < $0 } ?? false
    }

    /// The paired user called `username`, if there is one, marked as used now (moved to the end).
    mutating func use(_ username: String) -> HueBridgeState.User? {
        guard let index = state.users.firstIndex(where: { $0.username == username }) else { return nil }
        let user = state.users.remove(at: index)
        state.users.append(user)
        return user
    }

    /// Pairs an app that calls itself `deviceType`: while the link button is pressed, or at once when the
    /// simulation names the user.
    /// - Parameter username: the name to pair, for a test that needs a fixed user; `nil` draws one of 40
    ///   hexadecimal digits from the kernel's random source, as a bridge draws it, so that no one can compute
    ///   it from the fixture and its seed.
    /// - Throws: ``LumenError`` `permissionDenied` when no name is given and the link button is not pressed;
    ///   `alreadyExists` for a name paired already; `invalidParams` for a name ``HueBridgeState/isUsername(_:)``
    ///   refuses.
    mutating func pair(deviceType: String, username: String?, atMs nowMs: Double) throws(LumenError) -> HuePairing {
        let users = state.users
        func isTaken(_ name: String) -> Bool { users.contains { $0.username == name } }
        var name: String
        if let username {
            guard HueBridgeState.isUsername(username) else {
                throw LumenError(.invalidParams, HueBridgeState.usernameRule)
            }
            guard !isTaken(username) else {
                throw LumenError(.alreadyExists, "the Hue user '\(username)' is paired already; pair another name")
            }
            name = username
        } else {
            guard isLinkButtonPressed(atMs: nowMs) else {
                throw LumenError(
                    .permissionDenied, "link button not pressed; press it (lumenctl sim link-button) and retry")
            }
            repeat { name = .unguessable(digits: 40) } while isTaken(name)
        }
        let limit = userLimit
        return change { state in
            var forgotten: [HueBridgeState.User] = []
            // The users unused longest go first: an app in use keeps its name however many others pair after it.
            while state.users.count >= limit { forgotten.append(state.users.removeFirst()) }
            state.pairings += 1
            let user = HueBridgeState.User(username: name, deviceType: deviceType, createdMs: nowMs)
            state.users.append(user)
            return HuePairing(user: user, forgotten: forgotten)
        }
    }
}

extension HueBridgeState {
    /// The state in the home's record for the bridge (`nil`: an empty bridge).
    /// - Throws: ``JSONShapeError``, at its path under `hue`, for a record that does not read.
    init(record: JSONValue?) throws(JSONShapeError) {
        guard let record else {
            self.init()
            return
        }
        try self.init(cursor: JSONCursor(record, path: JSONPath.root.appending(HueBridge.recordName)))
    }
}
