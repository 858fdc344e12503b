import LumenProtocol
import LumenSimulation

extension HueBridge {
    /// Answers one request under `/clip/v2` (the Hue API v2, CLIP v2); `nil` for a path elsewhere.
    ///
    /// As on a bridge, v2 is served over HTTPS only, to a paired user's key in `hue-application-key`, and under
    /// the same `Host` and `Origin` rules as `/api`.
    package func respondV2(to request: HTTPRequest) -> HTTPReply? {
        let isStream = request.path == "/eventstream/clip/v2"
        guard isStream || request.path == "/clip/v2" || request.path.hasPrefix("/clip/v2/") else { return nil }
        if let why = access.refusal(of: request) {
            return .now(HueV2Error(description: "forbidden; \(why)", status: 403).response)
        }
        guard request.isSecure else {
            return .now(HueV2Error(description: "the Hue API v2 is served over HTTPS only", status: 404).response)
        }
        guard let key = request.headers["hue-application-key"] else { return .now(HueV2Error.unauthorized.response) }
        if isStream { return eventStream(request, key: key) }
        return .later { await self.answerV2(request, key: key) }
    }

    /// The answer to a v2 request from the user whose key is `key`.
    func answerV2(_ request: HTTPRequest, key: String) async -> HTTPResponse {
        do {
            return try await routeV2(request, key: key)
        } catch let error as HueV2Error {
            return error.response
        } catch let error as HueError {
            return HueV2Error(error).response
        } catch {
            return HueV2Error(description: "internal error, \(error)", status: 500).response
        }
    }

    private func routeV2(_ request: HTTPRequest, key: String) async throws -> HTTPResponse {
        guard await use(key) else { throw HueV2Error.unauthorized }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).dropFirst(2).map(String.init)
        guard parts.first == "resource", parts.count <= 3 else { throw HueV2Error.notFound(request.path) }
        if parts.count >= 2, !HueV2Model.types.contains(parts[1]), !HueV2Model.emptyTypes.contains(parts[1]) {
            throw HueV2Error.notFound(request.path)
        }
        let sender = Self.sender(key)
        switch (request.method, parts.count) {
        case ("GET", 1):
            return Self.v2Data(await v2Model().resources)
        case ("GET", 2) where HueV2Model.emptyTypes.contains(parts[1]):
            return Self.v2Data([])
        case ("GET", 2):
            return Self.v2Data(await v2Model().resources.filter { $0["type"]?.stringValue == parts[1] })
        case ("GET", 3) where parts[1] == "light":
            // The one light, found by its ID alone: a client polling a light need not have everything built.
            let id = parts[2]
            let found = await visit { home, memory in
                memory.withPaletteSpeeds(memory.lights(in: home)).first {
                    memory.state.resourceIDs[HueBridgeState.resourceKey(light: $0.light.id)] == id
                }
            }
            guard let found else { throw HueV2Error.notFound(request.path) }
            let device = HueResourceID.service("device", of: id)
            return Self.v2Data([HueV2Model.light(found, id: id, owner: ["rid": .string(device), "rtype": "device"])])
        case ("GET", 3):
            guard let resource = await v2Model().resource(parts[1], parts[2]) else {
                throw HueV2Error.notFound(request.path)
            }
            return Self.v2Data([resource])
        case ("PUT", 3):
            let body = try Self.v2Body(request)
            return try await changeV2(parts[1], parts[2], body, key: key, from: sender, path: request.path)
        case ("DELETE", 3) where parts[1] == "scene":
            guard let scene = await v2Model().scenes[parts[2]] else { throw HueV2Error.notFound(request.path) }
            _ = try await deleteScene(scene.id)
            return Self.v2Changed(parts[2], "scene")
        case ("POST", 2) where parts[1] == "scene":
            return try await createSceneV2(try Self.v2Body(request), owner: key)
        case ("POST", 2) where parts[1] == "geofence_client":
            return try await createGeofenceClient(try Self.v2Body(request))
        case ("DELETE", 3) where parts[1] == "geofence_client":
            return try await deleteGeofenceClient(parts[2], path: request.path)
        default:
            throw HueV2Error(description: "method, \(request.method), not available for resource", status: 405)
        }
    }

    /// The bridge as v2 shows it now, from one visit to the home.
    func v2Model() async -> HueV2Model {
        HueV2Model(await snapshot(), bridgeID: identity.bridgeID)
    }

    /// A v2 answer: `{"data": [...], "errors": []}`.
    static func v2Data(_ data: [JSONValue]) -> HTTPResponse {
        .json(.object(["data": .array(data), "errors": []]))
    }

    /// The answer to a change: the resource it changed or made, by its ID and type; `207` with the `warnings`
    /// (``HueV2Warning``) as its errors when there are any.
    static func v2Changed(_ id: String, _ type: String, warnings: [String] = []) -> HTTPResponse {
        let data: JSONValue = [["rid": .string(id), "rtype": .string(type)]]
        guard !warnings.isEmpty else { return .json(.object(["data": data, "errors": []])) }
        let errors = warnings.map { JSONValue.object(["description": .string($0)]) }
        return .json(.object(["data": data, "errors": .array(errors)]), status: 207)
    }

    /// The request's body as a JSON object.
    /// - Throws: ``HueV2Error`` 400 for a body that is not a JSON object.
    static func v2Body(_ request: HTTPRequest) throws(HueV2Error) -> JSONObject {
        guard let value = try? JSONParser.parse(request.body), case .object(let object) = value else {
            throw HueV2Error.badRequest("body contains invalid JSON")
        }
        return object
    }
}
