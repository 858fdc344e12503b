import LumenModel
import LumenProtocol
import LumenSimulation

extension HueBridge {
    /// `GET /api/<user>/scenes`: every scene of `scenes` by ID, without its light states, as a bridge lists them
    /// and as `username` may read them.
    static func scenesObject(_ scenes: [HueBridgeState.Scene], for username: String) -> JSONValue {
        .object(JSONObject(scenes.map { (key: $0.id, value: json(of: $0, for: username, withStates: false)) }))
    }

    /// The scene called `id`.
    func storedScene(_ id: String) async throws(HueError) -> HueBridgeState.Scene {
        guard let scene = await visit({ _, memory in memory.state.scenes.first { $0.id == id } }) else {
            throw HueError.notAvailable("/scenes/\(id)")
        }
        return scene
    }

    /// A scene as the Hue API v1 shows it, with the state of each of its lights when asked
    /// (`GET /api/<user>/scenes/<id>`). Its owner is named to that user alone: a user's name is its key.
    static func json(of scene: HueBridgeState.Scene, for username: String, withStates: Bool) -> JSONValue {
        var object: JSONObject = [
            "name": .string(scene.name), "type": scene.group == nil ? "LightScene" : "GroupScene",
        ]
        if let group = scene.group { object["group"] = .string(String(group)) }
        object["lights"] = .array(scene.lights.map { .string(String($0)) })
        object["owner"] = .string(scene.owner == username ? username : "")
        object["recycle"] = .bool(scene.recycle)
        object["locked"] = false
        object["appdata"] = .object(scene.appData)
        object["picture"] = .string(scene.picture)
        object["lastupdated"] = .string(scene.lastUpdated)
        object["version"] = 2
        if withStates {
            object["lightstates"] = .object(
                JSONObject(
                    scene.lights.compactMap { number in
                        scene.lightStates[number].map { (key: String(number), value: .object($0)) }
                    }))
        }
        return .object(object)
    }

    /// `POST /api/<user>/scenes`: stores a scene of lights (`lights`) or of a group (`group`), with the states
    /// given in `lightstates` and, for the lights given none, the state each is in now, as a bridge captures it.
    func createScene(_ request: HTTPRequest, owner: String) async throws -> HTTPResponse {
        let id = try await storeScene(request, owner: owner).id
        return .json([["success": ["id": .string(id)]]])
    }

    /// Stores the scene `request` describes (``createScene(_:owner:)``), durably; returns its v1 ID and the API v2
    /// UUID it was given with it, in the same step, so that a reset or restore an instant later cannot part them.
    /// - Parameter speed: the speed of its dynamics, when API v2 creates it, stored with it.
    func storeScene(
        _ request: HTTPRequest, owner: String, speed: Double? = nil
    ) async throws -> (id: String, resourceID: String) {
        let address = "/scenes"
        let body = try bodyObject(request, address: address)
        let allowed: Set<String> = [
            "name", "lights", "type", "group", "lightstates", "recycle", "appdata", "picture", "transitiontime",
        ]
        for key in body.keys where !allowed.contains(key) { throw HueError.parameterNotAvailable(key, at: address) }
        let name = try HueValues.name(body["name"] ?? .null, at: address)
        let snapshot = await snapshot()
        var group: Int?
        let lights: [Int]
        switch (body["type"]?.stringValue ?? (body["group"] == nil ? "LightScene" : "GroupScene"), body["group"]) {
        case ("GroupScene", .string(let text)?):
            guard body["lights"] == nil else { throw HueError.parameterNotAvailable("lights", at: address) }
            guard let number = Int(text), number > 0, let members = snapshot.groupLights(number) else {
                throw HueError.invalidValue(.string(text), of: "group", at: address)
            }
            guard !members.isEmpty else {
                throw HueError(type: 404, address: address, description: "Scene could not be created, group is empty")
            }
            (group, lights) = (number, members)
        case ("LightScene", nil):
            lights = try Self.lightNumbers(body["lights"], in: snapshot, at: address, allowingNone: false)
        case ("GroupScene", let value?):
            throw HueError.invalidValue(value, of: "group", at: address)
        default:
            throw HueError.invalidValue(body["type"] ?? body["group"] ?? .null, of: "type", at: address)
        }
        let transition = try Self.transitionTime(in: body, at: address)
        var states = try Self.givenStates(body["lightstates"], of: lights, in: snapshot, at: address)
        snapshot.captureMissing(lights, into: &states, transitionTenths: transition)
        let scene = HueBridgeState.Scene(
            id: "", name: name, group: group, lights: lights, lightStates: states, owner: owner,
            recycle: try Self.flag(body["recycle"], "recycle", at: address) ?? false,
            appData: try Self.appData(body["appdata"], at: address) ?? [:],
            picture: try Self.picture(body["picture"], at: address) ?? "",
            lastUpdated: await home.wallTime.utcText)
        let stored = try await visit { _, memory throws(HueError) in
            let id = try memory.change { state throws(HueError) in
                guard state.scenes.count < HueBridgeState.sceneLimit,
                    state.sceneLightStateCount + scene.lightStates.count <= HueBridgeState.sceneLightStateLimit
                else { throw Self.sceneBufferFull(address) }
                var scene = scene
                if let speed { scene.speed = speed }
                repeat { scene.id = Self.newSceneID() } while state.scenes.contains { $0.id == scene.id }
                state.scenes.append(scene)
                return scene.id
            }
            // A scene has its UUID from the moment it is stored (``HueBridgeMemory/change(_:)``).
            return (id: id, resourceID: memory.state.resourceIDs[HueBridgeState.resourceKey(scene: id)])
        }
        try await commit()
        guard let resourceID = stored.resourceID else {
            throw HueError.internalError("the scene \(stored.id) was stored without an API v2 ID", at: address)
        }
        return (stored.id, resourceID)
    }

