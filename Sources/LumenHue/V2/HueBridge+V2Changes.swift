import LumenModel
import LumenProtocol
import LumenSimulation

extension HueBridge {
    /// `PUT /clip/v2/resource/{type}/{id}`: a command to a light or a grouped light, a scene's recall or name.
    func changeV2(
        _ type: String, _ id: String, _ body: JSONObject, key: String, from sender: String, path: String
    ) async throws -> HTTPResponse {
        let model = await v2Model()
        switch type {
        case "light":
            guard let light = model.lights[id] else { throw HueV2Error.notFound(path) }
            let command = try HueV2Command(body)
            let number = String(light.number)
            if let name = command.name {
                _ = try await rename(number, Self.v1Request(["name": .string(name)]))
            }
            if !command.v1Body.members.isEmpty {
                let address = "/lights/\(number)/state"
                let v1Body = command.v1Body
                _ = try await self.command(toLight: number, from: sender) { kind throws(HueError) in
                    command.exact(try HueCommand(v1Body, kind: kind, at: address))
                }
            }
            return Self.v2Changed(id, type)
        case "grouped_light":
            guard let number = model.groupedLights[id] else { throw HueV2Error.notFound(path) }
            let command = try HueV2Command(body)
            guard command.name == nil else {
                throw HueV2Error.badRequest("invalid property, metadata, for this resource")
            }
            if !command.v1Body.members.isEmpty {
                _ = try await groupAction(String(number), Self.v1Request(command.v1Body), from: sender)
            }
            return Self.v2Changed(id, type)
        case "scene":
            guard let scene = model.scenes[id], let group = scene.group else { throw HueV2Error.notFound(path) }
            return try await changeSceneV2(scene, id: id, group: group, body, from: sender)
        default:
            guard model.resource(type, id) != nil else { throw HueV2Error.notFound(path) }
            throw HueV2Error(description: "method, PUT, not available for resource, \(type)", status: 405)
        }
    }

    /// `PUT /clip/v2/resource/scene/{id}`: `recall` (`active`, `static`, `dynamic_palette`, with an optional
    /// `duration`) as one group command to the scene's lights in its group, and `metadata.name`.
    private func changeSceneV2(
        _ scene: HueBridgeState.Scene, id: String, group: Int, _ body: JSONObject, from sender: String
    ) async throws -> HTTPResponse {
        var recall: JSONObject?
        var name: String?
        for (key, value) in body.members {
            switch key {
            case "type", "id":
                continue
            case "recall":
                guard let action = value["action"]?.stringValue,
                    ["active", "static", "dynamic_palette"].contains(action)
                else { throw HueV2Error.badRequest("invalid value, \(value.serialized()), for property, recall") }
                var v1: JSONObject = ["scene": .string(scene.id)]
                if let duration = value["duration"] {
                    guard let ms = duration.intValue, (0...3_600_000).contains(ms) else {
                        throw HueV2Error.badRequest("invalid value, \(value.serialized()), for property, recall")
                    }
                    v1["transitiontime"] = .int((ms + 50) / 100)
                }
                recall = v1
            case "metadata":
                guard let given = value["name"]?.stringValue else {
                    throw HueV2Error.badRequest("invalid value, \(value.serialized()), for property, metadata")
                }
                name = given
            default:
                throw HueV2Error.badRequest("invalid property, \(key), for this resource")
            }
        }
        if let name { _ = try await changeScene(scene.id, Self.v1Request(["name": .string(name)])) }
        if let recall {
            let members = await snapshot().groupLights(group)
            _ = try await recallScene(recall, group: String(group), lights: members, from: sender)
        }
        return Self.v2Changed(id, "scene")
    }

    /// `POST /clip/v2/resource/scene {"metadata": {"name"}, "group": {"rid", "rtype"}, "actions": [...]}`: stores
    /// a scene of a room or a zone, as v1's `POST /scenes` stores a group scene, durably before it answers.
    func createSceneV2(_ body: JSONObject, owner: String) async throws -> HTTPResponse {
        let model = await v2Model()
        guard let name = body["metadata"]?["name"]?.stringValue else {
            throw HueV2Error.badRequest("missing property, metadata.name")
        }
        guard let groupID = body["group"]?["rid"]?.stringValue, let group = model.groups[groupID] else {
            throw HueV2Error.badRequest("invalid value, \((body["group"] ?? .null).serialized()), for property, group")
        }
        var states: JSONObject = [:]
        for action in body["actions"]?.arrayValue ?? [] {
            guard let target = action["target"]?["rid"]?.stringValue, let light = model.lights[target],
                let given = action["action"]?.objectValue
            else { throw HueV2Error.badRequest("invalid value, \(action.serialized()), for property, actions") }
            var state = try HueV2Command(given).v1Body
            state["alert"] = nil
            states[String(light.number)] = .object(state)
        }
        let v1: JSONObject = [
            "name": .string(name), "type": "GroupScene", "group": .string(String(group)),
            "lightstates": .object(states),
        ]
        let answer = try await createScene(Self.v1Request(v1), owner: owner)
        guard let v1ID = (try? JSONParser.parse(answer.body))?.arrayValue?.first?["success"]?["id"]?.stringValue else {
            throw HueV2Error(description: "internal error, the scene was not stored", status: 500)
        }
        return Self.v2Changed(HueResourceID.make(bridge: identity.bridgeID, "scene", v1ID), "scene")
    }

    /// A v1 request carrying `body`, for the v1 code a v2 change goes through.
    static func v1Request(_ body: JSONObject) -> HTTPRequest {
        HTTPRequest(method: "PUT", path: "", body: Array(JSONValue.object(body).serialized().utf8))
    }
}
