import LumenClient
import LumenModel
import LumenProtocol
import LumenTestSupport
import Testing

@Suite("LumenClient and models against a real server", .timeLimit(.minutes(2)))
struct ClientModelTests {
    /// Waits, on the main actor, until `condition` holds or the server has had `rounds` chances to answer.
    @MainActor
    func eventually(_ client: LumenClient, rounds: Int = 200, _ condition: @MainActor () -> Bool) async throws {
        for _ in 0..<rounds where !condition() {
            // A round trip to the daemon lets notifications that were sent before it arrive.
            _ = try await client.hello()
        }
    }

    /// ``eventually(_:rounds:_:)`` while a write is still waiting, whose reply a round trip's would wait behind:
    /// looks again each millisecond (for at most ten seconds), as the client's own thread reads the notices.
    @MainActor
    func eventuallyWhileWriting(_ condition: @MainActor () -> Bool) async {
        for _ in 0..<10_000 where !condition() { try? await Task.sleep(for: .milliseconds(1)) }
    }

    /// Waits until the daemon has `count` device commands queued (a `set` sent from another task has arrived),
    /// looking each millisecond for at most ten seconds. A round trip cannot tell: its reply would come after the
    /// `set`'s, in its request's place.
    func untilQueued(_ server: TestServer, count: Int = 1) async {
        for _ in 0..<10_000 where await server.home.scheduledEventCount < count {
            try? await Task.sleep(for: .milliseconds(1))
        }
        #expect(await server.home.scheduledEventCount >= count, "the write never reached the daemon")
    }

    @MainActor
    @Test func aLightModelWritesThroughFollowsOthersAndEndsWhenItsScopeCloses() async throws {
        let server = try await TestServer()
        let client = try await LumenClient.connect(to: server.socketPath)
        defer { client.disconnect() }
        let light = try await LightModel.open("lab.dim", in: "lab", client: client)
        #expect(light.isOn == false)
        #expect(light.brightness == 50)
        #expect(light.colorTemperature == nil)
        #expect(light.model["kind"] == "dimmable")

        // Assignment writes through; the property keeps the confirmed value until the device applies it.
        light.isOn = true
        #expect(light.isOn == false)
        #expect(light.writes.pending == ["isOn"])
        await untilQueued(server)
        try await server.home.advance(byMilliseconds: 0)
        try await eventually(client) { light.isOn && light.writes.pending.isEmpty }
        #expect(light.isOn)
        #expect(light.writes.pending.isEmpty)

        // Another session's change arrives in the model.
        let other = try server.connect()
        let scope = try await other.openLight("lab", "lab.dim")
        let simulation = try await other.openSimulation()
        other.send(
            #"{"jsonrpc":"2.0","id":9,"method":"set","params":{"scope":\#(scope.serialized()),"connection":"brightness","value":80}}"#
        )
        try await other.advance(byMilliseconds: 0, in: simulation)
        try await eventually(client) { light.brightness == 80 }
        #expect(light.brightness == 80)

        // A failed write is reported and the value stays.
        light.brightness = 500
        try await eventually(client) { light.writes.lastFailure != nil }
        #expect(light.writes.lastFailure?.error.code == .invalidParams)
        #expect(light.brightness == 80)

        // Removing the light closes the scope; the model ends cleanly.
        try await server.home.removeLight("lab.dim")
        try await eventually(client) { light.isClosed }
        #expect(light.isClosed)
    }

    @MainActor
    @Test func aWriteStaysPendingUntilTheLastOfItsWritesIsConfirmed() async throws {
        let fixture = """
            {"schema": 1, "id": "slow", "name": "Slow", "rooms": [{"id": "lab", "name": "Lab", "lights": [
              {"id": "lamp", "name": "Lamp", "kind": "onoff", "latency": {"kind": "fixed", "ms": 100}}
            ]}]}
            """
        let server = try await TestServer(fixture: fixture)
        let client = try await LumenClient.connect(to: server.socketPath)
        defer { client.disconnect() }
        let lamp = try await LightModel.open("lamp", in: "lab", client: client)
        lamp.isOn = false
        await untilQueued(server)
        try await server.home.advance(byMilliseconds: 50)
        lamp.isOn = true
        await untilQueued(server, count: 2)
        // The first lands at 100 ms, the second (queued behind it) at 150 ms.
        try await server.home.advance(byMilliseconds: 50)
        await eventuallyWhileWriting { lamp.isOn == false }
        #expect(lamp.isOn == false)
        #expect(lamp.writes.pending == ["isOn"])
        try await server.home.advance(byMilliseconds: 50)
        try await eventually(client) { lamp.writes.pending.isEmpty }
        #expect(lamp.isOn == true)
        #expect(lamp.writes.pending.isEmpty)
    }

    @MainActor
    @Test func roomAndHomeRenamesAreTrackedLikeLightWrites() async throws {
        let server = try await TestServer()
        let client = try await LumenClient.connect(to: server.socketPath)
        defer { client.disconnect() }
        let home = try await HomeModel.open(client: client)
        let room = try await home.room("lab")
        #expect(home.name == "Test Home")
        #expect(room.name == "Lab")

        room.name = "Workshop"
        #expect(room.name == "Lab")
        #expect(room.writes.pending == ["name"])
        try await eventually(client) { room.writes.pending.isEmpty }
        #expect(room.name == "Workshop")

        // A name the daemon refuses is reported, and the confirmed name stays.
        home.name = "   "
        try await eventually(client) { home.writes.lastFailure != nil }
        #expect(home.writes.lastFailure?.connection == "name")
        #expect(home.writes.lastFailure?.error.code == .invalidParams)
        #expect(home.name == "Test Home")
        #expect(home.writes.pending.isEmpty)

        home.name = "Cottage"
        try await eventually(client) { home.name == "Cottage" }
        #expect(home.name == "Cottage")
    }

