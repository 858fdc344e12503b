import LumenProtocol

extension HueBridge {
    /// `PUT /clip/v2/resource/device/{id}`: a light's device `identify`d (the light breathes once, as Home Assistant's
    /// `flash: short` asks through aiohue) or renamed (`metadata.name`, the light's name), as its light takes
    /// them; the bridge's own device `identify`d, which blinks only the bridge's LED, changing nothing in the home.
    func changeDeviceV2(
        _ id: String, _ body: JSONObject, in model: HueV2Model, key: String, from sender: String, path: String
    ) async throws -> HTTPResponse {
        let isBridge = id == model.bridgeDevice
        guard isBridge || model.deviceLights[id] != nil else { throw HueV2Error.notFound(path) }
        let allowed: Set<String> =
            isBridge ? ["type", "id", "id_v1", "identify"] : ["type", "id", "id_v1", "identify", "metadata"]
        for property in body.keys where !allowed.contains(property) {
            throw HueV2Error.badRequest("invalid property, \(property), for this resource")
        }
        // Read as a light's body: the same checks, so that one refused changes nothing.
        _ = try HueV2Command(body)
        if let light = model.deviceLights[id] {
            _ = try await changeV2("light", light, body, key: key, from: sender, path: path)
        }
        return Self.v2Changed(id, "device")
    }

    /// `PUT /clip/v2/resource/room/{id}` or `…/zone/{id}`: its `metadata.name` and `metadata.archetype` (v1's
    /// `class`), through v1's change of the group, which checks both before either changes. A room's lights are
    /// the home's: its `children` are not changed here.
    func changeGroupV2(_ id: String, _ body: JSONObject, in model: HueV2Model, path: String) async throws
        -> HTTPResponse
    {
        guard let number = model.groups[id] else { throw HueV2Error.notFound(path) }
        var v1: JSONObject = [:]
        for (key, value) in body.members {
            switch key {
            case "type", "id", "id_v1":
                continue
            case "metadata":
                guard let fields = value.objectValue, !fields.members.isEmpty,
                    fields.keys.allSatisfy(["name", "archetype"].contains)
                else { throw HueV2Error.invalidValue(value, for: key) }
                if fields["name"] != nil {
                    guard let name = HueV2Command.name(value) else { throw HueV2Error.invalidValue(value, for: key) }
                    v1["name"] = .string(name)
                }
                if let archetype = fields["archetype"] {
                    guard let given = archetype.stringValue, let roomClass = HueV2Model.roomClass(ofArchetype: given)
                    else { throw HueV2Error.invalidValue(value, for: key) }
                    v1["class"] = .string(roomClass)
                }
            default:
                throw HueV2Error.badRequest("invalid property, \(key), for this resource")
            }
        }
        if !v1.members.isEmpty { _ = try await changeGroup(String(number), Self.v1Request(v1)) }
        return Self.v2Changed(id, model.resource("room", id) == nil ? "zone" : "room")
    }

    /// `POST /clip/v2/resource/geofence_client {"name", "is_at_home"}`: keeps a new geofence client, durably
    /// before it answers, under a UUID drawn for it; at most ``HueBridgeState/geofenceClientLimit``.
    func createGeofenceClient(_ body: JSONObject) async throws -> HTTPResponse {
        let (name, isAtHome) = try Self.geofenceFields(body)
        guard let name else { throw HueV2Error.badRequest("missing property, name") }
        let id = HueResourceID.random(count: 1)[0]
        try await changeState { state throws(HueV2Error) in
            guard state.geofenceClients.count < HueBridgeState.geofenceClientLimit else {
                throw HueV2Error.badRequest(
                    "at most \(HueBridgeState.geofenceClientLimit) geofence clients are kept; delete one first")
            }
            state.geofenceClients.append(.init(id: id, name: name, isAtHome: isAtHome ?? false))
        }
        try await commit()
        return Self.v2Changed(id, "geofence_client")
    }

    /// `PUT /clip/v2/resource/geofence_client/{id}`: its `name` and `is_at_home`, durably before it answers.
    func changeGeofenceClient(_ id: String, _ body: JSONObject, path: String) async throws -> HTTPResponse {
        let (name, isAtHome) = try Self.geofenceFields(body)
        try await changeState { state throws(HueV2Error) in
            guard let index = state.geofenceClients.firstIndex(where: { $0.id == id }) else {
                throw HueV2Error.notFound(path)
            }
            if let name { state.geofenceClients[index].name = name }
            if let isAtHome { state.geofenceClients[index].isAtHome = isAtHome }
        }
        try await commit()
        return Self.v2Changed(id, "geofence_client")
    }

    /// `DELETE /clip/v2/resource/geofence_client/{id}`: forgets it, durably before it answers.
    func deleteGeofenceClient(_ id: String, path: String) async throws -> HTTPResponse {
        try await changeState { state throws(HueV2Error) in
            guard let index = state.geofenceClients.firstIndex(where: { $0.id == id }) else {
                throw HueV2Error.notFound(path)
            }
            state.geofenceClients.remove(at: index)
        }
        try await commit()
        return Self.v2Changed(id, "geofence_client")
    }

    /// A geofence client's body read whole: its `name` (1 to 32 characters) and `is_at_home`, each when given.
    /// - Throws: ``HueV2Error`` 400 for a value of the wrong kind or a property it does not have.
    static func geofenceFields(_ body: JSONObject) throws(HueV2Error) -> (name: String?, isAtHome: Bool?) {
        var fields: (name: String?, isAtHome: Bool?) = (nil, nil)
        for (key, value) in body.members {
            switch key {
            case "type":
                guard value.stringValue == "geofence_client" else { throw HueV2Error.invalidValue(value, for: key) }
            case "id", "id_v1":
                continue
            case "name":
                guard let name = value.stringValue, HueValues.isName(name) else {
                    throw HueV2Error.invalidValue(value, for: key)
                }
                fields.name = name
            case "is_at_home":
                guard let isAtHome = value.boolValue else { throw HueV2Error.invalidValue(value, for: key) }
                fields.isAtHome = isAtHome
            default:
                throw HueV2Error.badRequest("invalid property, \(key), for this resource")
            }
        }
        return fields
    }
}
