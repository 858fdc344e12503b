import Foundation
import LumenModel
import LumenProtocol
import LumenTestSupport
import Testing

@testable import LumenServer

/// A client that writes its requests and then shuts its write side (`printf … | socat`, `nc -N`, most
/// scripts) gets every reply, including those of writes waiting for a device, before the server closes.
@Suite("Half-closed connections", .timeLimit(.minutes(2)))
struct HalfCloseTests {
    static let slowHome = """
        {"schema": 1, "id": "slow", "name": "Slow", "seed": 1,
         "defaults": {"latency": {"kind": "fixed", "ms": 100}, "timeoutMs": 5000},
         "rooms": [{"id": "lab", "name": "Lab", "lights": [{"id": "lab.dim", "name": "Dimmer", "kind": "dimmable"}]}]}
        """

    /// Every line until the server closes.
    func linesUntilClosed(_ client: LineClient) async -> [JSONValue] {
        var replies: [JSONValue] = []
        while let line = try? await client.readLine(timeout: .seconds(10)) {
            if let value = try? JSONParser.parse(Array(line.utf8)) { replies.append(value) }
        }
        return replies
    }

    @Test(arguments: [1, 5, 50, 500])
    func everyRequestReadBeforeEndOfInputIsAnswered(count: Int) async throws {
        let server = try await TestServer()
        // Another client keeps the home busy, so requests wait for it and the server reads on meanwhile.
        let busy = try server.connect()
        let flood = Task {
            while !Task.isCancelled { _ = try? await busy.result("get", ["scope": 0, "connection": "name"]) }
        }
        defer { flood.cancel() }
        for _ in 0..<10 {
            let client = try server.connect()
            let requests = (1...count).map {
                #"{"jsonrpc":"2.0","id":\#($0),"method":"get","params":{"scope":0,"connection":"name"}}"#
            }
            client.sendRaw(Array((requests.joined(separator: "\n") + "\n").utf8))
            shutdown(client.fd, Int32(SHUT_WR))
            let replies = await linesUntilClosed(client)
            #expect(Set(replies.compactMap { $0["id"]?.intValue }) == Set(1...count), "\(replies.count) of \(count)")
        }
    }

    @Test func aSetWaitingForItsDeviceIsAnsweredAfterEndOfInput() async throws {
        let server = try await TestServer(fixture: Self.slowHome)
        let client = try server.connect()
        let room =
            #"{"jsonrpc":"2.0","id":1,"method":"open","params":{"scope":0,"connection":"room","configuration":"lab"}}"#
        let light =
            #"{"jsonrpc":"2.0","id":2,"method":"open","params":{"scope":1,"connection":"light","configuration":"lab.dim"}}"#
        let set = #"{"jsonrpc":"2.0","id":3,"method":"set","params":{"scope":2,"connection":"brightness","value":40}}"#
        let hello = #"{"jsonrpc":"2.0","id":4,"method":"hello"}"#
        client.sendRaw(Array([room, light, set, hello].joined(separator: "\n").utf8) + [0x0A])
        shutdown(client.fd, Int32(SHUT_WR))
        // The device applies the set only once another client moves the virtual clock past its latency.
        let driver = try server.connect()
        let simulation = try await driver.result("open", ["scope": 0, "connection": "simulation"])
        while await server.home.scheduledEventCount == 0 { _ = try await driver.result("hello") }
        _ = try await driver.result(
            "call", ["scope": simulation["scope"]!, "connection": "advance", "arguments": ["ms": 1_000]])
        let replies = await linesUntilClosed(client)
        let ids = replies.compactMap { $0["id"]?.intValue }
        #expect(Set(ids) == [1, 2, 3, 4], "\(replies.map { $0.serialized() })")
        #expect(replies.first { $0["id"] == 3 }?["result"]?["value"] == 40)
    }
}
