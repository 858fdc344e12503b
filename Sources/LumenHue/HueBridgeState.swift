import LumenModel
import LumenProtocol

/// What the simulated Hue bridge keeps across restarts: the users paired with it, and the numbers its API
/// gives lights and rooms (Hue's `/lights/3`), which a client keeps, so they must never change under it.
struct HueBridgeState: Sendable {
    /// A user an app created by pairing while the link button was pressed.
    struct User: Sendable, Hashable {
        /// The key the app sends in every path (`/api/<username>/…`).
        var username: String
        /// What the app called itself (`devicetype`, "my_app#phone").
        var deviceType: String
        /// When it paired, in simulation milliseconds.
        var createdMs: Double
    }

    /// The paired users, the one unused longest first: a request moves its user to the end, so that a full
    /// whitelist forgets the first. The order stands for the times of use, since simulation time starts anew
    /// with lumend. It is saved whenever the bridge saves what it keeps (a pairing, a scene, a group, a new
    /// number), not with each request (that would be a commit of the whole bridge per request): after a restart,
    /// uses since then count as older.
    var users: [User] = []
    /// Each light's number on the bridge.
    private(set) var lightNumbers: [LightID: Int] = [:]
    /// The light with each number: ``lightNumbers`` turned round, for requests that name a light by number.
    private(set) var lightsByNumber: [Int: LightID] = [:]
    /// Each room's group number on the bridge (group 0 is every light).
    private(set) var roomNumbers: [RoomID: Int] = [:]
    /// How many apps have ever paired.
    var pairings = 0
    /// The scenes apps stored, the oldest first.
    var scenes: [Scene] = []
    /// The groups apps created (rooms are the home's), in the order of their numbers.
    private(set) var groups: [Group] = []
    /// The class an app gave a room (`Living room`, `Kitchen`…, which the Hue app shows as an icon); a room
    /// given none is `Other`.
    var roomClasses: [RoomID: String] = [:]
    /// The UUID the Hue API v2 gives each thing it shows, by ``resourceKey(light:)`` and its kin: kept, so that a
    /// client's IDs hold across restarts and one is never given to something else.
    var resourceIDs: [String: String] = [:]
    /// The geofence clients apps made over API v2 (a phone's presence, or aiohue's keep-alive), the oldest first.
    var geofenceClients: [GeofenceClient] = []
    /// The highest light and group numbers given, so the next is found without looking at every one: rooms and
    /// the groups apps create share one numbering, as on a bridge.
    private var highest: (light: Int, room: Int) = (0, 0)

    /// Makes room for `count` more numbered lights at once, rather than growing the tables light by light.
    package mutating func reserveCapacity(lights count: Int) {
        lightNumbers.reserveCapacity(lightNumbers.count + count)
        lightsByNumber.reserveCapacity(lightsByNumber.count + count)
    }

    /// Gives `light` the next free number, unless it has one; returns whether it was given one.
    mutating func number(_ light: LightID) -> Bool {
        guard lightNumbers[light] == nil else { return false }
        highest.light += 1
        lightNumbers[light] = highest.light
        lightsByNumber[highest.light] = light
        return true
    }

    /// Takes `light` out of every scene and every group apps created, as a bridge does when a light is deleted;
    /// its number stays taken. Returns whether any scene or group held it.
    mutating func forget(_ light: LightID) -> Bool {
        guard let number = lightNumbers[light] else { return false }
        var changed = false
        for index in scenes.indices where scenes[index].lights.contains(number) {
            scenes[index].lights.removeAll { $0 == number }
            scenes[index].lightStates[number] = nil
            changed = true
        }
        for index in groups.indices where groups[index].lights.contains(number) {
            groups[index].lights.removeAll { $0 == number }
            changed = true
        }
        return changed
    }

    /// Gives `room` the next free group number, unless it has one; returns whether it was given one.
    mutating func number(_ room: RoomID) -> Bool {
        guard roomNumbers[room] == nil else { return false }
        highest.room += 1
        roomNumbers[room] = highest.room
        return true
    }

