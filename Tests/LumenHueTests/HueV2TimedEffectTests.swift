import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

@testable import LumenHue

/// API v2's timed effects (`timed_effects`: `sunrise`, `sunset`), as a bridge lists and plays them on the lights
/// that take a colour temperature: through the light's fades on the virtual clock, ended by the light's next
/// command, refused with a v2 error when badly asked.
@Suite struct HueV2TimedEffectTests {
    let v2 = HueV2Tests()

    /// A home with one light of each kind behind the bridge.
    static let kinds = """
        {"schema": 1, "id": "kinds", "name": "Kinds", "seed": 4, "defaults": {"latency": "instant"}, "rooms": [
          {"id": "den", "name": "Den", "lights": [
            {"id": "den.color", "name": "Colour", "kind": "color", "manufacturer": "Signify", "product": "Hue A19"},
            {"id": "den.ambiance", "name": "Ambiance", "kind": "ambiance"},
            {"id": "den.dimmable", "name": "Dimmable", "kind": "dimmable"},
            {"id": "den.plug", "name": "Plug", "kind": "onoff"}
          ]}
        ]}
        """

    /// The light named `name`'s resource path.
    func path(_ bridge: HueTestBridge, _ name: String) async throws -> String {
        "/clip/v2/resource/light/\(try #require(try await v2.light(bridge, named: name)["id"]?.stringValue))"
    }

    /// A PUT of `body` to the light named `name`, expected to be taken.
    func put(_ bridge: HueTestBridge, _ name: String, _ body: String) async throws {
        let answer = try await v2.v2(bridge, "PUT", try await path(bridge, name), body)
        #expect(answer.status == 200, "\(body): \(answer.json)")
    }

    /// The light named `name`'s `timed_effects`.
    func timed(_ bridge: HueTestBridge, _ name: String) async throws -> JSONValue? {
        try await v2.light(bridge, named: name)["timed_effects"]
    }

    /// What the light `id` really shows now, as a scope reads it, beside what the bridge reports.
    func truth(_ bridge: HueTestBridge, _ id: String) async throws -> LightState {
        try await bridge.home.light(LightID(id)).state
    }

    @Test func theLightsThatTakeAColourTemperatureListSunriseAndSunset() async throws {
        let bridge = try await HueTestBridge(fixture: Fixture(json: Array(Self.kinds.utf8)))
        let values: JSONValue = ["no_effect", "sunrise", "sunset"]
        for name in ["Colour", "Ambiance"] {
            #expect(
                try await timed(bridge, name)
                    == ["status": "no_effect", "status_values": values, "effect_values": values], "\(name)")
        }
        for name in ["Dimmable", "Plug"] { #expect(try await timed(bridge, name) == nil, "\(name)") }
        // Only a colour light loops through the colours.
        #expect(try await v2.light(bridge, named: "Ambiance")["effects"] == nil)
    }

    @Test func aSunriseComesOnDimAndWarmAndLandsAtFullBrightness() async throws {
        let bridge = try await HueTestBridge()
        let lamp = try await v2.light(bridge, named: "Lamp")
        let warmest = try #require(lamp["color_temperature"]?["mirek_schema"]?["mirek_maximum"]?.intValue)
        // As Home Assistant sends it.
        try await put(
            bridge, "Lamp", #"{"on": {"on": true}, "timed_effects": {"effect": "sunrise", "duration": 60000}}"#)
        #expect(
            try await timed(bridge, "Lamp")
                == [
                    "status": "sunrise", "status_values": ["no_effect", "sunrise", "sunset"],
                    "effect_values": ["no_effect", "sunrise", "sunset"], "duration": 60_000,
                ])
        var shown = try await truth(bridge, "den.lamp")
        #expect(shown.isOn && shown.brightness == 1 && shown.colorTemperature == warmest && shown.showsColorTemperature)
        let record = await bridge.home.commandRecords(light: LightID("den.lamp")).last
        #expect(record?.transitionMs == 60_000 && record?.change.timedEffect?.kind == .sunrise)
        try await bridge.home.advance(byMilliseconds: 30_000)
        shown = try await truth(bridge, "den.lamp")
        #expect(abs(shown.brightness - 50.5) < 0.2 && shown.colorTemperature == warmest, "\(shown)")
        #expect(try await timed(bridge, "Lamp")?["status"] == "sunrise")
        try await bridge.home.advance(byMilliseconds: 30_000)
        #expect(try await truth(bridge, "den.lamp").brightness == 100)
        let landed = try await v2.light(bridge, named: "Lamp")
        #expect(landed["timed_effects"]?["status"] == "no_effect" && landed["timed_effects"]?["duration"] == nil)
        #expect(landed["dimming"]?["brightness"] == 100 && landed["on"]?["on"] == true)
    }

