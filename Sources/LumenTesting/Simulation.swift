import LumenClient
import LumenProtocol

/// The simulation scope of a lumend a test drives: its clock, the command record and the ground truth of its
/// lights, with assertions that say, when they fail, what was expected, what the light shows and the last
/// commands it received.
///
/// ```swift
/// let client = try await LumenClient.connect(to: socketPath)
/// let simulation = try await Simulation.open(on: client)
/// let lamp = try await client.open("light", in: room, configuration: "lab.lamp")
/// async let applied = client.setState(["isOn": true, "brightness": 30], of: lamp)
/// try await simulation.waitForCommands(1, light: "lab.lamp")
/// try await simulation.settle()
/// _ = try await applied
/// try await simulation.assertCommand(light: "lab.lamp", ["isOn": true, "brightness": 30], source: "session")
/// try await simulation.assertState(light: "lab.lamp", ["isOn": true, "brightness": 30])
/// ```
public struct Simulation: Sendable {
    /// The client it speaks through.
    public let client: LumenClient
    /// The simulation scope it opened.
    public let scope: ScopeID

    /// Opens the simulation scope on `client`.
    /// - Throws: ``LumenClientError`` when lumend refuses it (the socket's access rules) or the connection ends.
    public static func open(on client: LumenClient) async throws(LumenClientError) -> Simulation {
        Simulation(client: client, scope: try await client.open("simulation", in: ScopeID(0)))
    }

    /// Moves the virtual clock forward by `ms`; returns once everything due by then was applied.
    @discardableResult
    public func advance(ms: Double) async throws(LumenClientError) -> JSONValue {
        try await client.call("advance", in: scope, arguments: ["ms": .double(ms)])
    }

    /// Moves the virtual clock from event to event until no command, fade or scan is pending (at most `maxMs`,
    /// two hours unless given); returns the clock, how far it went (`advancedMs`) and `idle`.
    @discardableResult
    public func settle(maxMs: Double? = nil) async throws(LumenClientError) -> JSONValue {
        var arguments: JSONObject = ["untilIdle": true]
        if let maxMs { arguments["maxMs"] = .double(maxMs) }
        return try await client.call("advance", in: scope, arguments: .object(arguments))
    }

    /// The command record, oldest first, for `light` or `room` when given: each record as lumend writes it
    /// (`number`, `atMs`, `source`, `light`, `room`, `change`, `transitionMs`, `outcome`, `code`).
    public func commands(light: String? = nil, room: String? = nil) async throws(LumenClientError) -> [JSONObject] {
        var arguments = JSONObject()
        if let light { arguments["light"] = .string(light) }
        if let room { arguments["room"] = .string(room) }
        let result = try await client.call("commands", in: scope, arguments: .object(arguments))
        return (result["commands"]?.arrayValue ?? []).compactMap(\.objectValue)
    }

    /// Empties the command record; returns how many records it held. A command pending now is not recorded
    /// when it settles; `reset` and `restore` leave the record as it is.
    @discardableResult
    public func clearCommands() async throws(LumenClientError) -> Int {
        try await client.call("clearCommands", in: scope)["cleared"]?.intValue ?? 0
    }

    /// A light's ground truth beside what its controller reports: `family`, `reachable`,
    /// `reportedReachable`, its `state` now and the properties `fading`.
    public func device(_ light: String) async throws(LumenClientError) -> JSONObject {
        try await client.call("device", in: scope, arguments: ["light": .string(light)]).objectValue ?? [:]
    }
}
