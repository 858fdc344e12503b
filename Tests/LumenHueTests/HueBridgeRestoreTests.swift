import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

@testable import LumenHue

/// A reset or a checkpoint's restore brings back what the bridge keeps (numbers, scenes, groups), as the rest of
/// the home, and keeps the users paired now, and only those; a light removed leaves the bridge's record at once.
@Suite("The Hue bridge on a reset and a restore")
struct HueBridgeRestoreTests {
    @Test func aCheckpointsRestoreBringsBackTheScenesAndGroupsAndKeepsAppsPairedSince() async throws {
        let test = try await HueTestBridge()
        let kept = try await test.createScene(#"{"name": "Evening", "lights": ["1"]}"#)
        try await test.home.checkpoint("before")
        let before = await test.bridge.state
        _ = try await test.createScene(#"{"name": "Morning", "lights": ["1"]}"#)
        _ = try await test.answer("POST", "/groups", #"{"name": "Reading", "lights": ["1"]}"#)
        try await test.bridge.pairUser("later", deviceType: "later#app")
        try await test.home.addLight(
            LightFixture(
                id: "den.extra", name: "Extra", model: DeviceModel(kind: .dimmable, manufacturer: "Acme", product: "S")),
            to: "den")
        _ = try await test.answer("GET", "/lights")

        try await test.home.restore(checkpoint: "before")
        let after = await test.bridge.state
        #expect(after.scenes.map(\.id) == [kept] && after.groups.isEmpty)
        #expect(after.lightNumbers == before.lightNumbers, "the light added since went, and its number with it")
        // In the order of their use: the test's requests use "tests".
        #expect(after.users.map(\.username) == ["later", "tests"], "an app paired since stays paired")
        // Saved as restored: a restart from the journal finds the bridge as it is.
        let restarted = try await test.restarted()
        let again = await restarted.bridge.state
        #expect(again.scenes.map(\.id) == [kept] && again.groups.isEmpty)
        #expect(again.users.map(\.username) == ["later", "tests"])
    }

    @Test func aResetGivesTheFixturesNumbersAndUsers() async throws {
        var fixture = try Fixture(json: Array(HueBridgeTests.home.utf8))
        fixture.fronts["hue"] = try JSONParser.parse(
            Array(
                #"{"users": [{"username": "fixed-user", "devicetype": "fixture#app", "createdMs": 0}], "lights": {"den.lamp": 7}}"#
                    .utf8))
        let test = try await HueTestBridge(fixture: fixture)
        try await test.home.removeLight("den.lamp")
        _ = try await test.answer("POST", "/groups", #"{"name": "Reading", "lights": []}"#)
        #expect(await test.bridge.state.groups.count == 1)

        try await test.home.restore(to: fixture)
        let state = await test.bridge.state
        #expect(state.lightNumbers["den.lamp"] == 7, "the fixture's number, not a new one")
        #expect(state.groups.isEmpty)
        #expect(state.users.map(\.username) == ["fixed-user", "tests"])
        #expect(try await test.answer("GET", "/lights/7")["name"] == .string("Lamp"))
    }

    @Test func aRestoreBringsBackNoUserDeletedSinceAndNoMoreThanTheLimit() async throws {
        let test = try await HueTestBridge()
        try await test.bridge.pairUser("gone", deviceType: "gone#app")
        try await test.bridge.pairUser("old", deviceType: "old#app")
        await test.bridge.visit { _, memory in memory.userLimit = 3 }
        try await test.home.checkpoint("before")
        #expect(try await test.answer("DELETE", "/config/whitelist/gone").arrayValue?.first?["success"] != nil)
        // The whitelist full again: pairing forgets the user unused longest, "old" ("tests" made the request).
        try await test.bridge.pairUser("new", deviceType: "new#app")
        try await test.bridge.pairUser("newer", deviceType: "newer#app")
        let paired = await test.bridge.users.map(\.username)
        #expect(paired == ["tests", "new", "newer"])

        try await test.home.restore(checkpoint: "before")
        #expect(await test.bridge.users.map(\.username) == paired, "the users paired now, deleted ones not back")
        let restarted = try await test.restarted()
        #expect(await restarted.bridge.users.map(\.username) == paired, "saved so")
    }

    @Test func aRestoreEndsTheScenesActivityAndTheSpeedsV2Reports() async throws {
        let test = try await HueTestBridge()
        let lamp = try #require(await test.bridge.state.lightsByNumber[1])
        await test.bridge.visit { _, memory in
            memory.recalledScenes["scene"] = [lamp: .factoryDefault]
            memory.lightSpeeds[lamp] = 0.5
        }
        try await test.home.checkpoint("before")
        try await test.home.restore(checkpoint: "before")
        await test.bridge.visit { _, memory in
            #expect(memory.recalledScenes.isEmpty && memory.lightSpeeds.isEmpty)
        }
    }

    @Test func aResetKeepsTheUUIDsOfTheBridgeAndOfTheLightsAndRoomsTheFixtureGivesNone() async throws {
        let fixture = try Fixture(json: Array(HueBridgeTests.home.utf8))
        let test = try await HueTestBridge(fixture: fixture)
        _ = try await test.answer("GET", "/lights")
        let before = await test.bridge.state.resourceIDs
        let keys = [
            HueBridgeState.bridgeResourceKey, HueBridgeState.resourceKey(light: "den.lamp"),
            HueBridgeState.resourceKey(room: "den"),
        ]
        #expect(keys.allSatisfy { before[$0] != nil })

        try await test.home.restore(to: fixture)
        _ = try await test.answer("GET", "/lights")
        let after = await test.bridge.state.resourceIDs
        for key in keys { #expect(after[key] == before[key], "\(key) keeps its UUID: clients hold it") }
    }

    @Test func aResetGivesTheFixturesOwnUUIDsWhereItHasThem() async throws {
        let test = try await HueTestBridge()
        _ = try await test.answer("GET", "/lights")
        var fixture = try Fixture(json: Array(HueBridgeTests.home.utf8))
        let lamp = "1b0a7f4e-3c2d-4e5f-8a9b-0c1d2e3f4a5b"
        fixture.fronts["hue"] = try JSONParser.parse(
            Array(#"{"users": [], "resourceIDs": {"light/den.lamp": "\#(lamp)"}}"#.utf8))
        #expect(await test.bridge.state.resourceIDs[HueBridgeState.resourceKey(light: "den.lamp")] != lamp)

        try await test.home.restore(to: fixture)
        #expect(await test.bridge.state.resourceIDs[HueBridgeState.resourceKey(light: "den.lamp")] == lamp)
    }

    @Test func aLightRemovedLeavesTheBridgesRecordAtOnce() async throws {
        let test = try await HueTestBridge()
        _ = try await test.createScene(#"{"name": "Evening", "lights": ["1"]}"#)
        let id = try #require(await test.bridge.state.lightsByNumber[1])
        try await test.home.removeLight(id)
        // Nothing asked of the bridge since: the record the home keeps has forgotten the light already.
        let record = try #require(await test.home.frontRecord("hue"))
        let state = try HueBridgeState(record: record)
        #expect(state.scenes.count == 1 && state.scenes.allSatisfy { $0.lights.isEmpty })
        #expect(state.lightNumbers[id] == 1, "its number stays taken, as on a bridge")
    }
}