    /// `PUT /api/<user>/scenes/<id>`: its `name`, `lights` (a light scene's), and `storelightstate`, which
    /// stores the state each of its lights is in now.
    func changeScene(_ id: String, _ request: HTTPRequest) async throws -> HTTPResponse {
        let address = "/scenes/\(id)"
        let stored = try await storedScene(id)
        let body = try bodyObject(request, address: address)
        let allowed: Set<String> = [
            "name", "lights", "storelightstate", "transitiontime", "recycle", "appdata", "picture",
        ]
        for key in body.keys where !allowed.contains(key) { throw HueError.parameterNotAvailable(key, at: address) }
        let snapshot = await snapshot()
        var scene = stored
        let transition = try Self.transitionTime(in: body, at: address)
        for (key, value) in body.members {
            switch key {
            case "name":
                scene.name = try HueValues.name(value, at: address)
            case "lights":
                // A group scene's lights are its group's.
                guard scene.group == nil else { throw HueError.parameterNotAvailable(key, at: address) }
                scene.lights = try Self.lightNumbers(value, in: snapshot, at: address, allowingNone: false)
                scene.lightStates = scene.lightStates.filter { scene.lights.contains($0.key) }
                snapshot.captureMissing(scene.lights, into: &scene.lightStates, transitionTenths: transition)
            case "storelightstate":
                guard let store = value.boolValue else { throw HueError.invalidValue(value, of: key, at: address) }
                if store {
                    for number in scene.lights {
                        scene.lightStates[number] = snapshot.capturedState(of: number, transitionTenths: transition)
                    }
                }
            case "recycle":
                scene.recycle = try Self.flag(value, key, at: address) ?? scene.recycle
            case "appdata":
                scene.appData = try Self.appData(value, at: address) ?? scene.appData
            case "picture":
                scene.picture = try Self.picture(value, at: address) ?? scene.picture
            default:
                break
            }
        }
        scene.lastUpdated = await home.wallTime.utcText
        try await saveScene(scene, at: address)
        return .json(.array(Self.successes(for: body, at: address)))
    }

    /// `PUT /api/<user>/scenes/<id>/lightstates/<n>` (and the older `…/lights/<n>/state`): changes the state
    /// the light takes in the scene; the parameters given replace those stored, and a colour given replaces the
    /// colour stored, whichever way it was given.
    func changeSceneLightState(_ id: String, light number: String, _ request: HTTPRequest) async throws
        -> HTTPResponse
    {
        let stored = try await storedScene(id)
        let address = "/scenes/\(id)/lightstates/\(number)"
        guard let light = Int(number), stored.lights.contains(light) else { throw HueError.notAvailable(address) }
        let body = try bodyObject(request, address: address)
        let snapshot = await snapshot()
        let state = try Self.sceneState(body, of: light, in: snapshot, at: address)
        var scene = stored
        var merged = scene.lightStates[light] ?? [:]
        let colours: Set<String> = ["xy", "ct", "hue", "sat"]
        if body.keys.contains(where: colours.contains) {
            merged = JSONObject(merged.members.filter { !colours.contains($0.key) })
        }
        for (key, value) in state.members { merged[key] = value }
        scene.lightStates[light] = merged
        scene.lastUpdated = await home.wallTime.utcText
        try await saveScene(scene, at: address)
        return .json(.array(Self.successes(for: body, at: address)))
    }

    /// The `transitiontime` a scene's `body` gives, in tenths of a second, for the light states captured for it.
    private static func transitionTime(in body: JSONObject, at address: String) throws(HueError) -> Int? {
        try body["transitiontime"].map { value throws(HueError) in try HueValues.transitionTime(value, at: address) }
    }

    /// `DELETE /api/<user>/scenes/<id>`.
    func deleteScene(_ id: String) async throws -> HTTPResponse {
        let address = "/scenes/\(id)"
        try await changeState { state throws(HueError) in
            guard let index = state.scenes.firstIndex(where: { $0.id == id }) else {
                throw HueError.notAvailable(address)
            }
            state.scenes.remove(at: index)
        }
        try await commit()
        return .json([["success": .string("\(address) deleted")]])
    }

    /// Replaces the stored scene of the same ID with `scene`, unless it went meanwhile, and makes it durable.
    private func saveScene(_ scene: HueBridgeState.Scene, at address: String) async throws(HueError) {
        try await changeState { state throws(HueError) in
            guard let index = state.scenes.firstIndex(where: { $0.id == scene.id }) else {
                throw HueError.notAvailable("/scenes/\(scene.id)")
            }
            let others = state.sceneLightStateCount - state.scenes[index].lightStates.count
            guard others + scene.lightStates.count <= HueBridgeState.sceneLightStateLimit else {
                throw Self.sceneBufferFull(address)
            }
            state.scenes[index] = scene
        }
        try await commit()
    }

    /// Hue's refusal of a scene that would take the bridge past its scenes or their light states.
    static func sceneBufferFull(_ address: String) -> HueError {
        HueError(type: 402, address: address, description: "Scene could not be created. Scene buffer in bridge full")
    }

    /// A new scene ID as a bridge makes them: 15 letters and digits, from the kernel's random source.
    static func newSceneID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var random = SystemRandomNumberGenerator()
        return String(
            decoding: (0..<15).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] },
            as: UTF8.self)
    }
}
