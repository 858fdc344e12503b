import LumenModel
import LumenProtocol
import LumenSimulation

extension HueBridge {
    /// The parameters a scene's light state may hold.
    static let sceneStateParameters: Set<String> = ["on", "bri", "ct", "xy", "hue", "sat", "transitiontime", "effect"]

    /// The light numbers of a `lights` list (`["1", "3"]`), each a light behind the bridge, once each.
    static func lightNumbers(
        _ value: JSONValue?, in snapshot: Snapshot, at address: String, allowingNone: Bool
    ) throws(HueError) -> [Int] {
        guard let list = value?.arrayValue, allowingNone || !list.isEmpty else {
            throw HueError.invalidValue(value ?? .null, of: "lights", at: address)
        }
        // Sets, so that a long list against a large home is read in linear time.
        let known = Set(snapshot.lights.map(\.number))
        var numbers: [Int] = []
        var listed = Set<Int>()
        for element in list {
            guard let text = element.stringValue, let number = Int(text), known.contains(number) else {
                throw HueError.invalidValue(element, of: "lights", at: address)
            }
            if listed.insert(number).inserted { numbers.append(number) }
        }
        return numbers
    }

    /// The `lightstates` of a new scene (`{"1": {"on": true, "bri": 200}}`), each for one of its `lights`.
    static func givenStates(
        _ value: JSONValue?, of lights: [Int], in snapshot: Snapshot, at address: String
    ) throws(HueError) -> [Int: JSONObject] {
        guard let value else { return [:] }
        guard case .object(let object) = value else {
            throw HueError.invalidValue(value, of: "lightstates", at: address)
        }
        var states: [Int: JSONObject] = [:]
        for (key, state) in object.members {
            guard let number = Int(key), lights.contains(number), let body = state.objectValue else {
                throw HueError.invalidValue(state, of: "lightstates/\(key)", at: address)
            }
            states[number] = try sceneState(body, of: number, in: snapshot, at: "\(address)/lightstates/\(key)")
        }
        return states
    }

    /// `body` as the state a light takes in a scene, checked as a command to that light would be.
    static func sceneState(
        _ body: JSONObject, of light: Int, in snapshot: Snapshot, at address: String
    ) throws(HueError) -> JSONObject {
        guard let hueLight = snapshot.lights.first(where: { $0.number == light }) else {
            throw HueError.notAvailable("/lights/\(light)")
        }
        for key in body.keys where !sceneStateParameters.contains(key) {
            throw HueError.parameterNotAvailable(key, at: address)
        }
        _ = try HueCommand(body, kind: hueLight.light.model.kind, at: address)
        return body
    }
}

extension HueBridge.Snapshot {
    /// The light numbers of group `number` behind the bridge: every light for 0, a room's, or an app's group's
    /// (those of its lights still behind the bridge); `nil` when there is no such group.
    func groupLights(_ number: Int) -> [Int]? {
        if number == 0 { return lights.map(\.number) }
        if let room = rooms.first(where: { $0.number == number }) { return room.lights }
        guard let group = state.groups.first(where: { $0.number == number }) else { return nil }
        return group.lights.filter { light in lights.contains { $0.number == light } }
    }

    /// The state light `number` is in now, as a bridge stores it in a scene: on or off, its level, and its
    /// colour in its colour mode (`xy` for one showing a colour, `ct` for one showing a colour temperature).
    func capturedState(of number: Int, transitionTenths: Int?) -> JSONObject {
        guard let light = lights.first(where: { $0.number == number })?.light else { return ["on": false] }
        let kind = light.model.kind
        var state: JSONObject = ["on": .bool(light.state.isOn)]
        if kind.supports(.brightness) { state["bri"] = .int(HueValues.bri(brightness: light.state.brightness)) }
        // In the light's colour mode: a light showing a colour temperature is captured as that white.
        if kind.supports(.color), !light.state.showsColorTemperature {
            state["xy"] = .array([.double(light.state.color.x), .double(light.state.color.y)])
        } else if kind.supports(.colorTemperature) {
            state["ct"] = .int(light.state.colorTemperature)
        }
        if let transitionTenths { state["transitiontime"] = .int(transitionTenths) }
        return state
    }

    /// Gives each of `lights` that has no state in `states` the state it is in now, as a bridge captures it.
    func captureMissing(_ lights: [Int], into states: inout [Int: JSONObject], transitionTenths: Int?) {
        for number in lights where states[number] == nil {
            states[number] = capturedState(of: number, transitionTenths: transitionTenths)
        }
    }
}
