import Foundation
import LumenModel
import LumenProtocol
import LumenTestSupport
import Testing

@testable import LumenServer

/// Every error code of the protocol, triggered over it, carries the `data` docs/protocol.md promises: the scope
/// and connection of a request on a connection, the light or room behind its scope, a `set`'s value, and the
/// few keys the table names for single codes.
@Suite("Error data is the same for every code", .timeLimit(.minutes(2)))
struct ErrorDataTests {
    static let fixture = """
        {"schema": 1, "id": "e", "name": "E", "defaults": {"latency": "instant"}, "rooms": [
          {"id": "lab", "name": "Lab", "lights": [
            {"id": "lab.color", "name": "Color", "kind": "color", "rateLimitPerSecond": 1, "overload": "busy"},
            {"id": "lab.plug", "name": "Plug", "kind": "onoff"},
            {"id": "lab.hue", "name": "Hue", "kind": "color", "whileOff": "refuse", "state": {"isOn": false}},
            {"id": "lab.lossy", "name": "Lossy", "kind": "onoff", "dropProbability": 1, "timeoutMs": 100},
            {"id": "lab.far", "name": "Far", "kind": "onoff", "timeoutMs": 100}
          ]}]}
        """

    /// The simulation's controls take any light of the home: an unknown one is answered with where to find
    /// the lights there are in that scope, not with a lumenctl command.
    @Test func anUnknownLightInTheSimulationPointsToTheSnapshot() async throws {
        let server = try await TestServer(fixture: Self.fixture)
        let client = try server.connect()
        let simulation = try await client.result("open", ["scope": 0, "connection": "simulation"])["scope"]!
        let error = try #require(
            try await client.request(
                "call",
                [
                    "scope": simulation, "connection": "setReachable",
                    "arguments": ["light": "lab.nothing", "reachable": false],
                ]
            )["error"])
        #expect(error["code"] == -32004)
        #expect(error["message"] == "no light 'lab.nothing'; call the simulation's snapshot for the lights there are")
    }
}
