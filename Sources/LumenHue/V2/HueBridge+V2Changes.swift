import LumenModel
import LumenProtocol
import LumenSimulation

extension HueBridge {
    /// `PUT /clip/v2/resource/{type}/{id}`: a command to a light or a grouped light, a scene's recall, name or
    /// actions, a device identified or renamed, a room or zone renamed, a geofence client changed.
    func changeV2(
        _ type: String, _ id: String, _ body: JSONObject, key: String, from sender: String, path: String
    ) async throws -> HTTPResponse {
        let model = await v2Model()
        switch type {
        case "light":
            guard let light = model.lights[id] else { throw HueV2Error.notFound(path) }
            // The whole body is checked before anything changes: a bad feature beside a name renames nothing.
            let command = try HueV2Command(body)
            let number = String(light.number)
            let address = "/lights/\(number)/state"
            let kind = light.light.model.kind
            let hasTimedEffects = HueV2Model.hasTimedEffects(kind)
            if body["timed_effects"] != nil, !hasTimedEffects {
                throw HueV2Error.badRequest("invalid property, timed_effects, for this resource")
            }
            var v1Body = command.v1Body
            // Home Assistant stops a sunrise with `effects` `no_effect`, which a light with no colour loop takes
            // as the stop of its timed effect alone.
            if hasTimedEffects, !kind.supports(.color), v1Body["effect"] == "none" { v1Body["effect"] = nil }
            // A stop alone is a command of nothing to set, which ends the effect as any command does.
            var checked =
                v1Body.members.isEmpty && !command.stopsTimedEffect
                ? nil : try command.exact(HueCommand(v1Body, kind: kind, at: address))
            if checked?.firstParameter == nil {
                checked?.firstParameter = body["timed_effects"] != nil ? "timed_effects" : "effects"
            }
            if command.isColorSignal, !kind.supports(.color) {
                throw HueV2Error.badRequest("invalid value, on_off_color, for property, signaling")
            }
            var warnings = HueV2Warning.warnings(
                for: body, to: type, isOn: light.light.state.isOn, isReachable: light.light.isReachable)
            if let effect = command.timedEffect {
                // The effect sets the light from its own start: what else the body gives is checked, not sent.
                try await startTimedEffect(effect, on: light, from: sender)
            } else if let checked {
                // Built once, for the light's kind as the model shows it: what was checked is what is sent.
                do {
                    _ = try await self.command(toLight: number, from: sender) { _ throws(HueError) in checked }
                } catch let error as HueError where error.type == 201 {
                    // Off, the light took none of it (a level or colour a light of the Hue family refuses while
                    // off, an effect): a bridge takes the command all the same, and says it may not have effect.
                    // The light may have gone off since the model was read.
                    if warnings.isEmpty {
                        warnings = HueV2Warning.warnings(for: body, to: type, isOn: false, isReachable: true)
                    }
                    if warnings.isEmpty { throw error }
                }
            }
            if let speed = command.speed {
                let lightID = light.light.id
                await visit { _, memory in memory.lightSpeeds[lightID] = speed }
                homeChanged()
            }
            if let name = command.name {
                _ = try await rename(number, Self.v1Request(["name": .string(name)]))
            }
            return Self.v2Changed(id, type, warnings: warnings)
        case "grouped_light":
            guard let number = model.groupedLights[id] else { throw HueV2Error.notFound(path) }
            let command = try HueV2Command(body)
            guard command.name == nil else {
                throw HueV2Error.badRequest("invalid property, metadata, for this resource")
            }
            guard command.speed == nil else {
                throw HueV2Error.badRequest("invalid property, dynamics.speed, for this resource")
            }
            // A timed effect is a light's own: a group has none to play.
            guard body["timed_effects"] == nil else {
                throw HueV2Error.badRequest("invalid property, timed_effects, for this resource")
            }
            let snapshot = await snapshot()
            let members = Set(snapshot.groupLights(number) ?? [])
            let lights = snapshot.lights.filter { members.contains($0.number) }
            let warnings = HueV2Warning.warnings(
                for: body, to: type, isOn: lights.contains { $0.light.state.isOn },
                isReachable: lights.allSatisfy(\.light.isReachable))
            // The group command checks the whole body before it sends anything.
            if !command.v1Body.members.isEmpty {
                _ = try await groupAction(String(number), Self.v1Request(command.v1Body), from: sender)
            }
            return Self.v2Changed(id, type, warnings: warnings)
        case "scene":
            guard let scene = model.scenes[id], let group = scene.group else { throw HueV2Error.notFound(path) }
            return try await changeSceneV2(scene, id: id, group: group, body, in: model, from: sender)
        case "device":
            return try await changeDeviceV2(id, body, in: model, key: key, from: sender, path: path)
        case "room", "zone":
            guard model.resource(type, id) != nil else { throw HueV2Error.notFound(path) }
            return try await changeGroupV2(id, body, in: model, path: path)
        case "geofence_client":
            return try await changeGeofenceClient(id, body, path: path)
        default:
            guard model.resource(type, id) != nil else { throw HueV2Error.notFound(path) }
            throw HueV2Error(description: "method, PUT, not available for resource, \(type)", status: 405)
        }
    }

