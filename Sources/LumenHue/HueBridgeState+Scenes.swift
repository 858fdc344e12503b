import LumenModel
import LumenProtocol

extension HueBridgeState {
    /// A scene an app stored on the bridge: the state each of its lights takes when it is recalled.
    struct Scene: Sendable, Hashable {
        /// The bridge's name for it (`/scenes/<id>`): letters and digits.
        var id: String
        /// What the app called it.
        var name: String
        /// The group it belongs to (a `GroupScene`), or `nil` for a `LightScene`.
        var group: Int?
        /// The numbers of its lights.
        var lights: [Int]
        /// The state each light takes, in the Hue API's words (`{"on": true, "bri": 200, "xy": [0.3, 0.3]}`),
        /// by light number; checked for the light when stored.
        var lightStates: [Int: JSONObject]
        /// The user that stored it.
        var owner: String
        /// Whether the bridge may delete it on its own.
        var recycle = false
        /// What the app keeps with it (`{"version": 1, "data": "…"}`).
        var appData: JSONObject = [:]
        /// The app's picture name.
        var picture = ""
        /// When it last changed, on the wall clock, as the Hue API writes times.
        var lastUpdated: String
        /// The speed of its dynamics, 0–1, as API v2 sets and reports it (Lumen plays no palettes).
        var speed: Double = 0.5

        /// Its saved form.
        var jsonValue: JSONValue {
            var object: JSONObject = ["id": .string(id), "name": .string(name)]
            if let group { object["group"] = .int(group) }
            object["lights"] = .array(lights.map { .int($0) })
            object["lightstates"] = .object(JSONObject(sortedByKey: lightStates) { (String($0), .object($1)) })
            object["owner"] = .string(owner)
            object["recycle"] = .bool(recycle)
            object["appdata"] = .object(appData)
            object["picture"] = .string(picture)
            object["lastupdated"] = .string(lastUpdated)
            // Written only when set, so a scene that never was saves what it always saved.
            if speed != 0.5 { object["speed"] = .double(speed) }
            return .object(object)
        }
    }

    /// A group an app created: a set of lights of its own choosing, apart from the home's rooms.
    struct Group: Sendable, Hashable {
        /// The kinds of group an app may create.
        enum Kind: String, Sendable, Hashable, CaseIterable {
            /// Any lights, for the app's own use.
            case lightGroup = "LightGroup"
            /// Lights an app groups across rooms (a light may be in several zones).
            case zone = "Zone"
        }

        /// Its number among the groups (`/groups/<n>`), shared with the rooms'.
        var number: Int
        /// What the app called it.
        var name: String
        /// Its type.
        var kind: Kind
        /// The numbers of its lights.
        var lights: [Int]
        /// Its class (`Living room`, `Other`), which the Hue app shows as an icon.
        var roomClass: String

        /// Its saved form.
        var jsonValue: JSONValue {
            .object([
                "number": .int(number), "name": .string(name), "type": .string(kind.rawValue),
                "lights": .array(lights.map { .int($0) }), "class": .string(roomClass),
            ])
        }
    }

    /// The most scenes the bridge keeps, as a Hue bridge does.
    static let sceneLimit = 200
    /// The most light states all scenes hold together, as a Hue bridge keeps.
    static let sceneLightStateLimit = 2_048
    /// The most groups apps may create, as a Hue bridge's group table holds.
    static let groupLimit = 64

    /// How many light states the scenes hold.
    var sceneLightStateCount: Int { scenes.reduce(0) { $0 + $1.lightStates.count } }

    /// Whether `id` may name a scene: 1 to 32 letters, digits and `-`, since it stands in a path.
    static func isSceneID(_ id: String) -> Bool {
        (1...32).contains(id.utf8.count) && isLettersAndDigits(id, or: "-")
    }

    /// Reads the saved groups at `cursor`, whose numbers must not be a room's.
    static func groups(_ cursor: JSONCursor?, besides rooms: [Int: RoomID]) throws(JSONShapeError) -> [Group] {
        guard let cursor else { return [] }
        let elements = try cursor.array()
        guard elements.count <= groupLimit else { throw cursor.error("at most \(groupLimit) groups are kept") }
        var groups: [Group] = []
        for element in elements {
            let fields = try element.object(allowing: ["number", "name", "type", "lights", "class"])
            let number = try fields.required("number").int(in: savedNumbers)
            guard rooms[number] == nil, !groups.contains(where: { $0.number == number }) else {
                throw try fields.required("number").error("group number \(number) is given twice; give each its own")
            }
            groups.append(
                Group(
                    number: number, name: try fields.required("name").string(),
                    kind: try fields.required("type").enumeration(Group.Kind.self),
                    lights: try lightNumbers(fields.required("lights")),
                    roomClass: try fields.optional("class")?.string() ?? "Other"))
        }
        return groups.sorted { $0.number < $1.number }
    }

    /// Reads the saved list of light numbers at `cursor`, a group's or a scene's.
    private static func lightNumbers(_ cursor: JSONCursor) throws(JSONShapeError) -> [Int] {
        try cursor.array().map { light throws(JSONShapeError) in try light.int(in: savedNumbers) }
    }

    /// Reads the saved scenes at `cursor`.
    static func scenes(_ cursor: JSONCursor?) throws(JSONShapeError) -> [Scene] {
        guard let cursor else { return [] }
        let elements = try cursor.array()
        guard elements.count <= sceneLimit else { throw cursor.error("at most \(sceneLimit) scenes are kept") }
        var scenes: [Scene] = []
        var ids: Set<String> = []
        for element in elements {
            let fields = try element.object(allowing: [
                "id", "name", "group", "lights", "lightstates", "owner", "recycle", "appdata", "picture",
                "lastupdated", "speed",
            ])
            let id = try fields.required("id").string()
            guard isSceneID(id), ids.insert(id).inserted else {
                throw try fields.required("id").error("a scene's ID is 1 to 32 letters and digits, each its own")
            }
            var states: [Int: JSONObject] = [:]
            if let lightStates = fields.optional("lightstates") {
                guard case .object(let object) = lightStates.value else {
                    throw lightStates.error("expected an object of light numbers and states")
                }
                for (name, value) in object.members {
                    guard let number = Int(name), number > 0, case .object(let state) = value else {
                        throw lightStates.error("expected a light number and a state object, not '\(name)'")
                    }
                    states[number] = state
                }
            }
            scenes.append(
                Scene(
                    id: id, name: try fields.required("name").string(),
                    group: try fields.optional("group")?.int(in: 0...savedNumbers.upperBound),
                    lights: try lightNumbers(fields.required("lights")),
                    lightStates: states, owner: try fields.optional("owner")?.string() ?? "",
                    recycle: try fields.optional("recycle")?.bool() ?? false,
                    appData: fields.optional("appdata")?.value.objectValue ?? [:],
                    picture: try fields.optional("picture")?.string() ?? "",
                    lastUpdated: try fields.optional("lastupdated")?.string() ?? ""))
            if let speed = fields.optional("speed") { scenes[scenes.count - 1].speed = try speed.double(in: 0...1) }
        }
        guard scenes.reduce(0, { $0 + $1.lightStates.count }) <= sceneLightStateLimit else {
            throw cursor.error("the scenes hold more than \(sceneLightStateLimit) light states together")
        }
        return scenes
    }
}