    /// Keeps a new group under the next free group number, which it returns.
    mutating func addGroup(
        name: String, type: Group.Kind, lights: [Int], roomClass: String
    ) -> Int {
        highest.room += 1
        groups.append(Group(number: highest.room, name: name, kind: type, lights: lights, roomClass: roomClass))
        return highest.room
    }

    /// Changes the group numbered `number` with `change`; whether there is one.
    mutating func updateGroup(_ number: Int, _ change: (inout Group) -> Void) -> Bool {
        guard let index = groups.firstIndex(where: { $0.number == number }) else { return false }
        change(&groups[index])
        groups[index].number = number
        return true
    }

    /// Forgets the group numbered `number`, and the scenes stored for it, as a bridge does; whether there was one.
    mutating func removeGroup(_ number: Int) -> Bool {
        guard let index = groups.firstIndex(where: { $0.number == number }) else { return false }
        groups.remove(at: index)
        scenes.removeAll { $0.group == number }
        return true
    }
}

extension HueBridgeState {
    /// `{"users": [{username, devicetype, createdMs}], "lights": {id: n}, "rooms": {id: n}, "scenes": [scene],
    /// "groups": [group], "roomClasses": {id: class}, "resourceIDs": {key: uuid}, "geofenceClients": [client]}`, the
    /// last five only when there are some.
    var jsonValue: JSONValue {
        let value: JSONValue = .object([
            "users": .array(
                users.map { user in
                    .object([
                        "username": .string(user.username), "devicetype": .string(user.deviceType),
                        "createdMs": .double(user.createdMs),
                    ])
                }),
            // Each number names one light: the numbers in order give the lights in order, sorted as integers.
            "lights": .object(JSONObject(sortedByKey: lightsByNumber) { ($1.rawValue, .int($0)) }),
            "rooms": Self.numbers(roomNumbers.map { ($0.key.rawValue, $0.value) }),
            "pairings": .int(pairings),
        ])
        // Written only when there are some, so a bridge without them saves what it always saved.
        guard
            !scenes.isEmpty || !groups.isEmpty || !roomClasses.isEmpty || !resourceIDs.isEmpty
                || !geofenceClients.isEmpty,
            case .object(var object) = value
        else { return value }
        if !scenes.isEmpty { object["scenes"] = .array(scenes.map(\.jsonValue)) }
        if !groups.isEmpty { object["groups"] = .array(groups.map(\.jsonValue)) }
        if !roomClasses.isEmpty {
            object["roomClasses"] = .object(JSONObject(sortedByKey: roomClasses) { ($0.rawValue, .string($1)) })
        }
        if !resourceIDs.isEmpty {
            object["resourceIDs"] = .object(JSONObject(sortedByKey: resourceIDs) { ($0, .string($1)) })
        }
        if !geofenceClients.isEmpty { object["geofenceClients"] = .array(geofenceClients.map(\.jsonValue)) }
        return .object(object)
    }