    /// `PUT /clip/v2/resource/scene/{id}`: `recall` (`active`, `static`, `dynamic_palette`, with an optional
    /// `duration` and `dimming.brightness`) as one group command to the scene's lights in its group,
    /// `metadata.name`, `speed`, and `actions`, the state each light named takes (a light of the group not named
    /// keeps its own: a group scene holds every light of its group). The whole body is checked before anything
    /// changes, the actions' states as commands to their lights.
    private func changeSceneV2(
        _ scene: HueBridgeState.Scene, id: String, group: Int, _ body: JSONObject, in model: HueV2Model,
        from sender: String
    ) async throws -> HTTPResponse {
        var recall: JSONObject?
        var dynamic = false
        var brightness: Double?
        var name: String?
        var speed: Double?
        var states: [Int: JSONObject]?
        let snapshot = await snapshot()
        for (key, value) in body.members {
            func invalid() -> HueV2Error { .invalidValue(value, for: key) }
            switch key {
            case "type", "id", "id_v1":
                continue
            case "recall":
                // `status` (`active`, `dynamic_palette`) is the API's older word for `action`, still taken by a
                // bridge and offered by aiohue's `RecallFeature`.
                guard let fields = value.objectValue,
                    fields.keys.allSatisfy(["action", "status", "duration", "dimming"].contains),
                    fields["action"].map({ ["active", "static", "dynamic_palette"].contains($0.stringValue ?? "") })
                        ?? true,
                    fields["status"].map({ ["active", "dynamic_palette"].contains($0.stringValue ?? "") }) ?? true,
                    let chosen = (fields["action"] ?? fields["status"])?.stringValue
                else { throw invalid() }
                dynamic = chosen == "dynamic_palette"
                var v1: JSONObject = ["scene": .string(scene.id)]
                if let duration = fields["duration"] {
                    guard let ms = HueV2Command.durationMs(duration) else { throw invalid() }
                    v1["transitiontime"] = .int(HueV2Command.transitionTime(ms: ms))
                }
                if let dimming = fields["dimming"] {
                    guard let level = HueV2Command.brightness(dimming) else { throw invalid() }
                    brightness = level
                }
                recall = v1
            case "metadata":
                guard let given = HueV2Command.name(value) else { throw invalid() }
                name = given
            case "speed":
                guard let level = HueV2Command.speed(value) else { throw invalid() }
                speed = level
            case "auto_dynamic":
                // Lumen plays no palettes: a scene is never dynamic, whatever it is told.
                guard value.boolValue != nil else { throw invalid() }
            case "palette":
                guard Self.isEmptyPalette(value) else { throw invalid() }
            case "actions":
                let given = try Self.sceneStates(value, members: Set(scene.lights), in: model)
                var checked: [Int: JSONObject] = [:]
                for (number, state) in given {
                    checked[number] = try Self.sceneState(
                        state, of: number, in: snapshot, at: "/scenes/\(scene.id)/lightstates/\(number)")
                }
                states = checked
            default:
                throw HueV2Error.badRequest("invalid property, \(key), for this resource")
            }
        }
        // The recall first: one refused (the lights unreachable, too many commands) leaves the scene as it was.
        if let recall {
            let members = snapshot.groupLights(group)
            _ = try await recallScene(
                recall, group: String(group), lights: members, brightness: brightness, dynamic: dynamic,
                from: sender)
        }
        if name != nil || speed != nil || states != nil {
            let (sceneID, newName, newSpeed, newStates) = (scene.id, name, speed, states)
            let updated = await home.wallTime.utcText
            try await changeState { state throws(HueV2Error) in
                guard let index = state.scenes.firstIndex(where: { $0.id == sceneID }) else {
                    throw HueV2Error.notFound("/clip/v2/resource/scene/\(id)")
                }
                if let newName { state.scenes[index].name = newName }
                if let newSpeed { state.scenes[index].speed = newSpeed }
                for (number, given) in newStates ?? [:] { state.scenes[index].lightStates[number] = given }
                state.scenes[index].lastUpdated = updated
            }
            try await commit()
        }
        return Self.v2Changed(id, "scene")
    }

