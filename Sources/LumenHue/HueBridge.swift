import LumenModel
import LumenProtocol
import LumenScopes
import LumenService
import LumenSimulation

/// A Hue bridge (API v1) over the simulated home: the lights behind it, its rooms as groups, pairing with the
/// link button, and commands that take each light's latency, faults and the bridge's own limits.
///
/// It answers under `/api` on lumend's HTTP listener; everything it changes goes through the same ``Home`` as
/// the scope protocol, so each sees the other's changes. `docs/hue.md` lists every endpoint and mapping.
///
/// ```swift
/// let bridge = HueBridge(scopeContext: scopeContext, access: HTTPAccess(allowedHosts: ["bridge.lan"]), logger: logger)
/// let server = HTTPServer(listeners: [HTTPListener(fd: fd)], logger: logger) { bridge.respond(to: $0) }
/// ```
public final class HueBridge: Sendable {
    /// The home, and the hook that makes a write durable before it is answered.
    let scopeContext: ScopeContext
    /// The bridge's ID and MAC address, derived from the home's.
    let identity: (bridgeID: String, mac: String)
    /// Which requests are the bridge's own: by lumend's address or a name it is given, from no foreign page.
    let access: HTTPAccess
    /// Where the bridge says what it did that an operator should know: a user forgotten, for one.
    let logger: Logger
    /// What the bridge knows between requests. It is the bridge's alone. The users are checked under its lock
    /// on the HTTP loop, with no hop to the home; everything read or changed together with the home (numbers,
    /// pairing on the simulation's clock, scenes beside the lights) is taken inside one turn of the home
    /// (``visit(_:)``), so that it and the home agree. The lock is never held across a suspension.
    let memory: Locked<HueBridgeMemory>
    /// The API v2 event streams open, and what the bridge last showed them.
    let events = HueEventHub()

    /// The name the home keeps the bridge's record under (``Fixture/fronts``).
    static let recordName = "hue"
    /// The most users the bridge keeps unless told otherwise (`--hue-users`).
    public static let defaultUserLimit = 64
    /// How long the simulated link button stays pressed, as on a Hue bridge.
    static let linkButtonMs: Double = 30_000

    /// A bridge over the home of `scopeContext`, taking the requests `access` allows, keeping at most
    /// `userLimit` users and, when `pairingOpen`, letting every app pair without the link button.
    package init(
        scopeContext: ScopeContext, access: HTTPAccess = HTTPAccess(),
        logger: Logger = Logger(handler: StderrLogHandler()), userLimit: Int = HueBridge.defaultUserLimit,
        pairingOpen: Bool = false
    ) {
        memory = Locked(HueBridgeMemory(isPairingOpen: pairingOpen, userLimit: max(1, userLimit)))
        self.scopeContext = scopeContext
        self.access = access
        self.logger = logger
        identity = HueValues.bridgeIdentity(homeID: scopeContext.home.fixtureID)
        scopeContext.home.addFrontListener { [weak self] home, news in self?.hear(news, in: home) }
    }

    var home: Home { scopeContext.home }