    @Test func aSunriseOnALightAlreadyOnStartsFromTheDimmest() async throws {
        let bridge = try await HueTestBridge()
        try await put(bridge, "Spot", #"{"on": {"on": true}, "dimming": {"brightness": 70}}"#)
        try await put(bridge, "Spot", #"{"timed_effects": {"effect": "sunrise", "duration": 10000}}"#)
        #expect(try await truth(bridge, "hall.spot").brightness == 1)
        try await bridge.home.advance(byMilliseconds: 10_000)
        #expect(try await truth(bridge, "hall.spot").brightness == 100)
        #expect(try await timed(bridge, "Spot")?["status"] == "no_effect")
    }

    @Test func aSunsetDimsTheLightToOffKeepingItsLevelForTheNextPowerOn() async throws {
        let bridge = try await HueTestBridge()
        try await put(bridge, "Lamp", #"{"on": {"on": true}, "dimming": {"brightness": 80}}"#)
        // Once its fade on has landed.
        try await bridge.home.advance(byMilliseconds: 1_000)
        try await put(bridge, "Lamp", #"{"timed_effects": {"effect": "sunset", "duration": 20000}}"#)
        #expect(try await timed(bridge, "Lamp")?["status"] == "sunset")
        try await bridge.home.advance(byMilliseconds: 10_000)
        let halfway = try await truth(bridge, "den.lamp")
        #expect(halfway.isOn && abs(halfway.brightness - 40.5) < 0.2, "\(halfway)")
        try await bridge.home.advance(byMilliseconds: 10_000)
        #expect(try await truth(bridge, "den.lamp").isOn == false)
        let landed = try await v2.light(bridge, named: "Lamp")
        #expect(landed["on"]?["on"] == false && landed["timed_effects"]?["status"] == "no_effect")
        #expect(landed["dimming"]?["brightness"] == 80)
    }

    @Test func anyOtherCommandEndsItWhereItStands() async throws {
        let bridge = try await HueTestBridge()
        let commands = [
            #"{"on": {"on": true}}"#, #"{"color_temperature": {"mirek": 300}}"#,
            #"{"on": {"on": true}, "effects": {"effect": "no_effect"}}"#,
        ]
        for command in commands {
            try await put(bridge, "Lamp", #"{"timed_effects": {"effect": "sunrise", "duration": 60000}}"#)
            try await bridge.home.advance(byMilliseconds: 30_000)
            try await put(bridge, "Lamp", command)
            #expect(try await timed(bridge, "Lamp")?["status"] == "no_effect", "\(command)")
            let stopped = try await truth(bridge, "den.lamp").brightness
            #expect(abs(stopped - 50.5) < 0.2, "\(command): \(stopped)")
            try await bridge.home.advance(byMilliseconds: 30_000)
            #expect(try await truth(bridge, "den.lamp").brightness == stopped, "\(command)")
        }
        // Over v1 too, and a sunset.
        try await put(bridge, "Lamp", #"{"timed_effects": {"effect": "sunset", "duration": 60000}}"#)
        try await bridge.home.advance(byMilliseconds: 30_000)
        #expect(try await bridge.answer("PUT", "/lights/1/state", #"{"bri": 200}"#).arrayValue?.count == 1)
        #expect(try await timed(bridge, "Lamp")?["status"] == "no_effect")
        try await bridge.home.advance(byMilliseconds: 30_000)
        #expect(try await truth(bridge, "den.lamp").isOn)
    }

    @Test func noEffectStopsItAndTheLightStaysWhereItIs() async throws {
        let bridge = try await HueTestBridge()
        for (name, id, stop) in [
            ("Lamp", "den.lamp", #"{"timed_effects": {"effect": "no_effect"}}"#),
            // Home Assistant's `effect: off` on a light with no colour loop.
            ("Spot", "hall.spot", #"{"on": {"on": true}, "effects": {"effect": "no_effect"}}"#),
        ] {
            try await put(bridge, name, #"{"timed_effects": {"effect": "sunrise", "duration": 40000}}"#)
            try await bridge.home.advance(byMilliseconds: 10_000)
            let before = try await truth(bridge, id)
            try await put(bridge, name, stop)
            #expect(try await timed(bridge, name)?["status"] == "no_effect", "\(name)")
            try await bridge.home.advance(byMilliseconds: 30_000)
            let after = try await truth(bridge, id)
            #expect(after.isOn && abs(after.brightness - before.brightness) < 0.3, "\(name): \(before) \(after)")
            let record = await bridge.home.commandRecords(light: LightID(id)).last
            #expect(record?.change.properties.count == (name == "Lamp" ? 0 : 1), "\(name)")
        }
        // With none running, nothing is sent.
        let sent = await bridge.home.commandRecords(light: LightID("den.lamp")).count
        try await put(bridge, "Lamp", #"{"timed_effects": {"effect": "no_effect"}}"#)
        #expect(await bridge.home.commandRecords(light: LightID("den.lamp")).count == sent)
    }

    @Test func aBadTimedEffectIsRefusedAndChangesNothing() async throws {
        let bridge = try await HueTestBridge()
        let lamp = try await path(bridge, "Lamp")
        let refusals: [(String, String)] = [
            (
                #"{"effect": "sunshine", "duration": 1000}"#,
                #"invalid value, "sunshine", for property, timed_effects.effect"#
            ),
            (#"{"effect": "sunrise"}"#, "missing property, timed_effects.duration"),
            (
                #"{"effect": "sunrise", "duration": 21600001}"#,
                "invalid value, 21600001, for property, timed_effects.duration"
            ),
            (#"{"effect": "sunset", "duration": -1}"#, "invalid value, -1, for property, timed_effects.duration"),
            (
                #"{"effect": "sunset", "duration": "long"}"#,
                #"invalid value, "long", for property, timed_effects.duration"#
            ),
            (#"{"effect": "sunrise", "duration": 1000, "speed": 1}"#, "for property, timed_effects"),
            (#""sunrise""#, "for property, timed_effects"),
        ]
        let before = try await v2.v2(bridge, "GET", lamp).json
        for (given, description) in refusals {
            let refused = try await v2.v2(
                bridge, "PUT", lamp, #"{"on": {"on": true}, "timed_effects": \#(given)}"#)
            #expect(refused.status == 400, "\(given)")
            let said = refused.json["errors"]?.arrayValue?.first?["description"]?.stringValue ?? ""
            #expect(said.hasPrefix(description) || said.hasSuffix(description), "\(given): \(said)")
            #expect(try await v2.v2(bridge, "GET", lamp).json == before, "\(given)")
        }
        let plug = try await v2.v2(
            bridge, "PUT", try await path(bridge, "Plug"),
            #"{"timed_effects": {"effect": "sunrise", "duration": 1000}}"#)
        #expect(plug.status == 400)
        #expect(
            plug.json["errors"]?.arrayValue?.first?["description"]
                == "invalid property, timed_effects, for this resource")
        // A group and a scene's actions have none.
        let den = try #require(try await v2.resources(bridge, "room").first { $0["metadata"]?["name"] == "Den" })
        let grouped = try #require(den["services"]?.arrayValue?.first?["rid"]?.stringValue)
        let group = try await v2.v2(
            bridge, "PUT", "/clip/v2/resource/grouped_light/\(grouped)",
            #"{"timed_effects": {"effect": "sunrise", "duration": 1000}}"#)
        #expect(group.status == 400, "\(group.json)")
        let lampID = try #require(try await v2.light(bridge, named: "Lamp")["id"]?.stringValue)
        let scene = try await v2.v2(
            bridge, "POST", "/clip/v2/resource/scene",
            #"{"metadata": {"name": "Dawn"}, "group": {"rid": "\#(try #require(den["id"]?.stringValue))", "rtype": "room"}, "actions": [{"target": {"rid": "\#(lampID)", "rtype": "light"}, "action": {"timed_effects": {"effect": "sunrise", "duration": 1000}}}]}"#
        )
        #expect(scene.status == 400, "\(scene.json)")
        #expect(try await v2.v2(bridge, "GET", lamp).json == before)
        // Six hours, a bridge's longest, is taken: past a client's longest transition.
        try await put(bridge, "Lamp", #"{"timed_effects": {"effect": "sunrise", "duration": 21600000}}"#)
        try await bridge.home.advance(byMilliseconds: 10_800_000)
        #expect(abs(try await truth(bridge, "den.lamp").brightness - 50.5) < 0.2)
        #expect(try await timed(bridge, "Lamp")?["status"] == "sunrise")
    }

    @Test func aRestartFindsTheLightWhereTheEffectLandsAndTheEffectOver() async throws {
        let bridge = try await HueTestBridge()
        try await put(bridge, "Lamp", #"{"timed_effects": {"effect": "sunrise", "duration": 60000}}"#)
        try await bridge.home.advance(byMilliseconds: 20_000)
        let again = try await bridge.restarted()
        let lamp = try await v2.light(again, named: "Lamp")
        #expect(lamp["timed_effects"]?["status"] == "no_effect")
        #expect(lamp["on"]?["on"] == true && lamp["dimming"]?["brightness"] == 100)
        #expect(try await truth(again, "den.lamp").brightness == 100)
    }

    @Test func theSameCommandsReplayTheSameSunriseOnTheVirtualClock() async throws {
        /// The light's real brightness every five seconds of a sunrise stopped halfway.
        func play() async throws -> [Double] {
            let bridge = try await HueTestBridge()
            try await put(bridge, "Lamp", #"{"timed_effects": {"effect": "sunrise", "duration": 25000}}"#)
            var levels: [Double] = []
            for step in 0..<6 {
                if step == 3 { try await put(bridge, "Lamp", #"{"timed_effects": {"effect": "no_effect"}}"#) }
                levels.append(try await truth(bridge, "den.lamp").brightness)
                try await bridge.home.advance(byMilliseconds: 5_000)
            }
            return levels
        }
        let first = try await play()
        #expect(try await play() == first)
        // From the dimmest, 99 points in 25 s, stopped at 15 s where it stood.
        #expect(first == [1, 20.8, 40.6, 60.4, 60.4, 60.4], "\(first)")
    }

    /// Home Assistant's sunrise runs ten minutes: its last steps move the brightness less than the light shows,
    /// and the effect's end is still news.
    @Test(arguments: [1_000, 600_000])
    func theStreamTellsOfTheStatusAsItChanges(durationMs: Int) async throws {
        let events = HueEventStreamTests()
        let bridge = try await HueTestBridge()
        await bridge.bridge.watchHome()
        let stream = try events.open(bridge)
        let hub = bridge.bridge.events
        _ = try await events.read(stream, of: hub) { $0.hasPrefix(": hi\n\n") }
        try await put(
            bridge, "Lamp", #"{"timed_effects": {"effect": "sunrise", "duration": \#(durationMs)}}"#)
        /// The `timed_effects` of the Lamp's updates in `text`, in order.
        func statuses(_ text: String) throws -> [JSONValue] {
            let events: [JSONValue] = try events.batches(text).flatMap { $0.arrayValue ?? [] }
            let updated: [JSONValue] = events.filter { $0["type"] == "update" }.flatMap { $0["data"]?.arrayValue ?? [] }
            let lamp: [JSONValue] = updated.filter { $0["id_v1"] == "/lights/1" }
            return lamp.compactMap { $0["timed_effects"]?["status"] }
        }
        var text = try await events.read(stream, of: hub) { (try? statuses($0).contains("sunrise")) == true }
        // To a tenth of a second before its end, every look it asked for landed; then its last step.
        try await bridge.home.advance(byMilliseconds: Double(durationMs - 100))
        // A look lands (and its waiters go on) a moment before it is over: waited out by yielding, not by a count.
        while hub.isLookUnderWay, !Task.isCancelled { await Task.yield() }
        let looks = hub.looksLanded
        try await bridge.home.advance(byMilliseconds: 100)
        let asked = hub.isLookUnderWay || hub.looksLanded > looks
        #expect(asked, "the effect's end asks the streams to look")
        guard asked else { return stream.finish() }
        text += try await events.read(stream, of: hub) { (try? statuses($0).contains("no_effect")) == true }
        #expect(try statuses(text) == ["sunrise", "no_effect"])
        stream.finish()
    }

    /// A sunrise is one command to the light: one of the bridge's light commands, one record, taken whole by a
    /// light that takes one command a second, and stopping the colour loop it starts from.
    @Test func aSunriseIsOneCommandToTheLight() async throws {
        let bridge = try await HueTestBridge()
        try await put(bridge, "Lamp", #"{"on": {"on": true}, "effects": {"effect": "prism"}}"#)
        try await bridge.home.advance(byMilliseconds: 1_000)
        try await bridge.home.updateSettings(DeviceSettings(rateLimitPerSecond: 1), light: "den.lamp")
        let before = await bridge.home.commandRecords(light: "den.lamp").count
        try await put(bridge, "Lamp", #"{"timed_effects": {"effect": "sunrise", "duration": 10000}}"#)
        let records = await bridge.home.commandRecords(light: "den.lamp").dropFirst(before)
        #expect(records.count == 1, "\(records)")
        #expect(records.first?.change.timedEffect?.kind == .sunrise && records.first?.change.isOn == true)
        #expect(try await v2.light(bridge, named: "Lamp")["effects"]?["status"] == "no_effect")
        #expect(try await truth(bridge, "den.lamp").brightness == 1)
    }

    /// Any command to a light playing a timed effect ends it, an alert or a colour loop alone too.
    @Test(arguments: [#"{"alert": "select"}"#, #"{"effect": "colorloop"}"#, #"{"effect": "none"}"#])
    func aCommandThatSetsNoLevelEndsItToo(command: String) async throws {
        let bridge = try await HueTestBridge()
        try await put(bridge, "Lamp", #"{"timed_effects": {"effect": "sunrise", "duration": 60000}}"#)
        try await bridge.home.advance(byMilliseconds: 30_000)
        _ = try await bridge.answer("PUT", "/lights/1/state", command)
        #expect(try await timed(bridge, "Lamp")?["status"] == "no_effect")
        let stopped = try await truth(bridge, "den.lamp").brightness
        try await bridge.home.advance(byMilliseconds: 30_000)
        #expect(try await truth(bridge, "den.lamp").brightness == stopped)
    }

    /// A body the light takes nothing of (none, or its parameters all refused) is no command to it: the effect
    /// plays on, and no command is recorded.
    @Test func aBodyTheLightTakesNothingOfLeavesItPlaying() async throws {
        let bridge = try await HueTestBridge()
        try await put(bridge, "Lamp", #"{"timed_effects": {"effect": "sunrise", "duration": 60000}}"#)
        let before = await bridge.home.commandRecords(light: "den.lamp").count
        for body in ["{}", #"{"reachable": true}"#] { _ = try await bridge.answer("PUT", "/lights/1/state", body) }
        #expect(await bridge.home.commandRecords(light: "den.lamp").count == before)
        #expect(try await timed(bridge, "Lamp")?["status"] == "sunrise")
    }
}