    @MainActor
    @Test func aRoomModelFollowsAnyOnAndAllOnAndSendsGroupCommands() async throws {
        let server = try await TestServer()
        let client = try await LumenClient.connect(to: server.socketPath)
        defer { client.disconnect() }
        let room = try await RoomModel.open("lab", client: client)
        #expect(room.anyOn && !room.allOn)
        let group = Task { try await room.setAll(["isOn": true]) }
        await untilQueued(server)
        try await server.home.advance(byMilliseconds: 0)
        let lights = try await group.value
        #expect(lights.map { $0["light"] } == ["lab.color", "lab.plug", "lab.dim"])
        try await eventually(client) { room.allOn }
        #expect(room.allOn)
    }

    @Test func setStateSendsSeveralPropertiesAsOneCommand() async throws {
        let server = try await TestServer()
        let client = try await LumenClient.connect(to: server.socketPath)
        defer { client.disconnect() }
        let room = try await client.open("room", in: .root, configuration: "lab")
        let light = try await client.open("light", in: room, configuration: "lab.dim")
        let applied = Task { try await client.setState(["isOn": true, "brightness": 20], of: light, transitionMs: 0) }
        await untilQueued(server)
        // One command: one event queued for the light, not one a property.
        #expect(await server.home.scheduledEventCount == 1)
        try await server.home.advance(byMilliseconds: 0)
        #expect(try await applied.value == ["isOn": true, "brightness": 20])
    }

    @Test func aCallGivenATimeoutSaysWhatItWaitedFor() async throws {
        let server = try await TestServer()
        let client = try await LumenClient.connect(to: server.socketPath)
        defer { client.disconnect() }
        let room = try await client.open("room", in: .root, configuration: "lab")
        let light = try await client.open("light", in: room, configuration: "lab.dim")
        // On the virtual clock nobody moves, the device never answers.
        await #expect(throws: LumenClientError.timedOut("set brightness within 0.05 seconds")) {
            try await client.set("brightness", in: light, to: 20, timeout: .milliseconds(50))
        }
        // The connection goes on; the late answer, once the clock moves, is dropped.
        try await server.home.advance(byMilliseconds: 0)
        #expect(try await client.get("brightness", in: light, timeout: .seconds(10)) == 20)
    }

    @Test func subscriptionsAreAsyncSequencesThatEndWhenTheScopeCloses() async throws {
        let server = try await TestServer()
        let client = try await LumenClient.connect(to: server.socketPath)
        defer { client.disconnect() }
        let room = try await client.open("room", in: .root, configuration: "lab")
        let plug = try await client.open("light", in: room, configuration: "lab.plug")
        let values = try await client.subscribe("isOn", in: plug)
        let collected = Task {
            var seen: [JSONValue] = []
            for try await value in values { seen.append(value) }
            return seen
        }
        let write = Task { try await client.set("isOn", in: plug, to: true) }
        await untilQueued(server)
        try await server.home.advance(byMilliseconds: 0)
        #expect(try await write.value == true)
        try await client.close(room)
        #expect(try await collected.value == [false, true])
    }

    @Test func theDocumentedWriteThenSettleMovesTheClockOnlyOnceLumendHoldsTheWrite() async throws {
        // docs/client.md's example as written there, on the lab home's dimmable light.
        let server = try await TestServer()
        let client = try await LumenClient.connect(to: server.socketPath)
        defer { client.disconnect() }
        let room = try await client.open("room", in: .root, configuration: "lab")
        let spot = try await client.open("light", in: room, configuration: "lab.dim")

        let simulation = try await client.open("simulation", in: .root)
        let sent = client.requestsSent
        let write = Task { try await client.set("isOn", in: spot, to: true, timeout: .seconds(60)) }  // once applied
        while client.requestsSent == sent { await Task.yield() }  // until the task has sent its set
        try await client.call("advance", in: simulation, arguments: ["untilIdle": true])  // taken after the set
        #expect(try await write.value == true)
    }

    @Test func serverErrorsComeBackTypedWithTheirCodes() async throws {
        let server = try await TestServer()
        let client = try await LumenClient.connect(to: server.socketPath)
        defer { client.disconnect() }
        do {
            _ = try await client.open("room", in: .root, configuration: "nowhere")
            Issue.record("opened a room that does not exist")
        } catch {
            #expect(error.code == .noSuchEntity)
        }
    }

    @Test func connectingWithNoDaemonSaysWhatToDo() async throws {
        let directory = TemporaryDirectory()
        do {
            _ = try await LumenClient.connect(to: directory.file("none.sock"))
            Issue.record("connected to nothing")
        } catch {
            guard case .cannotConnect = error else { Issue.record("\(error)"); return }
            #expect(error.description.contains("is lumend running?"))
        }
    }

    @Test func callsFailWithDisconnectedOnceTheConnectionEnds() async throws {
        let server = try await TestServer()
        let client = try await LumenClient.connect(to: server.socketPath)
        _ = try await client.hello()
        client.disconnect()
        do {
            _ = try await client.hello()
            Issue.record("a call succeeded after disconnect")
        } catch {
            #expect(error == .disconnected)
        }
    }
}