    /// `POST /clip/v2/resource/scene {"metadata": {"name"}, "group": {"rid", "rtype"}, "actions": [...]}`: stores
    /// a scene of a room or a zone, as v1's `POST /scenes` stores a group scene, durably before it answers.
    ///
    /// As on a bridge, `metadata.name` (1 to 32 characters), `group` (a room or zone, named with its type) and
    /// `actions` (at least one, each a light of the group and a state it takes) are required, and the whole body is
    /// checked before anything is stored.
    func createSceneV2(_ body: JSONObject, owner: String) async throws -> HTTPResponse {
        let model = await v2Model()
        let known: Set<String> = ["type", "metadata", "group", "actions", "palette", "speed", "auto_dynamic"]
        for key in body.keys where !known.contains(key) {
            throw HueV2Error.badRequest("invalid property, \(key), for this resource")
        }
        func invalid(_ property: String) -> HueV2Error { .invalidValue(body[property] ?? .null, for: property) }
        guard let metadata = body["metadata"] else { throw HueV2Error.badRequest("missing property, metadata") }
        guard let name = HueV2Command.name(metadata) else {
            throw HueV2Error.invalidValue(metadata, for: "metadata.name")
        }
        guard let given = body["group"] else { throw HueV2Error.badRequest("missing property, group") }
        guard let groupID = given["rid"]?.stringValue, let group = model.groups[groupID],
            let type = given["rtype"]?.stringValue, model.resource(type, groupID) != nil
        else { throw invalid("group") }
        guard let actions = body["actions"] else { throw HueV2Error.badRequest("missing property, actions") }
        guard let actions = actions.arrayValue, !actions.isEmpty else { throw invalid("actions") }
        if let palette = body["palette"], !Self.isEmptyPalette(palette) { throw invalid("palette") }
        var speed: Double?
        if let value = body["speed"] {
            guard let level = HueV2Command.speed(value) else { throw invalid("speed") }
            speed = level
        }
        if let value = body["auto_dynamic"], value.boolValue == nil { throw invalid("auto_dynamic") }
        let members = Set(await snapshot().groupLights(group) ?? [])
        let states = try Self.sceneStates(.array(actions), members: members, in: model)
        let v1: JSONObject = [
            "name": .string(name), "type": "GroupScene", "group": .string(String(group)),
            "lightstates": .object(JSONObject(sortedByKey: states) { (String($0), .object($1)) }),
        ]
        let stored = try await storeScene(Self.v1Request(v1), owner: owner, speed: speed)
        return Self.v2Changed(stored.resourceID, "scene")
    }

    /// The v1 light states a scene's v2 `actions` give, by light number: at least one, each a light of `members`
    /// named once, its action read as a light's body (an alert it asks for is not a state, and is not kept).
    /// - Throws: ``HueV2Error`` 400 for anything else.
    static func sceneStates(_ actions: JSONValue, members: Set<Int>, in model: HueV2Model) throws(HueV2Error)
        -> [Int: JSONObject]
    {
        guard let actions = actions.arrayValue, !actions.isEmpty else {
            throw HueV2Error.invalidValue(actions, for: "actions")
        }
        var states: [Int: JSONObject] = [:]
        for action in actions {
            guard action["target"]?["rtype"]?.stringValue == "light",
                let target = action["target"]?["rid"]?.stringValue,
                let light = model.lights[target], members.contains(light.number),
                let given = action["action"]?.objectValue,
                // A scene holds states, not a light's timed effect.
                given["timed_effects"] == nil,
                states[light.number] == nil
            else { throw HueV2Error.invalidValue(action, for: "actions") }
            var state = try HueV2Command(given).v1Body
            state["alert"] = nil
            states[light.number] = state
        }
        return states
    }

    /// Whether a scene's `palette` is empty: Lumen plays no palettes, so one with colours would be kept and
    /// never shown.
    static func isEmptyPalette(_ palette: JSONValue) -> Bool {
        palette.objectValue?.members.allSatisfy { $0.value.arrayValue == [] } == true
    }

    /// A v1 request carrying `body`, for the v1 code a v2 change goes through.
    static func v1Request(_ body: JSONObject) -> HTTPRequest {
        HTTPRequest(method: "PUT", path: "", body: Array(JSONValue.object(body).serialized().utf8))
    }
}
