import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

@testable import LumenHue

/// Scenes as apps store and recall them: `lights` (1 the Hue lamp, 3 the plug, 4 the hall's spot) are numbers
/// of ``HueBridgeTests/home``; group 1 is the den, 2 the hall.
@Suite("Hue bridge scenes")
struct HueSceneTests {
    /// A light deleted from the home leaves every scene and group it was in, as on a bridge, and stays gone
    /// from them after a restart.
    @Test func aLightThatGoesLeavesItsScenesAndGroups() async throws {
        let bridge = try await HueTestBridge()
        let id = try await bridge.createScene(#"{"name": "Evening", "lights": ["1", "4"]}"#)
        _ = try await bridge.answer("POST", "/groups", #"{"name": "Reading", "lights": ["1", "4"]}"#)
        try await bridge.home.removeLight("den.lamp")
        let scene = try await bridge.answer("GET", "/scenes/\(id)")
        #expect(scene["lights"] == ["4"] && scene["lightstates"]?["1"] == nil, "\(scene)")
        #expect(try await bridge.answer("GET", "/groups/3")["lights"] == ["4"])
        let restarted = try await bridge.restarted()
        #expect(try await restarted.answer("GET", "/scenes/\(id)")["lights"] == ["4"])
        #expect(try await restarted.answer("GET", "/groups/3")["lights"] == ["4"])
    }

    @Test func aSceneWithoutStatesCapturesTheLightsAsTheyAreAndARecallBringsThemBack() async throws {
        let bridge = try await HueTestBridge()
        _ = try await bridge.answer("PUT", "/lights/1/state", #"{"on": true, "bri": 200, "xy": [0.3, 0.4]}"#)
        _ = try await bridge.answer("PUT", "/lights/4/state", #"{"on": false}"#)
        let id = try await bridge.createScene(#"{"name": "Evening", "lights": ["1", "4"], "recycle": false}"#)
        #expect(
            id.count == 15 && id.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) })
        let scene = try await bridge.answer("GET", "/scenes/\(id)")
        #expect(scene["type"] == "LightScene" && scene["lights"] == ["1", "4"] && scene["owner"] == "tests")
        #expect(scene["lightstates"]?["1"] == ["on": true, "bri": 200, "xy": [0.3, 0.4]])
        #expect(scene["lightstates"]?["4"]?["on"] == false && scene["lightstates"]?["4"]?["ct"] != nil)
        let listed = try await bridge.answer("GET", "/scenes")
        #expect(listed[id]?["name"] == "Evening" && listed[id]?["lightstates"] == nil && listed[id]?["locked"] == false)
        #expect(try await bridge.answer("GET", "")["scenes"]?[id]?["name"] == "Evening")

        _ = try await bridge.answer("PUT", "/groups/0/action", #"{"on": false}"#)
        _ = try await bridge.answer("PUT", "/lights/4/state", #"{"on": true}"#)
        // The bridge takes one group command a second.
        try await bridge.home.advance(byMilliseconds: 1_000)
        let recall = try await bridge.answer("PUT", "/groups/0/action", #"{"scene": "\#(id)"}"#)
        #expect(recall == [["success": ["/groups/0/action/scene": .string(id)]]])
        try await bridge.home.advance(byMilliseconds: 1_000)
        let lamp = try await bridge.home.light("den.lamp").state
        #expect(
            lamp.isOn && lamp.brightness == HueValues.brightness(bri: 200) && lamp.color == CIEColor(x: 0.3, y: 0.4))
        #expect(try await !bridge.home.light("hall.spot").state.isOn)
        // One group command: each light's record of it names no room, and both came at once.
        let records = await [
            bridge.home.commandRecords(light: "den.lamp"), bridge.home.commandRecords(light: "hall.spot"),
        ]
        #expect(records.map { $0.last?.change.isOn } == [true, false])
    }

    @Test func givenStatesAreCheckedForEachLightAndAGroupRecallsItsOwnLights() async throws {
        let bridge = try await HueTestBridge()
        _ = try await bridge.answer("PUT", "/lights/4/state", #"{"on": false, "transitiontime": 0}"#)
        let id = try await bridge.createScene(
            #"{"name": "Bright", "lights": ["1", "4"], "lightstates": {"1": {"on": true, "bri": 254, "xy": [0.2, 0.2], "effect": "colorloop"}, "4": {"on": true, "ct": 300, "transitiontime": 0}}}"#
        )
        _ = try await bridge.answer("PUT", "/groups/1/action", #"{"scene": "\#(id)", "transitiontime": 0}"#)
        #expect(try await bridge.home.light("den.lamp").state.color == CIEColor(x: 0.2, y: 0.2))
        #expect(try await bridge.answer("GET", "/lights/1")["state"]?["effect"] == "colorloop")
        #expect(try await !bridge.home.light("hall.spot").state.isOn, "the hall is not group 1")
        try await bridge.home.advance(byMilliseconds: 1_000)
        _ = try await bridge.answer("PUT", "/groups/2/action", #"{"scene": "\#(id)"}"#)
        let spot = try await bridge.home.light("hall.spot").state
        #expect(spot.isOn && spot.colorTemperature == 300)
        // A state the light cannot take, a light the scene lacks, a light that is not there.
        #expect(
            try await bridge.errorType(
                "POST", "/scenes", #"{"name": "x", "lights": ["3"], "lightstates": {"3": {"bri": 9}}}"#) == 6)
        #expect(
            try await bridge.errorType(
                "POST", "/scenes", #"{"name": "x", "lights": ["3"], "lightstates": {"1": {"on": true}}}"#) == 7)
        #expect(try await bridge.errorType("POST", "/scenes", #"{"name": "x", "lights": ["9"]}"#) == 7)
        #expect(try await bridge.errorType("POST", "/scenes", #"{"name": "x", "lights": []}"#) == 7)
        #expect(try await bridge.errorType("POST", "/scenes", #"{"lights": ["1"]}"#) == 7)
        #expect(try await bridge.errorType("POST", "/scenes", #"{"name": "x", "lights": ["1"], "colour": 1}"#) == 6)
        #expect(try await bridge.errorType("PUT", "/groups/0/action", #"{"scene": "nope"}"#) == 7)
        #expect(try await bridge.errorType("PUT", "/groups/0/action", #"{"scene": "\#(id)", "bri": 3}"#) == 6)
        #expect(try await bridge.errorType("GET", "/scenes/nope") == 3)
    }

    @Test func aGroupSceneHoldsItsGroupsLights() async throws {
        let bridge = try await HueTestBridge()
        let id = try await bridge.createScene(#"{"name": "Den", "type": "GroupScene", "group": "1"}"#)
        let scene = try await bridge.answer("GET", "/scenes/\(id)")
        #expect(scene["type"] == "GroupScene" && scene["group"] == "1" && scene["lights"] == ["1", "3"])
        #expect(try await bridge.errorType("POST", "/scenes", #"{"name": "x", "group": "9"}"#) == 7)
        #expect(try await bridge.errorType("PUT", "/scenes/\(id)", #"{"lights": ["4"]}"#) == 6)
    }

    @Test func aScenesNameLightsAndStatesChangeAndItCanBeDeleted() async throws {
        let bridge = try await HueTestBridge()
        let id = try await bridge.createScene(#"{"name": "A", "lights": ["1"]}"#)
        _ = try await bridge.answer("PUT", "/lights/1/state", #"{"on": true, "bri": 100}"#)
        let changed = try await bridge.answer(
            "PUT", "/scenes/\(id)", #"{"name": "B", "lights": ["1", "3"], "storelightstate": true}"#)
        #expect(
            changed == [
                ["success": ["/scenes/\(id)/name": "B"]], ["success": ["/scenes/\(id)/lights": ["1", "3"]]],
                ["success": ["/scenes/\(id)/storelightstate": true]],
            ])
        var scene = try await bridge.answer("GET", "/scenes/\(id)")
        #expect(
            scene["name"] == "B" && scene["lightstates"]?["1"]?["bri"] == 100
                && scene["lightstates"]?["3"] == ["on": false])
        let state = try await bridge.answer("PUT", "/scenes/\(id)/lightstates/1", #"{"ct": 400, "on": true}"#)
        #expect(
            state == [
                ["success": ["/scenes/\(id)/lightstates/1/ct": 400]],
                ["success": ["/scenes/\(id)/lightstates/1/on": true]],
            ])
        scene = try await bridge.answer("GET", "/scenes/\(id)")
        #expect(
            scene["lightstates"]?["1"] == ["on": true, "bri": 100, "ct": 400], "a colour given replaces the one stored")
        #expect(try await bridge.errorType("PUT", "/scenes/\(id)/lightstates/4", #"{"on": true}"#) == 3)
        #expect(try await bridge.errorType("PUT", "/scenes/\(id)/lightstates/3", #"{"bri": 1}"#) == 6)
        #expect(try await bridge.answer("DELETE", "/scenes/\(id)") == [["success": .string("/scenes/\(id) deleted")]])
        #expect(try await bridge.errorType("GET", "/scenes/\(id)") == 3)
        #expect(try await bridge.errorType("DELETE", "/scenes/\(id)") == 3)
    }

    @Test func anAcknowledgedSceneOutlivesACrash() async throws {
        let bridge = try await HueTestBridge()
        _ = try await bridge.answer("PUT", "/lights/1/state", #"{"on": true, "bri": 254}"#)
        let id = try await bridge.createScene(#"{"name": "Kept", "lights": ["1"]}"#)
        let again = try await bridge.restarted()
        #expect(try await again.answer("GET", "/scenes/\(id)")["lightstates"]?["1"]?["bri"] == 254)
        _ = try await again.answer("PUT", "/lights/1/state", #"{"on": false}"#)
        _ = try await again.answer("PUT", "/groups/0/action", #"{"scene": "\#(id)"}"#)
        #expect(try await again.home.light("den.lamp").state.isOn)
        // And from a snapshot, as a clean stop writes one.
        let snapshot = try Fixture(json: Array(await bridge.home.snapshot().jsonValue.serialized().utf8))
        let fromSnapshot = try await HueTestBridge(fixture: snapshot)
        #expect(try await fromSnapshot.answer("GET", "/scenes/\(id)")["name"] == "Kept")
    }

    @Test func theBridgeKeepsTwoHundredScenes() async throws {
        let bridge = try await HueTestBridge()
        for index in 0..<HueBridgeState.sceneLimit {
            _ = try await bridge.createScene(
                #"{"name": "S\#(index)", "lights": ["3"], "lightstates": {"3": {"on": true}}}"#)
        }
        let full = try await bridge.answer("POST", "/scenes", #"{"name": "one more", "lights": ["3"]}"#)
        #expect(full.arrayValue?.first?["error"]?["type"] == 402)
        #expect(await bridge.bridge.state.scenes.count == HueBridgeState.sceneLimit)
    }
}
