import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

@testable import LumenHue

/// Groups apps create beside the home's rooms (group 1 the den, 2 the hall of ``HueBridgeTests/home``).
@Suite("Hue bridge groups apps create")
struct HueGroupEditTests {
    @Test func aLightGroupAndAZoneAreCreatedListedSwitchedChangedAndDeleted() async throws {
        let bridge = try await HueTestBridge()
        let created = try await bridge.answer("POST", "/groups", #"{"name": "Reading", "lights": ["1", "4"]}"#)
        #expect(created == [["success": ["id": "3"]]], "after the rooms' numbers")
        let zone = try await bridge.answer(
            "POST", "/groups", #"{"name": "Upstairs", "type": "Zone", "class": "Bedroom", "lights": ["4"]}"#)
        #expect(zone == [["success": ["id": "4"]]])
        let groups = try await bridge.answer("GET", "/groups")
        #expect(groups.objectValue?.keys == ["1", "2", "3", "4"])
        #expect(
            groups["3"]?["type"] == "LightGroup" && groups["3"]?["lights"] == ["1", "4"] && groups["3"]?["class"] == nil
        )
        #expect(groups["4"]?["type"] == "Zone" && groups["4"]?["class"] == "Bedroom")
        // The lamp, a colour light given no colour, shows the white of its colour temperature.
        #expect(groups["3"]?["action"]?["colormode"] == "ct" && groups["3"]?["action"]?["hue"] != nil)
        #expect(groups["2"]?["action"]?["colormode"] == "ct" && groups["2"]?["action"]?["hue"] == nil)

        _ = try await bridge.answer("PUT", "/groups/3/action", #"{"on": true, "bri": 254}"#)
        try await bridge.home.advance(byMilliseconds: 1_000)
        #expect(try await bridge.home.light("den.lamp").state.brightness == 100)
        #expect(try await bridge.home.light("hall.spot").state.brightness == 100)
        #expect(try await !bridge.home.light("den.plug").state.isOn, "the plug is not in the group")

        let changed = try await bridge.answer("PUT", "/groups/3", #"{"name": "Desk", "lights": ["3"]}"#)
        #expect(changed == [["success": ["/groups/3/name": "Desk"]], ["success": ["/groups/3/lights": ["3"]]]])
        #expect(try await bridge.answer("GET", "/groups/3")["lights"] == ["3"])
        #expect(try await bridge.answer("DELETE", "/groups/3") == [["success": "/groups/3 deleted"]])
        #expect(try await bridge.errorType("GET", "/groups/3") == 3)
        // The numbers are never given again.
        #expect(
            try await bridge.answer("POST", "/groups", #"{"name": "Again", "lights": []}"#) == [
                ["success": ["id": "5"]]
            ])
    }

    @Test func theHomesRoomsAreNotTheBridgesToCreateOrDelete() async throws {
        let bridge = try await HueTestBridge()
        #expect(
            try await bridge.errorType("POST", "/groups", #"{"name": "Attic", "type": "Room", "lights": ["1"]}"#) == 306
        )
        #expect(try await bridge.errorType("POST", "/groups", #"{"name": "Attic", "type": "Luminaire"}"#) == 7)
        #expect(try await bridge.errorType("POST", "/groups", #"{"name": "X", "lights": ["9"]}"#) == 7)
        #expect(try await bridge.errorType("DELETE", "/groups/1") == 305)
        #expect(try await bridge.errorType("DELETE", "/groups/0") == 305)
        #expect(try await bridge.errorType("DELETE", "/groups/9") == 3)
        #expect(try await bridge.errorType("PUT", "/groups/1", #"{"lights": ["4"]}"#) == 305)
        // A room's name is the home's room's.
        #expect(
            try await bridge.answer("PUT", "/groups/1", #"{"name": "Study"}"#) == [
                ["success": ["/groups/1/name": "Study"]]
            ])
        #expect(await bridge.bridge.snapshot().rooms.first?.name == "Study")
    }

    @Test func aClassMustBeOneOfTheHueAPIs() async throws {
        let bridge = try await HueTestBridge()
        for name in ["Man cave", "Kids bedroom", "Top floor", "Free", "Other"] {
            #expect(
                try await bridge.answer("PUT", "/groups/1", #"{"class": "\#(name)"}"#) == [
                    ["success": ["/groups/1/class": .string(name)]]
                ], "\(name)")
        }
        for name in ["Spaceship", "hallway", "Living Room"] {
            #expect(try await bridge.errorType("PUT", "/groups/1", #"{"class": "\#(name)"}"#) == 7, "\(name)")
            let zone = #"{"name": "Up", "type": "Zone", "class": "\#(name)", "lights": ["4"]}"#
            #expect(try await bridge.errorType("POST", "/groups", zone) == 7, "a zone's \(name)")
        }
        #expect(try await bridge.answer("GET", "/groups/1")["class"] == "Other")
        let made = try await bridge.answer("POST", "/groups", #"{"name": "Up", "type": "Zone", "lights": ["4"]}"#)
        let zone = try #require(made.arrayValue?.first?["success"]?["id"]?.stringValue)
        #expect(try await bridge.errorType("PUT", "/groups/\(zone)", #"{"class": "Spaceship"}"#) == 7)
        #expect(try await bridge.answer("GET", "/groups/\(zone)")["class"] == "Other")
    }

    @Test func aRoomsClassLeavesWithTheRoom() async throws {
        let bridge = try await HueTestBridge()
        _ = try await bridge.answer("PUT", "/groups/2", #"{"class": "Hallway"}"#)
        let hall = try #require(await bridge.bridge.snapshot().rooms.first { $0.number == 2 }?.id)
        #expect(await bridge.bridge.state.roomClasses[hall] == "Hallway")
        try await bridge.home.removeRoom(hall)
        _ = try await bridge.answer("GET", "/groups")
        #expect(await bridge.bridge.state.roomClasses[hall] == nil)
        let record = try HueBridgeState(record: await bridge.home.frontRecord("hue"))
        #expect(record.roomClasses.isEmpty, "saved without it")
    }

    @Test func aRoomTakesAClassItKeepsAcrossARestartAndNameAndClassAreCheckedTogether() async throws {
        let bridge = try await HueTestBridge()
        #expect(try await bridge.answer("GET", "/groups/1")["class"] == "Other")
        #expect(
            try await bridge.answer("PUT", "/groups/1", #"{"class": "Hallway"}"#) == [
                ["success": ["/groups/1/class": "Hallway"]]
            ])
        #expect(try await bridge.answer("GET", "/groups")["1"]?["class"] == "Hallway")
        // A bad class changes neither the name nor the class.
        #expect(try await bridge.errorType("PUT", "/groups/1", #"{"name": "Study", "class": ""}"#) == 7)
        #expect(await bridge.bridge.snapshot().rooms.first?.name == "Den")
        let again = try await bridge.restarted()
        #expect(try await again.answer("GET", "/groups/1")["class"] == "Hallway")
        #expect(try await again.answer("GET", "/groups/2")["class"] == "Other")
    }

    @Test func anItemOfAResourceLumenKeepsNoneOfIsNotThere() async throws {
        let bridge = try await HueTestBridge()
        for (method, path) in [("DELETE", "/rules/1"), ("GET", "/sensors/1"), ("PUT", "/schedules/2")] {
            #expect(try await bridge.errorType(method, path, #"{"name": "x"}"#) == 3, "\(method) \(path)")
        }
        #expect(try await bridge.answer("GET", "/rules") == [:])
    }

    @Test func createdGroupsAreKeptAcrossACrashAndTheTableHoldsSixtyFour() async throws {
        let bridge = try await HueTestBridge()
        _ = try await bridge.answer("POST", "/groups", #"{"name": "Kept", "type": "Zone", "lights": ["1"]}"#)
        let scene = try await bridge.createScene(#"{"name": "Z", "group": "3"}"#)
        let again = try await bridge.restarted()
        #expect(try await again.answer("GET", "/groups/3")["name"] == "Kept")
        #expect(try await again.answer("GET", "/scenes/\(scene)")["group"] == "3")
        // Deleting a group forgets its scenes, as a bridge does.
        _ = try await again.answer("DELETE", "/groups/3")
        #expect(try await again.errorType("GET", "/scenes/\(scene)") == 3)
        for index in 0..<HueBridgeState.groupLimit {
            _ = try await again.answer("POST", "/groups", #"{"name": "G\#(index)", "lights": []}"#)
        }
        #expect(try await again.errorType("POST", "/groups", #"{"name": "full", "lights": []}"#) == 301)
    }

    /// phue sends the transition time set on a light or group object with every change, a rename included: a
    /// bridge answers each parameter for itself, so the name is taken and the transition time beside it refused
    /// with error 6, and a request of nothing the bridge has changes nothing.
    @Test func aRenameWithAParameterTheBridgeDoesNotHaveRenamesAndRefusesThatParameter() async throws {
        let bridge = try await HueTestBridge()
        func notAvailable(_ address: String) -> JSONValue {
            [
                "error": [
                    "type": 6, "address": .string(address), "description": "parameter, transitiontime, not available",
                ]
            ]
        }
        let light = try await bridge.answer("PUT", "/lights/1", #"{"name": "Big", "transitiontime": 4}"#)
        #expect(light == [["success": ["/lights/1/name": "Big"]], notAvailable("/lights/1/transitiontime")])
        #expect(try await bridge.home.light("den.lamp").name == "Big")
        #expect(
            try await bridge.answer("PUT", "/lights/1", #"{"transitiontime": 4}"#) == [
                notAvailable("/lights/1/transitiontime")
            ])
        #expect(try await bridge.home.light("den.lamp").name == "Big")

        let room = try await bridge.answer("PUT", "/groups/1", #"{"transitiontime": 4, "name": "Study"}"#)
        #expect(room == [notAvailable("/groups/1/transitiontime"), ["success": ["/groups/1/name": "Study"]]])
        #expect(try await bridge.answer("GET", "/groups/1")["name"] == "Study")

        _ = try await bridge.answer("POST", "/groups", #"{"name": "Reading", "lights": ["1"]}"#)
        let group = try await bridge.answer("PUT", "/groups/3", #"{"name": "Desk", "transitiontime": 4}"#)
        #expect(group == [["success": ["/groups/3/name": "Desk"]], notAvailable("/groups/3/transitiontime")])
        #expect(try await bridge.answer("GET", "/groups/3")["name"] == "Desk")
        #expect(
            try await bridge.answer("PUT", "/groups/3", #"{"transitiontime": 4}"#) == [
                notAvailable("/groups/3/transitiontime")
            ])
        // A light group has no class: it is answered with error 6, the name beside it taken.
        #expect(
            try await bridge.answer("PUT", "/groups/3", #"{"name": "Study", "class": "Office"}"#) == [
                ["success": ["/groups/3/name": "Study"]],
                [
                    "error": [
                        "type": 6, "address": "/groups/3/class", "description": "parameter, class, not available",
                    ]
                ],
            ])
        #expect(try await bridge.answer("GET", "/groups/3")["name"] == "Study")
        // A body of no parameters changes nothing, as a light's state of none does.
        #expect(try await bridge.answer("PUT", "/groups/3", "{}") == [])
        #expect(try await bridge.answer("PUT", "/lights/1", "{}") == [])
        // A value the bridge refuses is still refused whole, as before.
        #expect(try await bridge.errorType("PUT", "/groups/3", #"{"name": "", "transitiontime": 4}"#) == 7)
    }
}