    /// Whether `name` may name a Hue user: 1 to 64 of the characters a URL path carries as they are (letters,
    /// digits and `- . _ ~ ! $ & ' ( ) * + , ; = : @`), and not `.`, `..` or `config` (a client would
    /// normalise the first two away, and `/api/config` is the bridge's own). Lumen draws the names it gives from
    /// the kernel's random source (40 hexadecimal digits); a name a fixture or a test gives is meant to be known.
    static func isUsername(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count) && ![".", "..", "config"].contains(name)
            && isLettersAndDigits(name, or: "-._~!$&'()*+,;=:@")
    }

    /// What ``isUsername(_:)`` asks, for an error message.
    static let usernameRule =
        "a Hue user's name is 1 to 64 letters, digits and - . _ ~ ! $ & ' ( ) * + , ; = : @ (not '.', '..' or "
        + "'config')"

    /// Whether `text` holds nothing but ASCII letters, digits and the characters of `others`.
    static func isLettersAndDigits(_ text: String, or others: String) -> Bool {
        text.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || others.utf8.contains(byte)
        }
    }

    /// IDs and their numbers as an object, in the order of the numbers.
    private static func numbers(_ pairs: [(String, Int)]) -> JSONValue {
        .object(JSONObject(pairs.sorted { $0.1 < $1.1 }.map { (key: $0.0, value: .int($0.1)) }))
    }

    /// Reads what ``jsonValue`` writes.
    init(cursor: JSONCursor) throws(JSONShapeError) {
        self.init()
        let object = try cursor.object(allowing: [
            "users", "lights", "rooms", "pairings", "scenes", "groups", "roomClasses", "resourceIDs", "geofenceClients",
        ])
        pairings = try object.optional("pairings")?.int(in: 0...Int.max) ?? 0
        users =
            try object.optional("users")?.array().map { element throws(JSONShapeError) in
                let fields = try element.object(allowing: ["username", "devicetype", "createdMs"])
                let username = try fields.required("username").string()
                guard Self.isUsername(username) else {
                    throw try fields.required("username").error(Self.usernameRule)
                }
                return User(
                    username: username,
                    deviceType: try fields.required("devicetype").string(),
                    createdMs: try fields.required("createdMs").double(in: 0...1e15))
            } ?? []
        if let duplicate = Dictionary(grouping: users, by: \.username).first(where: { $0.value.count > 1 })?.key {
            throw try object.required("users").error("the Hue user '\(duplicate)' is given twice; keep one")
        }
        let lights = try Self.numbering(object.optional("lights"), of: "light", as: LightID.init(_:))
        let rooms = try Self.numbering(object.optional("rooms"), of: "room", as: RoomID.init(_:))
        (lightNumbers, lightsByNumber, roomNumbers) = (lights.numbers, lights.byNumber, rooms.numbers)
        groups = try Self.groups(object.optional("groups"), besides: rooms.byNumber)
        scenes = try Self.scenes(object.optional("scenes"))
        if let classes = object.optional("roomClasses") {
            guard case .object(let given) = classes.value else {
                throw classes.error("expected an object of room IDs and classes")
            }
            for (room, _) in given.members {
                let member = JSONCursor(given[room]!, path: classes.path.appending(room))
                roomClasses[RoomID(room)] = try member.string()
            }
        }
        resourceIDs = try Self.resourceIDs(object.optional("resourceIDs"))
        geofenceClients = try Self.geofenceClients(object.optional("geofenceClients"))
        highest = (
            lights.byNumber.keys.max() ?? 0, max(rooms.byNumber.keys.max() ?? 0, groups.last?.number ?? 0)
        )
    }

    /// The numbers a saved record may give a light, a room or a group.
    static let savedNumbers = 1...1_000_000

    /// The `{id: n}` object at `cursor` (none when `nil`), each way round. Each ID has one number and each
    /// number one ID, or a client's `/lights/3` could name two lights. Read in one pass: a home may hold a
    /// hundred thousand lights.
    private static func numbering<ID: Hashable>(
        _ cursor: JSONCursor?, of what: String, as id: (String) -> ID
    ) throws(JSONShapeError) -> (numbers: [ID: Int], byNumber: [Int: ID]) {
        guard let cursor else { return ([:], [:]) }
        guard case .object(let object) = cursor.value else {
            throw cursor.error("expected an object of IDs and numbers")
        }
        var numbers: [ID: Int] = [:]
        var byNumber: [Int: ID] = [:]
        numbers.reserveCapacity(object.members.count)
        byNumber.reserveCapacity(object.members.count)
        for (name, value) in object.members {
            // A member's cursor, with its path, is made only for an error: a record numbers every light.
            func member() -> JSONCursor { JSONCursor(value, path: cursor.path.appending(name)) }
            let number: Int
            if case .number(let given) = value, let int = given.intValue, savedNumbers.contains(int) {
                number = int
            } else {
                number = try member().int(in: savedNumbers)
            }
            let thing = id(name)
            guard numbers.updateValue(number, forKey: thing) == nil else {
                throw member().error("\(what) '\(name)' is numbered twice; keep one of its numbers")
            }
            guard byNumber.updateValue(thing, forKey: number) == nil else {
                throw member().error("\(what) number \(number) is given twice; give each its own")
            }
        }
        return (numbers, byNumber)
    }
}