    /// Answers one request under `/api`, `/clip/v2` and `/description.xml`; `nil` for a path elsewhere, which
    /// another front may answer.
    package func respond(to request: HTTPRequest) -> HTTPReply? {
        home.noteRequest()
        if request.path == "/description.xml", request.method == "GET" {
            if let why = access.refusal(of: request) { return .now(.text("forbidden; \(why)\n", status: 403)) }
            return .later { await self.description(for: request) }
        }
        if let reply = respondV2(to: request) { return reply }
        guard request.path == "/api" || request.path.hasPrefix("/api/") else { return nil }
        if let why = access.refusal(of: request) {
            // Before anything else, pairing included: a page elsewhere must learn nothing of the bridge.
            return .now(HueError(type: 1, address: "/", description: "unauthorized user; \(why)", status: 403).response)
        }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).dropFirst().map(String.init)
        return .later { await self.answer(request, parts) }
    }

    /// The answer to a request under `/api`, whose path after it is `parts`.
    func answer(_ request: HTTPRequest, _ parts: [String]) async -> HTTPResponse {
        do {
            return try await route(request, parts)
        } catch let error as HueError {
            return error.response
        } catch {
            return HueError.internalError("\(error)").response
        }
    }

    private func route(_ request: HTTPRequest, _ parts: [String]) async throws -> HTTPResponse {
        let method = request.method
        guard let user = parts.first else {
            if method == "POST" { return try await pair(request) }
            throw HueError.unauthorized
        }
        if user == "config", parts.count == 1, method == "GET" { return .json(shortConfig(name: await home.name)) }
        guard await use(user) else {
            if parts.count == 2, parts[1] == "config", method == "GET" {
                return .json(shortConfig(name: await home.name))
            }
            throw HueError.unauthorized
        }
        let rest = Array(parts.dropFirst())
        let sender = Self.sender(user)
        switch (method, rest.first, rest.count) {
        case ("GET", nil, _):
            return .json(await fullState(for: user))
        case ("GET", "config", 1):
            return .json(config(for: user, in: await snapshot()))
        case ("PUT", "config", 1):
            return try await changeConfig(request)
        case ("DELETE", "config", 3) where rest[1] == "whitelist":
            return try await forgetUser(rest[2])
        case ("GET", "lights", 1):
            return .json(lightsObject(await visit { home, memory in memory.lights(in: home) }))
        case ("POST", "lights", 1):
            return try await search()
        case ("GET", "lights", 2) where rest[1] == "new":
            return .json(await newLights())
        case ("GET", "lights", 2):
            return .json(Self.json(of: try await hueLight(rest[1])))
        case ("PUT", "lights", 2):
            return try await rename(rest[1], request)
        case ("PUT", "lights", 3) where rest[2] == "state":
            return try await setState(rest[1], request, from: sender)
        case ("GET", "groups", 1):
            return .json(Self.groupsObject(await snapshot()))
        case ("GET", "groups", 2):
            return .json(try await group(rest[1]))
        case ("PUT", "groups", 3) where rest[2] == "action":
            return try await groupAction(rest[1], request, from: sender)
        case ("POST", "groups", 1):
            return try await createGroup(request)
        case ("PUT", "groups", 2):
            return try await changeGroup(rest[1], request)
        case ("DELETE", "groups", 2):
            return try await deleteGroup(rest[1])
        case ("GET", "scenes", 1):
            return .json(Self.scenesObject(await visit { _, memory in memory.state.scenes }, for: user))
        case ("POST", "scenes", 1):
            return try await createScene(request, owner: user)
        case ("GET", "scenes", 2):
            return .json(Self.json(of: try await storedScene(rest[1]), for: user, withStates: true))
        case ("PUT", "scenes", 2):
            return try await changeScene(rest[1], request)
        case ("DELETE", "scenes", 2):
            return try await deleteScene(rest[1])
        case ("PUT", "scenes", 4) where rest[2] == "lightstates":
            return try await changeSceneLightState(rest[1], light: rest[3], request)
        case ("PUT", "scenes", 5) where rest[2] == "lights" && rest[4] == "state":
            return try await changeSceneLightState(rest[1], light: rest[3], request)
        case ("GET", let resource?, 1) where Self.emptyResources.contains(resource):
            return .json(.object([:]))
        default:
            let address = "/" + rest.joined(separator: "/")
            // An item of a resource Lumen keeps none of is not there, whatever is asked of it.
            if rest.count > 1, Self.emptyResources.contains(rest[0]) { throw HueError.notAvailable(address) }
            if Self.knownResources.contains(rest.first ?? "") {
                throw HueError(
                    type: 4, address: address,
                    description: "method, \(method), not available for resource, \(address)")
            }
            throw HueError.notAvailable(address)
        }
    }

    /// What `body` does with the home and the bridge's memory in one turn of the home: the memory caught up with
    /// the home first (``HueBridgeMemory/catchUp(with:)``), and saved with the home after when it changed.
    func visit<Value: Sendable, Failure: Error>(
        _ body: @Sendable (isolated Home, inout HueBridgeMemory) throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        try await home.reading { home throws(Failure) in
            try self.memory.withLock { memory throws(Failure) in
                memory.catchUp(with: home)
                defer {
                    if memory.isUnsaved {
                        home.saveFrontRecord(Self.recordName, memory.state.jsonValue)
                        memory.isUnsaved = false
                        // A scene or group stored is news to the event streams, as the home's changes are.
                        self.homeChanged()
                    }
                }
                return try body(home, &memory)
            }
        }
    }

    /// Changes what the bridge keeps with `change` and saves it with the home, all or nothing: a scene or group
    /// stored, a user forgotten. Nothing changes when `change` throws.
    func changeState<Result: Sendable, Failure: Error>(
        _ change: @Sendable (inout HueBridgeState) throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        try await visit { _, memory throws(Failure) in try memory.change(change) }
    }

    /// Whether `username` is a paired user, marking it used now: under the memory's lock alone once the bridge
    /// has read its record.
    func use(_ username: String) async -> Bool {
        let known = memory.withLock { memory in memory.isLoaded ? memory.use(username) != nil : nil }
        if let known { return known }
        return await visit { _, memory in memory.use(username) != nil }
    }

    /// Gives every room and light of `home` its number on the bridge, as the bridge's first visit would, before
    /// the home has anyone saving it: numbers given at start are saved with the state's next snapshot, as the
    /// rest of the state loaded is, not journaled on their own.
    /// - Returns: whether any number was given, which ``saveRecord(of:)`` saves where no snapshot follows.
    /// - Throws: ``JSONShapeError`` for a record under `hue` that does not read.
    package static func numberAtStart(_ home: Home) async throws(JSONShapeError) -> Bool {
        try await home.reading { home throws(JSONShapeError) in
            var memory = HueBridgeMemory(state: try HueBridgeState(record: home.frontRecord(recordName)))
            memory.isLoaded = true
            memory.catchUp(with: home)
            if memory.isUnsaved { home.saveFrontRecord(recordName, memory.state.jsonValue) }
            return memory.isUnsaved
        }
    }

    /// Saves the bridge's record as the home keeps it: for numbers given at start to a state that stays on disk
    /// as it was loaded, so that a light removed before the next snapshot does not move the others' numbers.
    package static func saveRecord(of home: Home) async {
        await home.reading { home in
            if let record = home.frontRecord(recordName) { home.saveFrontRecord(recordName, record) }
        }
    }

    /// What is wrong with the bridge's record in `fixture` (its `hue`), if anything: `lumend --check` asks.
    package static func recordProblem(in fixture: Fixture) -> JSONShapeError? {
        do {
            _ = try HueBridgeState(record: fixture.fronts[recordName])
            return nil
        } catch {
            return error
        }
    }

    /// How the command record (and the log) names a user: `hue` and a tag of eight hexadecimal digits drawn from
    /// its name, enough to tell apps apart. Not the name itself, nor part of it: a name is the app's key, and a
    /// short one given by a fixture would be written whole.
    static func sender(_ user: String) -> String {
        "hue " + String(hex: FNV1a.hash(user.utf8) & 0xFFFF_FFFF, digits: 8)
    }

    /// Resources the bridge has but Lumen does not simulate: always empty.
    static let emptyResources: Set<String> = [
        "sensors", "schedules", "rules", "resourcelinks", "capabilities",
    ]
    static let knownResources = emptyResources.union(["lights", "groups", "config", "scenes"])

    // MARK: - Reading a body

    /// The request's body as a JSON object.
    /// - Throws: ``HueError`` 2 for a body that is not JSON, 5 for one that is not an object.
    func bodyObject(_ request: HTTPRequest, address: String) throws(HueError) -> JSONObject {
        guard !request.body.isEmpty else {
            throw HueError.missingParameters(at: address)
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(request.body)
        } catch {
            throw HueError(type: 2, address: address, description: "body contains invalid json")
        }
        guard case .object(let object) = value else {
            throw HueError.missingParameters(at: address)
        }
        return object
    }

    /// Hue's success list for a change `body` made at `address`: one entry a parameter, as sent
    /// (`[{"success": {"/scenes/ab12/name": "Evening"}}]`).
    static func successes(for body: JSONObject, at address: String) -> [JSONValue] {
        body.members.map { ["success": .object(["\(address)/\($0.key)": $0.value])] }
    }

    /// Hue's answer to a change of attributes `body` at `address` of which the bridge has only the parameters
    /// `taken`: each parameter answered for itself, as sent, a success for those taken and error 6 for the others
    /// (phue sends the transition time set on a light or group object with its new name).
    static func answer(to body: JSONObject, taking taken: Set<String>, at address: String) -> [JSONValue] {
        body.members.map { member in
            taken.contains(member.key)
                ? ["success": .object(["\(address)/\(member.key)": member.value])]
                : HueError.parameterNotAvailable(member.key, at: address).jsonValue
        }
    }

    /// Waits until what was applied is on disk, when writes must be before they are answered.
    func commit() async throws(HueError) {
        do {
            try await scopeContext.commit()
        } catch {
            throw HueError.internalError(error.message)
        }
    }

    /// Renames `entity` as an app asked: a name taken but not made durable is Hue's internal error, and a name
    /// refused the error `refused` makes of Lumen's.
    func renameEntity(_ entity: Entity, to name: String, refused: (LumenError) -> HueError) async throws(HueError) {
        do {
            try await scopeContext.rename(entity, to: name)
        } catch  where error.code == .notPersisted {
            throw HueError.internalError(error.message)
        } catch {
            throw refused(error)
        }
    }
}
