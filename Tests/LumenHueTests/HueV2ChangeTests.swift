import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import Testing

@testable import LumenHue

/// What API v2 changes do as a bridge does them: recalls with a brightness, scenes that report themselves active,
/// bodies checked whole before anything changes, and scenes made only from what a bridge requires.
@Suite struct HueV2ChangeTests {
    let v2 = HueV2Tests()

    func id(_ resource: JSONValue) throws -> String { try #require(resource["id"]?.stringValue) }

    /// The Den room's ID and a scene of it stored over v2: the lamp on at 80 % and the plug on.
    func denScene(_ bridge: HueTestBridge) async throws -> (room: String, scene: String) {
        let den = try #require(try await v2.resources(bridge, "room").first { $0["metadata"]?["name"] == "Den" })
        let lamp = try id(try await v2.light(bridge, named: "Lamp"))
        let plug = try id(try await v2.light(bridge, named: "Plug"))
        let body = """
            {"metadata": {"name": "Reading"}, "group": {"rid": "\(try id(den))", "rtype": "room"}, "actions": [\
            {"target": {"rid": "\(lamp)", "rtype": "light"}, "action": {"on": {"on": true}, "dimming": {"brightness": 80}}},\
            {"target": {"rid": "\(plug)", "rtype": "light"}, "action": {"on": {"on": true}}}]}
            """
        let made = try await v2.v2(bridge, "POST", "/clip/v2/resource/scene", body)
        #expect(made.status == 200, "\(made.json)")
        return (try id(den), try #require(made.json["data"]?.arrayValue?.first?["rid"]?.stringValue))
    }

    /// A scene stored as the home is reset to its fixture (which holds none) is answered with the ID it was stored
    /// under, as the bridge gave it, never an internal error: the reset may forget it a moment later, as a bridge
    /// reset after an app stored a scene would.
    @Test func aSceneStoredAsTheHomeResetsIsAnsweredWithItsID() async throws {
        let bridge = try await HueTestBridge()
        let fixture = try Fixture(json: Array(HueBridgeTests.home.utf8))
        let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
            group.addTask {
                for _ in 0..<40 { try await bridge.home.restore(to: fixture) }
                return []
            }
            for _ in 0..<2 {
                group.addTask {
                    var statuses: [Int] = []
                    for _ in 0..<20 {
                        // Each time, the room and lights as the latest reset numbered them.
                        let made = try? await self.denScene(bridge)
                        statuses.append(made == nil ? 0 : 200)
                    }
                    return statuses
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(statuses.count == 40 && statuses.allSatisfy { $0 == 200 })
    }

    func scene(_ bridge: HueTestBridge, _ id: String) async throws -> JSONValue {
        try #require(try await v2.v2(bridge, "GET", "/clip/v2/resource/scene/\(id)").json["data"]?.arrayValue?.first)
    }

    @Test func aRecallWithDimmingSetsTheScenesLightsToThatBrightness() async throws {
        let bridge = try await HueTestBridge()
        let (_, scene) = try await denScene(bridge)
        let recalled = try await v2.v2(
            bridge, "PUT", "/clip/v2/resource/scene/\(scene)",
            #"{"recall": {"action": "active", "dimming": {"brightness": 50}, "duration": 400}}"#)
        #expect(recalled.status == 200, "\(recalled.json)")
        #expect(await bridge.home.commandRecords(light: LightID("den.lamp")).last?.transitionMs == 400)
        let lamp = try await v2.light(bridge, named: "Lamp")
        #expect(lamp["on"]?["on"] == true)
        #expect(lamp["dimming"]?["brightness"]?.doubleValue == 50)
        #expect(try await v2.light(bridge, named: "Plug")["on"]?["on"] == true)
        // Without it, the scene's own brightness again (a second later: the bridge takes one group command a second).
        try await bridge.home.advance(byMilliseconds: 1_000)
        let again = try await v2.v2(
            bridge, "PUT", "/clip/v2/resource/scene/\(scene)", #"{"recall": {"action": "active"}}"#)
        #expect(again.status == 200, "\(again.json)")
        #expect(abs((try await v2.light(bridge, named: "Lamp")["dimming"]?["brightness"]?.doubleValue ?? 0) - 80) < 0.5)
        for bad in [#"{"dimming": {"brightness": 120}}"#, #"{"dimming": 5}"#, #"{"brightness": 5}"#] {
            let refused = try await v2.v2(
                bridge, "PUT", "/clip/v2/resource/scene/\(scene)",
                #"{"recall": {"action": "active", "# + bad.dropFirst())
            #expect(refused.status == 400, "\(bad)")
        }
    }

    @Test func aSceneIsStaticAfterItsRecallAndInactiveOnceALightOfItChanges() async throws {
        let bridge = try await HueTestBridge()
        let (_, scene) = try await denScene(bridge)
        #expect(try await self.scene(bridge, scene)["status"]?["active"] == "inactive")
        _ = try await v2.v2(bridge, "PUT", "/clip/v2/resource/scene/\(scene)", #"{"recall": {"action": "active"}}"#)
        #expect(try await self.scene(bridge, scene)["status"]?["active"] == "static")
        // A light outside the scene changes nothing about it.
        _ = try await bridge.answer("PUT", "/lights/4/state", #"{"on": true}"#)
        #expect(try await self.scene(bridge, scene)["status"]?["active"] == "static")
        await bridge.bridge.watchHome()
        let stream = try HueEventStreamTests().open(bridge)
        _ = try await HueEventStreamTests().read(stream, of: bridge.bridge.events) { $0.hasPrefix(": hi") }
        // At once, not faded: the stream is told only once the light shows the change, and no one moves the clock.
        _ = try await bridge.answer("PUT", "/lights/1/state", #"{"bri": 10, "transitiontime": 0}"#)
        #expect(try await self.scene(bridge, scene)["status"]?["active"] == "inactive")
        let updates = try await Self.updates(on: stream, of: bridge, until: "\"inactive\"")
        #expect(updates.contains { $0["id"]?.stringValue == scene && $0["status"]?["active"] == "inactive" })
        stream.finish()
        // A v1 recall makes it active too; it stays inactive once a light changed, even back.
        let v1ID = try #require(try await self.scene(bridge, scene)["id_v1"]?.stringValue?.split(separator: "/").last)
        // A second after the first recall: the bridge takes one group command a second.
        try await bridge.home.advance(byMilliseconds: 1_000)
        _ = try await bridge.answer("PUT", "/groups/1/action", #"{"scene": "\#(v1ID)"}"#)
        #expect(try await self.scene(bridge, scene)["status"]?["active"] == "static")
    }

    /// The API reference keeps `recall.status` (`active`, `dynamic_palette`) as the older form of `recall.action`,
    /// and aiohue's `RecallFeature` still offers it: a bridge recalls the scene for either.
    @Test func aSceneRecalledInTheOlderStatusFormIsRecalled() async throws {
        let bridge = try await HueTestBridge()
        let (_, scene) = try await denScene(bridge)
        let path = "/clip/v2/resource/scene/\(scene)"
        let recalled = try await v2.v2(bridge, "PUT", path, #"{"recall": {"status": "active", "duration": 400}}"#)
        #expect(recalled.status == 200, "\(recalled.json)")
        #expect(try await v2.light(bridge, named: "Lamp")["on"]?["on"] == true)
        #expect(try await self.scene(bridge, scene)["status"]?["active"] == "static")
        try await bridge.home.advance(byMilliseconds: 1_000)
        let dynamic = try await v2.v2(bridge, "PUT", path, #"{"recall": {"status": "dynamic_palette"}}"#)
        #expect(dynamic.status == 200, "\(dynamic.json)")
        #expect(try await self.scene(bridge, scene)["status"]?["active"] == "dynamic_palette")
        for bad in [#"{"recall": {"status": "static"}}"#, #"{"recall": {}}"#, #"{"recall": {"status": 1}}"#] {
            try await bridge.home.advance(byMilliseconds: 1_000)
            #expect(try await v2.v2(bridge, "PUT", path, bad).status == 400, "\(bad)")
        }
    }

    /// A colour light lists `dynamic_palette` among its `dynamics.status_values`, and shows it as its status, at
    /// its scene's speed, while a scene recalled with `dynamic_palette` holds it, as a bridge does (aiohue's and
    /// Home Assistant's v2 dumps: each light of an active dynamic scene `dynamic_palette`, `speed_valid`, at the
    /// scene's speed; openHAB's: every colour light lists it, a white ambiance light `none` alone). Home Assistant
    /// reads it as the light's and its group's `dynamics`. An on/off light of the scene lists `none` alone.
    @Test func aColourLightOfADynamicSceneShowsItsPaletteDynamics() async throws {
        let bridge = try await HueTestBridge()
        let (_, scene) = try await denScene(bridge)
        var lamp = try await v2.light(bridge, named: "Lamp")
        #expect(lamp["dynamics"]?["status_values"] == ["none", "dynamic_palette"], "\(lamp)")
        #expect(lamp["dynamics"]?["status"] == "none", "\(lamp)")
        #expect(try await v2.light(bridge, named: "Spot")["dynamics"]?["status_values"] == ["none"])
        let path = "/clip/v2/resource/scene/\(scene)"
        let speed = try await v2.v2(bridge, "PUT", path, #"{"speed": 0.25}"#)
        #expect(speed.status == 200, "\(speed.json)")
        let recalled = try await v2.v2(bridge, "PUT", path, #"{"recall": {"action": "dynamic_palette"}}"#)
        #expect(recalled.status == 200, "\(recalled.json)")
        lamp = try await v2.light(bridge, named: "Lamp")
        #expect(lamp["dynamics"]?["status"] == "dynamic_palette", "\(lamp)")
        #expect(lamp["dynamics"]?["speed"]?.doubleValue == 0.25 && lamp["dynamics"]?["speed_valid"] == true)
        // The light alone, by its ID, shows the same.
        let one = try await v2.v2(bridge, "GET", "/clip/v2/resource/light/\(try id(lamp))")
        #expect(one.json["data"]?.arrayValue == [lamp])
        let plug = try await v2.light(bridge, named: "Plug")
        #expect(plug["dynamics"]?["status"] == "none" && plug["dynamics"]?["status_values"] == ["none"], "\(plug)")
        // Recalled static, and once a light of it changes, it plays no palette.
        try await bridge.home.advance(byMilliseconds: 1_000)
        _ = try await v2.v2(bridge, "PUT", path, #"{"recall": {"action": "static"}}"#)
        #expect(try await v2.light(bridge, named: "Lamp")["dynamics"]?["status"] == "none")
        try await bridge.home.advance(byMilliseconds: 1_000)
        _ = try await v2.v2(bridge, "PUT", path, #"{"recall": {"action": "dynamic_palette"}}"#)
        #expect(try await v2.light(bridge, named: "Lamp")["dynamics"]?["status"] == "dynamic_palette")
        _ = try await bridge.answer("PUT", "/lights/1/state", #"{"bri": 10, "transitiontime": 0}"#)
        lamp = try await v2.light(bridge, named: "Lamp")
        #expect(lamp["dynamics"]?["status"] == "none" && lamp["dynamics"]?["speed_valid"] == false, "\(lamp)")
    }

    /// A scene recalled with `dynamic_palette` reports it as its `status.active`, as aiohue's scene tracker reads
    /// the mode a group's scene plays in, and every recall its time as `status.last_recall`, kept once the scene is
    /// inactive again.
    @Test func aSceneRecalledDynamicallyReportsItAndEveryRecallItsTime() async throws {
        let bridge = try await HueTestBridge()
        let (_, scene) = try await denScene(bridge)
        #expect(try await self.scene(bridge, scene)["status"]?["last_recall"] == nil)
        let path = "/clip/v2/resource/scene/\(scene)"
        let recalled = try await v2.v2(bridge, "PUT", path, #"{"recall": {"action": "dynamic_palette"}}"#)
        #expect(recalled.status == 200, "\(recalled.json)")
        var status = try await self.scene(bridge, scene)["status"]
        #expect(status?["active"] == "dynamic_palette")
        let first = String(await bridge.home.wallTime.utcText.prefix(19)) + "Z"
        #expect(first.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil, "\(first)")
        #expect(status?["last_recall"]?.stringValue == first)
        try await bridge.home.advance(byMilliseconds: 2_000)
        _ = try await v2.v2(bridge, "PUT", path, #"{"recall": {"action": "static"}}"#)
        status = try await self.scene(bridge, scene)["status"]
        #expect(status?["active"] == "static")
        let second = String(await bridge.home.wallTime.utcText.prefix(19)) + "Z"
        #expect(second != first)
        #expect(status?["last_recall"]?.stringValue == second)
        _ = try await bridge.answer("PUT", "/lights/1/state", #"{"bri": 10, "transitiontime": 0}"#)
        status = try await self.scene(bridge, scene)["status"]
        #expect(status?["active"] == "inactive")
        #expect(status?["last_recall"]?.stringValue == second)
    }

    /// A scene deleted takes the time of its last recall with it, without a read of the scenes in between, while
    /// another scene stays.
    @Test func aDeletedSceneTakesItsLastRecallWithIt() async throws {
        let bridge = try await HueTestBridge()
        _ = try await bridge.createScene(#"{"name": "Other", "lights": ["1"], "recycle": false}"#)
        let (_, scene) = try await denScene(bridge)
        let path = "/clip/v2/resource/scene/\(scene)"
        #expect(try await v2.v2(bridge, "PUT", path, #"{"recall": {"action": "active"}}"#).status == 200)
        #expect(await bridge.bridge.visit { _, memory in memory.lastRecalls.count } == 1)
        #expect(try await v2.v2(bridge, "DELETE", path).status == 200)
        #expect(await bridge.bridge.visit { _, memory in memory.lastRecalls.isEmpty })
    }

    /// A recall that moves no light (they are as the scene has them already) still changes the scene's `status`,
    /// and the event streams are told, as aiohue's scene tracker learns a scene's mode from them alone.
    @Test func aRecallThatMovesNoLightIsStillToldOnTheStream() async throws {
        let bridge = try await HueTestBridge()
        let (_, scene) = try await denScene(bridge)
        let path = "/clip/v2/resource/scene/\(scene)"
        #expect(try await v2.v2(bridge, "PUT", path, #"{"recall": {"action": "active", "duration": 0}}"#).status == 200)
        await bridge.bridge.watchHome()
        let stream = try HueEventStreamTests().open(bridge)
        _ = try await HueEventStreamTests().read(stream, of: bridge.bridge.events) { $0.hasPrefix(": hi") }
        try await bridge.home.advance(byMilliseconds: 1_000)
        let again = try await v2.v2(bridge, "PUT", path, #"{"recall": {"action": "dynamic_palette"}}"#)
        #expect(again.status == 200, "\(again.json)")
        let updates = try await Self.updates(on: stream, of: bridge, until: "\"dynamic_palette\"")
        #expect(updates.contains { $0["id"]?.stringValue == scene && $0["status"]?["active"] == "dynamic_palette" })
        stream.finish()
    }

    /// The resources' updates `stream` carried until its text held `marker`.
    static func updates(
        on stream: any HTTPStreamBody, of bridge: HueTestBridge, until marker: String
    ) async throws -> [JSONValue] {
        let text = try await HueEventStreamTests().read(stream, of: bridge.bridge.events) { $0.contains(marker) }
        return try HueEventStreamTests().batches(text).flatMap { $0.arrayValue ?? [] }
            .flatMap { $0["data"]?.arrayValue ?? [] }
    }

    @Test func aScenesSpeedAndNameAreKeptAndABadBodyChangesNothing() async throws {
        let bridge = try await HueTestBridge()
        let (_, scene) = try await denScene(bridge)
        #expect(try await self.scene(bridge, scene)["speed"]?.doubleValue == 0.5)
        let put = try await v2.v2(bridge, "PUT", "/clip/v2/resource/scene/\(scene)", #"{"speed": 0.25}"#)
        #expect(put.status == 200)
        let refused = try await v2.v2(
            bridge, "PUT", "/clip/v2/resource/scene/\(scene)",
            #"{"metadata": {"name": "Other"}, "recall": {"action": "sideways"}}"#)
        #expect(refused.status == 400)
        let shown = try await self.scene(bridge, scene)
        #expect(shown["metadata"]?["name"] == "Reading")
        #expect(shown["status"]?["active"] == "inactive")
        let restarted = try await bridge.restarted()
        #expect(try await self.scene(restarted, scene)["speed"]?.doubleValue == 0.25)
    }

    @Test func aRecallRefusedLeavesTheScenesNameAndSpeedAsTheyWere() async throws {
        let bridge = try await HueTestBridge()
        let (_, scene) = try await denScene(bridge)
        let path = "/clip/v2/resource/scene/\(scene)"
        #expect(try await v2.v2(bridge, "PUT", path, #"{"recall": {"action": "active"}}"#).status == 200)
        let recalled = await bridge.home.nowMilliseconds
        // A second group command within the second is refused: the rename and speed beside it are not made.
        let refused = try await v2.v2(
            bridge, "PUT", path, #"{"metadata": {"name": "Other"}, "speed": 0.25, "recall": {"action": "active"}}"#)
        #expect(refused.status == 429, "\(refused.json)")
        // Its lights are instant: waiting for the answers moved the clock nowhere, however slow the machine.
        #expect(await bridge.home.nowMilliseconds == recalled)
        let shown = try await self.scene(bridge, scene)
        #expect(shown["metadata"]?["name"] == "Reading")
        #expect(shown["speed"]?.doubleValue == 0.5)
    }

    @Test func aSceneMadeWithASpeedIsStoredWithItInOneChange() async throws {
        let bridge = try await HueTestBridge()
        let den = try #require(try await v2.resources(bridge, "room").first { $0["metadata"]?["name"] == "Den" })
        let lamp = try id(try await v2.light(bridge, named: "Lamp"))
        let saved = bridge.records.withLock { $0.count }
        let made = try await v2.v2(
            bridge, "POST", "/clip/v2/resource/scene",
            """
            {"metadata": {"name": "Slow"}, "group": {"rid": "\(try id(den))", "rtype": "room"}, "speed": 0.25, \
            "actions": [{"target": {"rid": "\(lamp)", "rtype": "light"}, "action": {"on": {"on": true}}}]}
            """)
        #expect(made.status == 200, "\(made.json)")
        #expect(bridge.records.withLock { $0.count } == saved + 1, "stored once, with its speed")
        let scene = try #require(made.json["data"]?.arrayValue?.first?["rid"]?.stringValue)
        #expect(try await self.scene(bridge, scene)["speed"]?.doubleValue == 0.25)
    }

    /// A duration takes the API's whole range, 6,000,000 ms (100 minutes: a long sunrise an automation asks
    /// for), and is refused over it.
    @Test func aDurationTakesTheAPIsWholeRangeAndIsRefusedOverIt() async throws {
        let bridge = try await HueTestBridge()
        let (_, scene) = try await denScene(bridge)
        let path = "/clip/v2/resource/scene/\(scene)"
        let over = try await v2.v2(bridge, "PUT", path, #"{"recall": {"action": "active", "duration": 6000001}}"#)
        #expect(over.status == 400, "\(over.json)")
        let lamp = try id(try await v2.light(bridge, named: "Lamp"))
        let light = try await v2.v2(
            bridge, "PUT", "/clip/v2/resource/light/\(lamp)", #"{"dynamics": {"duration": 6000001}}"#)
        #expect(light.status == 400)
        let most = try await v2.v2(bridge, "PUT", path, #"{"recall": {"action": "active", "duration": 6000000}}"#)
        #expect(most.status == 200, "\(most.json)")
        #expect(await bridge.home.commandRecords(light: LightID("den.lamp")).last?.transitionMs == 6_000_000)
        let lit = try await v2.v2(
            bridge, "PUT", "/clip/v2/resource/light/\(lamp)",
            #"{"on": {"on": true}, "dynamics": {"duration": 6000000}}"#)
        #expect(lit.status == 200, "\(lit.json)")
    }

    @Test func aSceneIsMadeOnlyWithANameAGroupAndActions() async throws {
        let bridge = try await HueTestBridge()
        let den = try #require(try await v2.resources(bridge, "room").first { $0["metadata"]?["name"] == "Den" })
        let hall = try #require(try await v2.resources(bridge, "room").first { $0["metadata"]?["name"] == "Hall" })
        let lamp = try id(try await v2.light(bridge, named: "Lamp"))
        let group = #""group": {"rid": "\#(try id(den))", "rtype": "room"}"#
        let actions = #""actions": [{"target": {"rid": "\#(lamp)", "rtype": "light"}, "action": {"on": {"on": true}}}]"#
        let bodies = [
            "{\(group), \(actions)}",
            #"{"metadata": {"name": ""}, \#(group), \#(actions)}"#,
            #"{"metadata": {"name": "A"}, \#(actions)}"#,
            #"{"metadata": {"name": "A"}, "group": {"rid": "\#(try id(den))", "rtype": "zone"}, \#(actions)}"#,
            #"{"metadata": {"name": "A"}, \#(group)}"#,
            #"{"metadata": {"name": "A"}, \#(group), "actions": []}"#,
            #"{"metadata": {"name": "A"}, "group": {"rid": "\#(try id(hall))", "rtype": "room"}, \#(actions)}"#,
            #"{"metadata": {"name": "A"}, \#(group), \#(actions), "colour": 1}"#,
            #"{"metadata": {"name": "A"}, \#(group), "actions": [{"target": {"rid": "\#(lamp)", "rtype": "light"}, "action": {"on": 1}}]}"#,
        ]
        for body in bodies {
            let refused = try await v2.v2(bridge, "POST", "/clip/v2/resource/scene", body)
            #expect(refused.status == 400, "\(body)")
            let description = refused.json["errors"]?.arrayValue?.first?["description"]?.stringValue ?? ""
            #expect(!description.isEmpty && refused.json["data"] == [], "\(refused.json)")
        }
        #expect(try await v2.resources(bridge, "scene").isEmpty)
        #expect(await bridge.bridge.state.scenes.isEmpty)
        let made = try await v2.v2(
            bridge, "POST", "/clip/v2/resource/scene", #"{"metadata": {"name": "A"}, \#(group), \#(actions)}"#)
        #expect(made.status == 200)
    }

    @Test func aLightPutWithABadFeatureChangesNothing() async throws {
        let bridge = try await HueTestBridge()
        let plug = try id(try await v2.light(bridge, named: "Plug"))
        let lamp = try id(try await v2.light(bridge, named: "Lamp"))
        let bodies: [(String, String)] = [
            (plug, #"{"metadata": {"name": "Renamed"}, "on": {"on": true}, "dimming": {"brightness": 50}}"#),
            (lamp, #"{"metadata": {"name": "Renamed"}, "on": {"on": true}, "color": {"xy": {"x": 2, "y": 0}}}"#),
            (lamp, #"{"metadata": {"name": "Renamed"}, "on": {"on": true}, "gradient": {}}"#),
            (lamp, #"{"metadata": {"name": "Renamed"}, "on": {"on": true}, "dynamics": {"speed": 3}}"#),
            (lamp, #"{"metadata": {"name": ""}, "on": {"on": true}}"#),
        ]
        for (light, body) in bodies {
            let before = try await v2.v2(bridge, "GET", "/clip/v2/resource/light/\(light)").json
            let refused = try await v2.v2(bridge, "PUT", "/clip/v2/resource/light/\(light)", body)
            #expect(refused.status == 400, "\(body)")
            #expect(try await v2.v2(bridge, "GET", "/clip/v2/resource/light/\(light)").json == before, "\(body)")
        }
        let den = try #require(try await v2.resources(bridge, "room").first { $0["metadata"]?["name"] == "Den" })
        let grouped = try #require(den["services"]?.arrayValue?.first?["rid"]?.stringValue)
        let refused = try await v2.v2(
            bridge, "PUT", "/clip/v2/resource/grouped_light/\(grouped)",
            #"{"on": {"on": true}, "dimming": {"brightness": 500}}"#)
        #expect(refused.status == 400)
        #expect(try await v2.light(bridge, named: "Plug")["on"]?["on"] == false)
    }

    /// The warnings a change was answered with, as aiohue and Home Assistant read them.
    func warnings(_ answer: (status: Int, json: JSONValue)) -> [String] {
        answer.json["errors"]?.arrayValue?.compactMap { $0["description"]?.stringValue } ?? []
    }

    /// A command to a light that is off and stays off is taken, as a bridge takes it, and answered 207 with a
    /// warning for each feature that may not have effect ("soft off"; Home Assistant reads "may not have
    /// effect" as a warning only); a light of the Hue family, which takes no level or colour while off, stays
    /// as it was. One that turns the light on is answered 200.
    @Test func aCommandToALightThatIsOffIsAnsweredWithAWarningNotRefused() async throws {
        let bridge = try await HueTestBridge()
        let lamp = try id(try await v2.light(bridge, named: "Lamp"))
        let path = "/clip/v2/resource/light/\(lamp)"
        let before = try await v2.light(bridge, named: "Lamp")
        let dimmed = try await v2.v2(
            bridge, "PUT", path, #"{"dimming": {"brightness": 50}, "color_temperature": {"mirek": 300}}"#)
        #expect(dimmed.status == 207, "\(dimmed.json)")
        #expect(dimmed.json["data"] == [["rid": .string(lamp), "rtype": "light"]])
        #expect(
            warnings(dimmed) == [
                "device (light) is \"soft off\", command (.dimming.brightness) may not have effect",
                "device (light) is \"soft off\", command (.color_temperature.mirek) may not have effect",
            ])
        #expect(try await v2.light(bridge, named: "Lamp") == before)
        let off = try await v2.v2(bridge, "PUT", path, #"{"on": {"on": false}}"#)
        #expect(off.status == 207 && warnings(off).count == 1, "\(off.json)")
        let lit = try await v2.v2(bridge, "PUT", path, #"{"on": {"on": true}, "dimming": {"brightness": 50}}"#)
        #expect(lit.status == 200 && lit.json["errors"] == [], "\(lit.json)")
        #expect(try await v2.light(bridge, named: "Lamp")["dimming"]?["brightness"] == 50)
    }

    /// A command to a light the bridge knows it cannot reach is sent, and answered 207 with a warning that it may
    /// not have effect, as a bridge answers it.
    @Test func aCommandToAnUnreachableLightIsAnsweredWithAWarning() async throws {
        let bridge = try await HueTestBridge()
        try await bridge.home.setReachable(false, light: "den.lamp")
        // The bridge marks the light unreachable once it has failed to reach it for a while.
        try await bridge.home.advance(byMilliseconds: DeviceFamily.hue.unreachableReportDelayMs)
        let lamp = try id(try await v2.light(bridge, named: "Lamp"))
        let sent = try await v2.v2(bridge, "PUT", "/clip/v2/resource/light/\(lamp)", #"{"on": {"on": true}}"#)
        #expect(sent.status == 207, "\(sent.json)")
        #expect(
            warnings(sent) == ["device (light) has communication issues, command (.on) may not have effect"])
    }

    /// A grouped light warns as a light does: of a command that leaves every light of the group off, and of one
    /// sent while a light of the group cannot be reached.
    @Test func aGroupedLightWarnsOfACommandThatMayNotHaveEffect() async throws {
        let bridge = try await HueTestBridge()
        let den = try #require(try await v2.resources(bridge, "room").first { $0["metadata"]?["name"] == "Den" })
        let grouped = try #require(den["services"]?.arrayValue?.first?["rid"]?.stringValue)
        let path = "/clip/v2/resource/grouped_light/\(grouped)"
        _ = try await v2.v2(bridge, "PUT", path, #"{"on": {"on": false}}"#)
        // A second group command waits out the bridge's one a second.
        try await bridge.home.advance(byMilliseconds: 1_000)
        let again = try await v2.v2(bridge, "PUT", path, #"{"on": {"on": false}}"#)
        #expect(again.status == 207, "\(again.json)")
        #expect(
            warnings(again) == [
                "device (grouped_light) is \"soft off\", command (.on) may not have effect"
            ])
        try await bridge.home.setReachable(false, light: "den.plug")
        try await bridge.home.advance(byMilliseconds: DeviceFamily.hue.unreachableReportDelayMs)
        let lit = try await v2.v2(bridge, "PUT", path, #"{"on": {"on": true}}"#)
        #expect(
            warnings(lit) == [
                "device (grouped_light) has communication issues, command (.on) may not have effect"
            ])
    }

    @Test func aColourOutsideTheGamutIsTheNearestInside() async throws {
        let bridge = try await HueTestBridge()
        let lamp = try id(try await v2.light(bridge, named: "Lamp"))
        let path = "/clip/v2/resource/light/\(lamp)"
        _ = try await v2.v2(bridge, "PUT", path, #"{"on": {"on": true}, "color": {"xy": {"x": 0.8, "y": 0.2}}}"#)
        let shown = try await v2.light(bridge, named: "Lamp")
        let x = try #require(shown["color"]?["xy"]?["x"]?.doubleValue)
        let y = try #require(shown["color"]?["xy"]?["y"]?.doubleValue)
        let inside = CIEColor(x: x, y: y).clippedToGamut
        #expect(abs(inside.x - x) < 1e-9 && abs(inside.y - y) < 1e-9 && x < 0.7 && x > 0.6, "\(x), \(y)")
        _ = try await v2.v2(bridge, "PUT", path, #"{"color": {"xy": {"x": 0.3, "y": 0.3}}}"#)
        #expect(try await v2.light(bridge, named: "Lamp")["color"]?["xy"]?["x"]?.doubleValue == 0.3)
    }

    @Test func aColourOutsideTheGamutGivenOverV1IsTheNearestInsideThroughEitherAPI() async throws {
        let bridge = try await HueTestBridge()
        _ = try await bridge.answer("PUT", "/lights/1/state", #"{"on": true, "xy": [0.8, 0.2]}"#)
        let inside = CIEColor(x: 0.8, y: 0.2).clippedToGamut
        let v1 = try #require(try await bridge.answer("GET", "/lights/1")["state"]?["xy"]?.arrayValue)
        let v1x = try #require(v1.first?.doubleValue)
        #expect(abs(v1x - inside.x) < 1e-4, "\(v1)")
        let shown = try await v2.light(bridge, named: "Lamp")
        let x = try #require(shown["color"]?["xy"]?["x"]?.doubleValue)
        #expect(abs(x - inside.x) < 1e-4 && abs(x - v1x) < 1e-4, "\(x) over v2, \(v1x) over v1")
    }

    @Test func aLightTakesDynamicsSpeedAndDurationAndSignals() async throws {
        let bridge = try await HueTestBridge()
        let lamp = try id(try await v2.light(bridge, named: "Lamp"))
        let path = "/clip/v2/resource/light/\(lamp)"
        let put = try await v2.v2(
            bridge, "PUT", path, #"{"on": {"on": true}, "dynamics": {"duration": 2000, "speed": 0.75}}"#)
        #expect(put.status == 200, "\(put.json)")
        let shown = try await v2.light(bridge, named: "Lamp")
        #expect(shown["dynamics"]?["speed"]?.doubleValue == 0.75)
        #expect(shown["on"]?["on"] == true)
        let sent = await bridge.home.commandRecords(light: LightID("den.lamp")).last
        #expect(sent?.transitionMs == 2000)
        let signal = try await v2.v2(bridge, "PUT", path, #"{"signaling": {"signal": "on_off", "duration": 5000}}"#)
        #expect(signal.status == 200, "\(signal.json)")
        let colour = try await v2.v2(
            bridge, "PUT", path, #"{"signaling": {"signal": "on_off_color", "duration": 5000}}"#)
        #expect(colour.status == 200)
        let spot = try id(try await v2.light(bridge, named: "Spot"))
        let refused = try await v2.v2(
            bridge, "PUT", "/clip/v2/resource/light/\(spot)",
            #"{"signaling": {"signal": "on_off_color", "duration": 5000}}"#)
        #expect(refused.status == 400)
        #expect(try await v2.v2(bridge, "PUT", path, #"{"signaling": {"signal": "on_off"}}"#).status == 400)
    }
}
