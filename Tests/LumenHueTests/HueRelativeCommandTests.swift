import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

@testable import LumenHue

/// `bri_inc` and its kin, `effect` and `alert`, on the lights of ``HueBridgeTests/home`` (1 the Hue colour
/// lamp, 3 the plug, 4 the hall's white-ambiance spot).
@Suite("Hue bridge relative commands and effects")
struct HueRelativeCommandTests {
    @Test func increasesMoveALightFromWhereItIsClampedAsABridgeClampsThem() async throws {
        let bridge = try await HueTestBridge()
        _ = try await bridge.answer("PUT", "/lights/1/state", #"{"on": true, "bri": 200, "transitiontime": 0}"#)
        let answer = try await bridge.answer("PUT", "/lights/1/state", #"{"bri_inc": 100, "transitiontime": 0}"#)
        #expect(
            answer == [
                ["success": ["/lights/1/state/bri_inc": 100]], ["success": ["/lights/1/state/transitiontime": 0]],
            ])
        #expect(try await bridge.home.light("den.lamp").state.brightness == 100)
        _ = try await bridge.answer("PUT", "/lights/1/state", #"{"bri_inc": -254, "transitiontime": 0}"#)
        #expect(try await bridge.home.light("den.lamp").state.brightness == 1, "never below the dimmest level")
        // A value given wins over the increase of the same property.
        _ = try await bridge.answer("PUT", "/lights/1/state", #"{"bri": 101, "bri_inc": 50, "transitiontime": 0}"#)
        #expect(try await bridge.answer("GET", "/lights/1")["state"]?["bri"] == 101)
        _ = try await bridge.answer("PUT", "/lights/4/state", #"{"ct": 480, "transitiontime": 0}"#)
        _ = try await bridge.answer("PUT", "/lights/4/state", #"{"ct_inc": 100, "transitiontime": 0}"#)
        #expect(try await bridge.home.light("hall.spot").state.colorTemperature == 500)
        _ = try await bridge.answer("PUT", "/lights/1/state", #"{"xy": [0.3, 0.3], "transitiontime": 0}"#)
        _ = try await bridge.answer("PUT", "/lights/1/state", #"{"xy_inc": [0.1, -0.05], "transitiontime": 0}"#)
        let color = try await bridge.home.light("den.lamp").state.color
        #expect(abs(color.x - 0.4) < 1e-9 && abs(color.y - 0.25) < 1e-9)
        #expect(try await bridge.errorType("PUT", "/lights/1/state", #"{"bri_inc": 255}"#) == 7)
        #expect(try await bridge.errorType("PUT", "/lights/1/state", #"{"xy_inc": [0.6, 0]}"#) == 7)
        #expect(try await bridge.errorType("PUT", "/lights/3/state", #"{"bri_inc": 5}"#) == 6)
        #expect(try await bridge.errorType("PUT", "/lights/4/state", #"{"hue_inc": 5}"#) == 6)
    }

    @Test func hueAndSaturationIncreasesTurnRoundTheWheel() async throws {
        let bridge = try await HueTestBridge()
        _ = try await bridge.answer(
            "PUT", "/lights/1/state", #"{"on": true, "hue": 65000, "sat": 200, "transitiontime": 0}"#)
        _ = try await bridge.answer(
            "PUT", "/lights/1/state", #"{"hue_inc": 1072, "sat_inc": 100, "transitiontime": 0}"#)
        // Past the end of the wheel it comes round to red's other side, fully saturated.
        let expected = HueValues.color(hue: 65000 + 1072 - 65536, sat: 254)
        let color = try await bridge.home.light("den.lamp").state.color
        #expect(abs(color.x - expected.x) < 0.01 && abs(color.y - expected.y) < 0.01, "\(color) \(expected)")
        let (hue, sat) = HueValues.hueAndSat(of: HueValues.color(hue: 21845, sat: 127))
        #expect(abs(hue - 21845) <= 1 && sat == 127)
    }

    @Test func aGroupsIncreaseMovesEachLightFromItsOwnLevelInOneGroupCommand() async throws {
        let bridge = try await HueTestBridge()
        _ = try await bridge.answer("PUT", "/lights/1/state", #"{"on": true, "bri": 100, "transitiontime": 0}"#)
        _ = try await bridge.answer("PUT", "/lights/4/state", #"{"on": true, "bri": 200, "transitiontime": 0}"#)
        let answer = try await bridge.answer("PUT", "/groups/0/action", #"{"bri_inc": 20, "transitiontime": 0}"#)
        #expect(answer.arrayValue?.first == ["success": ["/groups/0/action/bri_inc": 20]])
        #expect(try await bridge.answer("GET", "/lights/1")["state"]?["bri"] == 120)
        #expect(try await bridge.answer("GET", "/lights/4")["state"]?["bri"] == 220)
        #expect(try await bridge.home.light("den.plug").state.isOn == false, "a plug has no level to raise")
    }

    /// A group's action to lights that are off answers a success for each parameter, as a bridge does (it sends
    /// the group one command and does not wait for each light); the lights stay off, their colour and level as
    /// they were, and start no colour loop, as a light that is off refuses one. Only `on` wakes them.
    @Test func aGroupActionToLightsThatAreOffSucceedsAndLeavesThemOff() async throws {
        let bridge = try await HueTestBridge()
        _ = try await bridge.answer("PUT", "/groups/0/action", #"{"on": false, "transitiontime": 0}"#)
        try await bridge.home.advance(byMilliseconds: 1_000)
        let lamp = try await bridge.home.light("den.lamp").state
        for (group, body) in [
            ("1", #"{"bri": 100}"#), ("0", #"{"hue": 1000, "sat": 200}"#), ("1", #"{"xy": [0.3, 0.3]}"#),
            ("2", #"{"ct": 300}"#), ("0", #"{"bri": 30, "ct": 250, "transitiontime": 4}"#),
            ("1", #"{"effect": "colorloop", "bri": 5}"#),
        ] {
            let answer = try await bridge.answer("PUT", "/groups/\(group)/action", body)
            let sent = try JSONParser.parse(Array(body.utf8))
            let expected: JSONValue = .array(
                (sent.objectValue?.members ?? []).map {
                    .object(["success": .object(["/groups/\(group)/action/\($0.key)": $0.value])])
                })
            #expect(answer == expected, "\(group) \(body)")
            try await bridge.home.advance(byMilliseconds: 1_000)
        }
        #expect(try await bridge.home.light("den.lamp").state == lamp, "a Hue lamp takes nothing while off")
        #expect(try await bridge.home.light("hall.spot").state.isOn == false)
        #expect(try await bridge.answer("GET", "/lights/1")["state"]?["effect"] == "none", "no loop in the dark")
        _ = try await bridge.answer("PUT", "/groups/1/action", #"{"on": true, "effect": "colorloop"}"#)
        #expect(try await bridge.answer("GET", "/lights/1")["state"]?["effect"] == "colorloop", "turned on, it loops")
    }

    /// A group's action that turns its lights off with a colour loop starts the loop on none of them: those on
    /// before go dark with the same command, and a light that is off refuses a loop.
    @Test func aGroupActionTurningLightsOffStartsNoColourLoopOnThose() async throws {
        let bridge = try await HueTestBridge()
        _ = try await bridge.answer("PUT", "/lights/1/state", #"{"on": true, "transitiontime": 0}"#)
        try await bridge.home.advance(byMilliseconds: 1_000)
        let before = try #require(try await bridge.answer("GET", "/lights").objectValue)
        let on = before.members.map { $0.value["state"]?["on"] }
        #expect(on.contains(.bool(true)) && on.contains(.bool(false)), "some lights on, some off")

        _ = try await bridge.answer("PUT", "/groups/0/action", #"{"on": false, "effect": "colorloop"}"#)
        try await bridge.home.advance(byMilliseconds: 1_000)
        let after = try #require(try await bridge.answer("GET", "/lights").objectValue)
        for (number, light) in after.members {
            #expect(light["state"]?["on"] == .bool(false), "light \(number) off")
            #expect(light["state"]?["effect"] != "colorloop", "light \(number) loops in the dark")
        }
    }

    @Test func effectAndAlertAreTakenAndReported() async throws {
        let bridge = try await HueTestBridge()
        _ = try await bridge.answer("PUT", "/lights/1/state", #"{"on": true, "transitiontime": 0}"#)
        let answer = try await bridge.answer("PUT", "/lights/1/state", #"{"effect": "colorloop", "alert": "lselect"}"#)
        #expect(
            answer == [
                ["success": ["/lights/1/state/effect": "colorloop"]], ["success": ["/lights/1/state/alert": "lselect"]],
            ])
        var state = try await bridge.answer("GET", "/lights/1")["state"]
        #expect(state?["effect"] == "colorloop" && state?["alert"] == "lselect")
        #expect(try await bridge.answer("GET", "/lights")["1"]?["state"]?["effect"] == "colorloop")
        _ = try await bridge.answer("PUT", "/groups/0/action", #"{"effect": "none", "alert": "select"}"#)
        state = try await bridge.answer("GET", "/lights/1")["state"]
        #expect(state?["effect"] == "none" && state?["alert"] == "select")
        // The light itself breathes, once, and the bridge then reports no alert; the scope protocol sees it too.
        #expect(try await bridge.home.value(of: .light("den.lamp", .effect)) == "breathe")
        try await bridge.home.advance(byMilliseconds: 1_000)
        #expect(try await bridge.answer("GET", "/lights/1")["state"]?["alert"] == "none")
        #expect(try await bridge.home.value(of: .light("den.lamp", .effect)) == "none")
        #expect(try await bridge.errorType("PUT", "/lights/1/state", #"{"effect": "sparkle"}"#) == 7)
        #expect(try await bridge.errorType("PUT", "/lights/1/state", #"{"alert": "blink"}"#) == 7)
        #expect(try await bridge.errorType("PUT", "/lights/4/state", #"{"effect": "colorloop"}"#) == 6)
    }

    @Test func anEffectForALightThatIsOffIsRefusedButAnAlertIsTakenAsABridgeDoes() async throws {
        let bridge = try await HueTestBridge()
        let answer = try await bridge.answer("PUT", "/lights/1/state", #"{"effect": "colorloop", "alert": "none"}"#)
        #expect(
            answer == [
                [
                    "error": [
                        "type": 201, "address": "/lights/1/state/effect",
                        "description": "parameter, effect, is not modifiable. Device is set to off.",
                    ]
                ]
            ], "\(answer)")
        #expect(try await bridge.home.value(of: .light("den.lamp", .effect)) == "none", "nothing started")
        // Home Assistant turns an off light off again with `alert: none`, and flashes one with `select`.
        for (light, body) in [(1, #"{"on": false, "alert": "none"}"#), (3, #"{"alert": "select"}"#)] {
            let taken = try await bridge.answer("PUT", "/lights/\(light)/state", body)
            #expect(taken.arrayValue?.allSatisfy { $0["success"] != nil } == true, "\(taken)")
        }
        // Switched on by the same body, the light takes an effect.
        let on = try await bridge.answer("PUT", "/lights/1/state", #"{"on": true, "effect": "colorloop"}"#)
        #expect(on.arrayValue?.count == 2 && on.arrayValue?.allSatisfy { $0["success"] != nil } == true, "\(on)")
    }

    @Test func everyLightReportsAnAlertPlugsToo() async throws {
        let bridge = try await HueTestBridge()
        let lights = try await bridge.answer("GET", "/lights")
        for number in ["1", "3", "4"] { #expect(lights[number]?["state"]?["alert"] == "none", "light \(number)") }
        #expect(lights["3"]?["state"]?["bri"] == nil && lights["3"]?["state"]?["effect"] == nil)
    }

    @Test func aColourRefusedByALightThatIsOffNamesTheParameterAsSent() async throws {
        let bridge = try await HueTestBridge()
        for parameter in ["hue", "sat"] {
            let answer = try await bridge.answer("PUT", "/lights/1/state", #"{"\#(parameter)": 100}"#)
            let error = answer.arrayValue?.first?["error"]
            #expect(error?["type"] == 201 && error?["address"] == .string("/lights/1/state/\(parameter)"), "\(answer)")
        }
        let error = try await bridge.answer("PUT", "/lights/1/state", #"{"bri_inc": 10}"#).arrayValue?.first?["error"]
        #expect(error?["type"] == 201 && error?["address"] == "/lights/1/state/bri_inc")
    }
}
