import Foundation
import LumenModel
import LumenProtocol
import LumenTestSupport
import Testing

@testable import LumenServer

@Suite("Sessions over a real socket", .timeLimit(.minutes(2)))
struct SessionTests {
    @Test func aFullSession() async throws {
        let server = try await TestServer()
        let client = try server.connect()
        let hello = try await client.result("hello", ["client": "test"])
        #expect(hello == ["server": "lumend", "version": .string(LumenVersion.string), "protocol": 1, "root": 0])
        let describe = try await client.result("describe")
        let lightConnections = describe["scopes"]?["light"]?["connections"]?.arrayValue?.compactMap {
            $0["name"]?.stringValue
        }
        #expect(
            lightConnections == [
                "name", "model", "isOn", "brightness", "colorTemperature", "color", "isReachable", "effect", "setState",
            ])
        let room = try await client.result("open", ["scope": 0, "connection": "room", "configuration": "lab"])
        #expect(room["type"] == "room")
        let light = try await client.result(
            "open", ["scope": room["scope"]!, "connection": "light", "configuration": "lab.plug"])
        let subscribed = try await client.result("subscribe", ["scope": light["scope"]!, "connection": "isOn"])
        #expect(subscribed["value"] == false)
        #expect(subscribed["seq"] == 0)
        let simulation = try await client.openSimulation()
        client.send(
            #"{"jsonrpc":"2.0","id":"set","method":"set","params":{"scope":\#(light["scope"]!.serialized()),"connection":"isOn","value":true}}"#
        )
        try await client.advance(byMilliseconds: 0, in: simulation)  // taken after the set
        let reply = try await client.response(to: "set")
        #expect(reply["result"] == ["value": true])
        let changed = client.takeNotifications()
        #expect(changed.count == 1)
        #expect(changed.first?["method"] == "changed")
        #expect(changed.first?["params"] == ["subscription": subscribed["subscription"]!, "value": true, "seq": 1])
        // Closing the room closes the light scope below it.
        #expect(try await client.result("close", ["scope": room["scope"]!]) == [:])
        #expect(try await client.errorCode("get", ["scope": light["scope"]!, "connection": "isOn"]) == -32001)
    }

    @Test func twoSessionsSeeEachOthersChangesAndARemovedLightClosesScopesInBoth() async throws {
        let server = try await TestServer()
        let alice = try server.connect()
        let bob = try server.connect()
        let aliceLight = try await alice.openLight("lab", "lab.dim")
        let aliceSimulation = try await alice.openSimulation()
        let bobRoom = try await bob.result("open", ["scope": 0, "connection": "room", "configuration": "lab"])
        let bobLight = try await bob.result(
            "open", ["scope": bobRoom["scope"]!, "connection": "light", "configuration": "lab.dim"])
        let subscription = try await bob.result("subscribe", ["scope": bobLight["scope"]!, "connection": "brightness"])
        alice.send(
            #"{"jsonrpc":"2.0","id":1,"method":"set","params":{"scope":\#(aliceLight.serialized()),"connection":"brightness","value":75}}"#
        )
        try await alice.advance(byMilliseconds: 0, in: aliceSimulation)
        #expect(try await alice.response(to: 1)["result"] == ["value": 75])
        let seen = try await bob.waitForNotifications(1)
        #expect(seen[0]["params"] == ["subscription": subscription["subscription"]!, "value": 75, "seq": 1])
        // Removing the room closes, in each session, the light scope first and then the room scope.
        try await server.home.removeRoom("lab")
        let bobClosed = try await bob.waitForNotifications(2)
        #expect(bobClosed.map { $0["method"] } == ["closed", "closed"])
        #expect(bobClosed.map { $0["params"]?["scope"] } == [bobLight["scope"]!, bobRoom["scope"]!])
        let aliceClosed = try await alice.waitForNotifications(2)
        #expect(
            aliceClosed.compactMap { $0["params"]?["scope"]?.intValue } == [
                aliceLight.intValue!, aliceLight.intValue! - 1,
            ])
        #expect(try await alice.errorCode("get", ["scope": aliceLight, "connection": "name"]) == -32001)
    }

    /// The get's work is not held up: it reads the light before the set lands, though its reply, in its
    /// request's place, follows the set's.
    @Test func aSlowSetOnOneLightDoesNotHoldUpAGetOnAnother() async throws {
        let server = try await TestServer(
            fixture: TestFixtures.instantHome.replacingOccurrences(
                of: "\"instant\"", with: "{\"kind\": \"fixed\", \"ms\": 500}"))
        let client = try server.connect()
        let plug = try await client.openLight("lab", "lab.plug")
        let dim = try await client.openLight("lab", "lab.dim")
        let simulation = try await client.openSimulation()
        client.send(
            #"{"jsonrpc":"2.0","id":"slow","method":"set","params":{"scope":\#(plug.serialized()),"connection":"isOn","value":true}}"#
        )
        client.send(
            #"{"jsonrpc":"2.0","id":"fast","method":"get","params":{"scope":\#(dim.serialized()),"connection":"brightness"}}"#
        )
        client.send(
            #"{"jsonrpc":"2.0","id":"dim","method":"set","params":{"scope":\#(dim.serialized()),"connection":"brightness","value":20}}"#
        )
        try await client.advance(byMilliseconds: 500, in: simulation)
        #expect(try await client.response(to: "slow")["result"] == ["value": true])
        // Read at 50 %, before the dimmer's own write, which lands with the plug's.
        #expect(try await client.response(to: "fast")["result"] == ["value": 50])
        #expect(try await client.response(to: "dim")["result"] == ["value": 20])
    }

    @Test func errorsHaveStableCodesAndSayWhatToDo() async throws {
        let server = try await TestServer()
        let client = try server.connect()
        let plug = try await client.openLight("lab", "lab.plug")
        #expect(try await client.errorCode("get", ["scope": 99, "connection": "name"]) == -32001)
        #expect(try await client.errorCode("get", ["scope": 0, "connection": "nope"]) == -32002)
        #expect(try await client.errorCode("set", ["scope": 0, "connection": "roomIDs", "value": []]) == -32003)
        #expect(try await client.errorCode("get", ["scope": 0, "connection": "room"]) == -32003)
        #expect(
            try await client.errorCode("open", ["scope": 0, "connection": "room", "configuration": "cellar"]) == -32004)
        #expect(try await client.errorCode("set", ["scope": plug, "connection": "brightness", "value": 10]) == -32005)
        #expect(try await client.errorCode("get", ["scope": plug, "connection": "brightness"]) == -32005)
        #expect(try await client.errorCode("set", ["scope": plug, "connection": "isOn", "value": "yes"]) == -32602)
        #expect(try await client.errorCode("get", ["scope": "0", "connection": "name"]) == -32602)
        #expect(try await client.errorCode("get", ["scope": 0, "connection": "name", "extra": 1]) == -32602)
        #expect(try await client.errorCode("get", [0, "name"]) == -32602)
        #expect(try await client.errorCode("frobnicate") == -32601)
        #expect(try await client.errorCode("close", ["scope": 0]) == -32602)
        let simulation = try await client.result("open", ["scope": 0, "connection": "simulation"])
        #expect(
            try await client.errorCode(
                "call", ["scope": simulation["scope"]!, "connection": "advance", "arguments": ["ms": -1]]) == -32602)
        let response = try await client.request("set", ["scope": plug, "connection": "brightness", "value": 10])
        #expect(response["error"]?["message"]?.stringValue?.contains("(kind onoff) has no brightness") == true)
        #expect(response["error"]?["data"]?["connection"] == "brightness")
    }

    /// Which of two values a key given twice stands for is anyone's guess, so neither is taken: not by the
    /// quick reading of a plain request, nor by the general one.
    @Test func aParameterGivenTwiceIsRefusedAndNothingIsChanged() async throws {
        let server = try await TestServer()
        let client = try server.connect()
        client.send(
            #"{"jsonrpc":"2.0","id":"n","method":"set","params":{"scope":0,"connection":"name","value":"A","value":"B"}}"#
        )
        let error = try #require(try await client.response(to: "n")["error"])
        #expect(error["code"] == -32602)
        #expect(error["message"] == "params.value: key given more than once; give each key once")
        #expect(try await client.result("get", ["scope": 0, "connection": "name"])["value"] != "B")
        client.send(#"{"jsonrpc":"2.0","id":"c","method":"get","params":{"scope":0,"scope":0,"connection":"name"}}"#)
        #expect(try await client.response(to: "c")["error"]?["code"] == -32602)
    }

    /// A value's path is worked out only for an error: the error still names where the bad value is, in a
    /// transition and inside a call's arguments.
    @Test func aBadTransitionOrArgumentIsNamedByItsPath() async throws {
        let server = try await TestServer()
        let client = try server.connect()
        let plug = try await client.openLight("lab", "lab.plug")
        let set = try await client.request(
            "set", ["scope": plug, "connection": "isOn", "value": true, "transitionMs": "slow"])
        #expect(set["error"]?["code"] == -32602)
        let setMessage = set["error"]?["message"]?.stringValue ?? ""
        #expect(setMessage.hasPrefix("params.transitionMs: "), "\(setMessage)")
        let simulation = try await client.result("open", ["scope": 0, "connection": "simulation"])
        let call = try await client.request(
            "call", ["scope": simulation["scope"]!, "connection": "advance", "arguments": ["ms": "soon"]])
        #expect(call["error"]?["code"] == -32602)
        let callMessage = call["error"]?["message"]?.stringValue ?? ""
        #expect(callMessage.hasPrefix("params.arguments.ms: "), "\(callMessage)")
    }

    @Test func theSimulationScopeIsOnlyForRootAndTheDaemonsUser() async throws {
        let server = try await TestServer()
        let socket = server.server
        #expect(socket.mayUseSimulation(PeerCredentials(pid: 1, uid: 0, gid: 0)))
        #expect(socket.mayUseSimulation(PeerCredentials(pid: 1, uid: getuid(), gid: 0)))
        #expect(!socket.mayUseSimulation(PeerCredentials(pid: 1, uid: 4_242, gid: 4_242)))
    }

    @Test func scopeAndSubscriptionLimitsAreEnforced() async throws {
        var limits = ServerLimits()
        limits.maxScopesPerSession = 3
        limits.maxSubscriptionsPerSession = 2
        let server = try await TestServer(limits: limits)
        let client = try server.connect()
        _ = try await client.result("open", ["scope": 0, "connection": "room", "configuration": "lab"])
        _ = try await client.result("open", ["scope": 0, "connection": "room", "configuration": "lab"])
        #expect(
            try await client.errorCode("open", ["scope": 0, "connection": "room", "configuration": "lab"]) == -32020)
        _ = try await client.result("subscribe", ["scope": 0, "connection": "name"])
        _ = try await client.result("subscribe", ["scope": 0, "connection": "roomIDs"])
        #expect(try await client.errorCode("subscribe", ["scope": 1, "connection": "name"]) == -32020)
    }

    @Test func sessionsBeyondTheDaemonsLimitAreToldWhyAndHungUpOn() async throws {
        var limits = ServerLimits()
        limits.maxSessions = 2
        let server = try await TestServer(limits: limits)
        let first = try server.connect()
        let second = try server.connect()
        _ = try await first.result("hello")
        _ = try await second.result("hello")
        let third = try server.connect()
        let refusal = try await third.readJSON()
        #expect(refusal["error"]?["code"] == -32020)
        #expect(refusal["error"]?["message"]?.stringValue?.contains("at most 2 sessions") == true)
        #expect(refusal["id"] == .null)
        #expect(await third.waitForHangUp())
        // Those already in are served as before; once one leaves, its place is free again.
        _ = try await first.result("hello")
        shutdown(first.fd, Int32(SHUT_RDWR))
        var admitted = false
        for _ in 0..<1_000 where !admitted {
            let next = try server.connect()
            next.send(#"{"jsonrpc":"2.0","id":"in","method":"hello"}"#)
            // Until the server has noticed the hang-up, a newcomer is refused (and hung up on) at once.
            admitted = try await next.readJSON()["id"] == "in"
        }
        #expect(admitted)
    }

    @Test func subscribersSeeATransitionsStepsAndItsExactEnd() async throws {
        let server = try await TestServer()
        let client = try server.connect()
        let dim = try await client.openLight("lab", "lab.dim")
        let subscription = try await client.result("subscribe", ["scope": dim, "connection": "brightness"])
        let simulation = try await client.result("open", ["scope": 0, "connection": "simulation"])
        client.send(
            #"{"jsonrpc":"2.0","id":"t","method":"set","params":{"scope":\#(dim.serialized()),"connection":"brightness","value":100,"transitionMs":500}}"#
        )
        // Step the clock 100 ms at a time, reading every notice before the next step.
        for _ in 0..<6 {
            _ = try await client.result(
                "call", ["scope": simulation["scope"]!, "connection": "advance", "arguments": ["ms": 100]])
        }
        #expect(try await client.response(to: "t")["result"] == ["value": 100])
        let values = client.takeNotifications().filter { $0["params"]?["subscription"] == subscription["subscription"] }
            .compactMap { $0["params"]?["value"]?.doubleValue }
        #expect(values == [60, 70, 80, 90, 100])
    }

    @Test func unsubscribedValuesAreNotSent() async throws {
        let server = try await TestServer()
        let client = try server.connect()
        let subscription = try await client.result("subscribe", ["scope": 0, "connection": "name"])
        _ = try await client.result("unsubscribe", ["subscription": subscription["subscription"]!])
        try await server.home.setName("Renamed", of: .home)
        _ = try await client.result("hello")
        #expect(client.takeNotifications().isEmpty)
        #expect(try await client.errorCode("unsubscribe", ["subscription": subscription["subscription"]!]) == -32602)
    }
}
