import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import Testing

@testable import LumenHue

/// What apps edit over API v2 besides lights and scenes' recalls, as a bridge takes it: a device identified or
/// renamed, a room or zone renamed or given an archetype, a scene's actions replaced, geofence clients (aiohue's
/// keep-alive), and the types Lumen keeps none of listed as empty.
@Suite struct HueV2EditTests {
    let v2 = HueV2Tests()

    func id(_ resource: JSONValue) throws -> String { try #require(resource["id"]?.stringValue) }

    /// The device that owns the light called `name`.
    func device(_ bridge: HueTestBridge, of name: String) async throws -> String {
        try #require(try await v2.light(bridge, named: name)["owner"]?["rid"]?.stringValue)
    }

    /// aiohue identifies a light (`flash: short` in Home Assistant) through its device, a room through each of its
    /// lights' devices.
    @Test func aDeviceIdentifiedBreathesItsLightOnce() async throws {
        let bridge = try await HueTestBridge()
        let lamp = try await device(bridge, of: "Lamp")
        let identified = try await v2.v2(
            bridge, "PUT", "/clip/v2/resource/device/\(lamp)", #"{"identify": {"action": "identify"}}"#)
        #expect(identified.status == 200, "\(identified.json)")
        #expect(identified.json["data"]?.arrayValue?.first?["rid"]?.stringValue == lamp)
        #expect(identified.json["data"]?.arrayValue?.first?["rtype"] == "device")
        #expect(try await bridge.answer("GET", "/lights/1")["state"]?["alert"] == "select")
        // The bridge's own device blinks its LED: nothing in the home changes.
        let bridgeDevice = try #require(
            try await v2.resources(bridge, "device").first { $0["product_data"]?["model_id"] == "BSB002" })
        let blinked = try await v2.v2(
            bridge, "PUT", "/clip/v2/resource/device/\(try id(bridgeDevice))", #"{"identify": {"action": "identify"}}"#)
        #expect(blinked.status == 200, "\(blinked.json)")
    }

    @Test func aDeviceRenamedRenamesItsLightAndTakesNoLightFeature() async throws {
        let bridge = try await HueTestBridge()
        let lamp = try await device(bridge, of: "Lamp")
        let renamed = try await v2.v2(
            bridge, "PUT", "/clip/v2/resource/device/\(lamp)", #"{"metadata": {"name": "Desk lamp"}}"#)
        #expect(renamed.status == 200, "\(renamed.json)")
        #expect(try await bridge.answer("GET", "/lights/1")["name"] == "Desk lamp")
        let shown = try await v2.v2(bridge, "GET", "/clip/v2/resource/device/\(lamp)").json["data"]?.arrayValue?.first
        #expect(shown?["metadata"]?["name"] == "Desk lamp")
        for bad in [
            #"{"on": {"on": true}}"#, #"{"identify": {"action": "blink"}}"#, #"{"metadata": {"name": ""}}"#,
            #"{"metadata": {"name": "\#(String(repeating: "n", count: 33))"}}"#,
        ] {
            let refused = try await v2.v2(bridge, "PUT", "/clip/v2/resource/device/\(lamp)", bad)
            #expect(refused.status == 400, "\(bad): \(refused.json)")
        }
        #expect(try await bridge.answer("GET", "/lights/1")["state"]?["on"] == false, "a refused body changes nothing")
        #expect(try await bridge.answer("GET", "/lights/1")["name"] == "Desk lamp")
    }

    @Test func aRoomRenamedOrGivenAnArchetypeOverV2IsSoOverV1AndTheOtherWayRound() async throws {
        let bridge = try await HueTestBridge()
        let den = try #require(try await v2.resources(bridge, "room").first { $0["metadata"]?["name"] == "Den" })
        #expect(den["metadata"]?["archetype"] == "other")
        let number = try #require(den["id_v1"]?.stringValue?.split(separator: "/").last.map(String.init))
        let changed = try await v2.v2(
            bridge, "PUT", "/clip/v2/resource/room/\(try id(den))",
            #"{"metadata": {"name": "Study", "archetype": "living_room"}}"#)
        #expect(changed.status == 200, "\(changed.json)")
        let group = try await bridge.answer("GET", "/groups/\(number)")
        #expect(group["name"] == "Study")
        #expect(group["class"] == "Living room")
        _ = try await bridge.answer("PUT", "/groups/\(number)", #"{"class": "Top floor"}"#)
        let room = try await v2.v2(bridge, "GET", "/clip/v2/resource/room/\(try id(den))").json["data"]?.arrayValue?
            .first
        #expect(room?["metadata"]?["archetype"] == "top_floor")
        #expect(room?["metadata"]?["name"] == "Study")
        for bad in [
            #"{"metadata": {"archetype": "castle"}}"#, #"{"metadata": {"name": ""}}"#, #"{"children": []}"#,
            #"{"metadata": {"name": "Hall", "archetype": "castle"}}"#,
        ] {
            let refused = try await v2.v2(bridge, "PUT", "/clip/v2/resource/room/\(try id(den))", bad)
            #expect(refused.status == 400, "\(bad): \(refused.json)")
        }
        #expect(
            try await bridge.answer("GET", "/groups/\(number)")["name"] == "Study", "a refused body changes nothing")
    }

    @Test func aZoneRenamedOverV2IsSoOverV1() async throws {
        let bridge = try await HueTestBridge()
        let made = try await bridge.answer(
            "POST", "/groups", #"{"name": "Upstairs", "type": "Zone", "lights": ["1"], "class": "Downstairs"}"#)
        let number = try #require(made.arrayValue?.first?["success"]?["id"]?.stringValue)
        let zone = try #require(try await v2.resources(bridge, "zone").first { $0["metadata"]?["name"] == "Upstairs" })
        #expect(zone["metadata"]?["archetype"] == "downstairs")
        let changed = try await v2.v2(
            bridge, "PUT", "/clip/v2/resource/zone/\(try id(zone))",
            #"{"metadata": {"name": "Landing", "archetype": "staircase"}}"#)
        #expect(changed.status == 200, "\(changed.json)")
        let group = try await bridge.answer("GET", "/groups/\(number)")
        #expect(group["name"] == "Landing")
        #expect(group["class"] == "Staircase")
    }

    /// A bridge takes names of 1 to 32 characters for lights as for everything else.
    @Test func aLightNameLongerThan32CharactersIsRefusedOverV1() async throws {
        let bridge = try await HueTestBridge()
        let long = String(repeating: "n", count: 33)
        let refused = try await bridge.answer("PUT", "/lights/1", #"{"name": "\#(long)"}"#)
        #expect(refused.arrayValue?.first?["error"]?["type"] == 7, "\(refused)")
        #expect(try await bridge.answer("GET", "/lights/1")["name"] == "Lamp")
        let taken = try await bridge.answer("PUT", "/lights/1", #"{"name": "\#(long.dropLast())"}"#)
        #expect(taken.arrayValue?.first?["success"] != nil, "\(taken)")
    }

    /// A type the API names but Lumen keeps none of (sensors, behaviours, entertainment) is listed empty, as a
    /// bridge with none lists it; one of them by ID is not found, and a type the API does not name is not found.
    @Test func aTypeLumenKeepsNoneOfIsListedEmpty() async throws {
        let bridge = try await HueTestBridge()
        for type in ["motion", "button", "behavior_instance", "entertainment_configuration", "smart_scene", "matter"] {
            let listed = try await v2.v2(bridge, "GET", "/clip/v2/resource/\(type)")
            #expect(listed.status == 200, "\(type): \(listed.json)")
            #expect(listed.json["data"] == [], "\(type)")
            let one = try await v2.v2(bridge, "GET", "/clip/v2/resource/\(type)/00000000-0000-4000-8000-000000000000")
            #expect(one.status == 404, "\(type)")
        }
        #expect(try await v2.v2(bridge, "GET", "/clip/v2/resource/castle").status == 404)
    }

    /// Replaced whole over v2, as the Hue app and python-hue-v2 edit a scene; a palette is taken, though Lumen plays
    /// none.
    @Test func aScenesActionsAreReplacedOverV2() async throws {
        let bridge = try await HueTestBridge()
        let (_, scene) = try await HueV2ChangeTests().denScene(bridge)
        let plug = try id(try await v2.light(bridge, named: "Plug"))
        let lamp = try id(try await v2.light(bridge, named: "Lamp"))
        let replaced = try await v2.v2(
            bridge, "PUT", "/clip/v2/resource/scene/\(scene)",
            """
            {"actions": [{"target": {"rid": "\(lamp)", "rtype": "light"}, "action": {"on": {"on": true}, \
            "dimming": {"brightness": 30}}}, {"target": {"rid": "\(plug)", "rtype": "light"}, \
            "action": {"on": {"on": false}}}]}
            """)
        #expect(replaced.status == 200, "\(replaced.json)")
        let shown = try await HueV2ChangeTests().scene(bridge, scene)
        let actions = try #require(shown["actions"]?.arrayValue)
        let lampAction = try #require(actions.first { $0["target"]?["rid"]?.stringValue == lamp })
        #expect(abs((lampAction["action"]?["dimming"]?["brightness"]?.doubleValue ?? 0) - 30) < 0.5, "\(lampAction)")
        let plugAction = try #require(actions.first { $0["target"]?["rid"]?.stringValue == plug })
        #expect(plugAction["action"]?["on"]?["on"] == false)
        _ = try await v2.v2(bridge, "PUT", "/clip/v2/resource/scene/\(scene)", #"{"recall": {"action": "active"}}"#)
        #expect(try await v2.light(bridge, named: "Plug")["on"]?["on"] == false)
        let palette = try await v2.v2(
            bridge, "PUT", "/clip/v2/resource/scene/\(scene)",
            #"{"palette": {"color": [], "dimming": [], "color_temperature": [], "effects": []}}"#)
        #expect(palette.status == 200, "\(palette.json)")
        for bad in [
            #"{"actions": []}"#, #"{"actions": 5}"#,
            #"{"actions": [{"target": {"rid": "\#(lamp)", "rtype": "light"}, "action": {"dimming": {"brightness": 300}}}]}"#,
            #"{"palette": 5}"#,
        ] {
            let refused = try await v2.v2(bridge, "PUT", "/clip/v2/resource/scene/\(scene)", bad)
            #expect(refused.status == 400, "\(bad): \(refused.json)")
        }
    }

    /// aiohue keeps its event stream alive with a geofence client it makes once and renames every minute: each
    /// change is an event on the stream, and the client is kept, as a bridge keeps it, across restarts.
    @Test func aGeofenceClientIsMadeRenamedAndForgottenEachAnEventOnTheStream() async throws {
        let bridge = try await HueTestBridge()
        await bridge.bridge.watchHome()
        let events = HueEventStreamTests()
        let stream = try events.open(bridge)
        _ = try await events.read(stream, of: bridge.bridge.events) { $0.hasPrefix(": hi") }
        let made = try await v2.v2(
            bridge, "POST", "/clip/v2/resource/geofence_client",
            #"{"type": "geofence_client", "name": "aiohue_", "is_at_home": false}"#)
        #expect(made.status == 200, "\(made.json)")
        #expect(made.json["data"]?.arrayValue?.first?["rtype"] == "geofence_client")
        let client = try #require(made.json["data"]?.arrayValue?.first?["rid"]?.stringValue)
        let added = try await events.read(stream, of: bridge.bridge.events) { $0.contains("geofence_client") }
        #expect(added.contains(#""type":"add""#), "\(added)")
        #expect(try await v2.resources(bridge, "geofence_client").map { $0["name"] } == ["aiohue_"])
        let renamed = try await v2.v2(
            bridge, "PUT", "/clip/v2/resource/geofence_client/\(client)",
            #"{"name": "aiohue_abcdefghij", "is_at_home": false}"#)
        #expect(renamed.status == 200, "\(renamed.json)")
        let updated = try await events.read(stream, of: bridge.bridge.events) { $0.contains("aiohue_abcdefghij") }
        #expect(updated.contains(#""type":"update""#), "\(updated)")
        let again = try await bridge.restarted()
        #expect(try await v2.resources(again, "geofence_client").map { $0["name"] } == ["aiohue_abcdefghij"])
        for (method, path, body) in [
            ("POST", "/clip/v2/resource/geofence_client", #"{"name": ""}"#),
            ("POST", "/clip/v2/resource/geofence_client", #"{"name": "\#(String(repeating: "n", count: 33))"}"#),
            ("POST", "/clip/v2/resource/geofence_client", #"{"name": "phone", "is_at_home": 5}"#),
            ("POST", "/clip/v2/resource/geofence_client", #"{"name": "phone", "colour": "red"}"#),
            ("PUT", "/clip/v2/resource/geofence_client/\(client)", #"{"name": 5}"#),
        ] {
            let refused = try await v2.v2(bridge, method, path, body)
            #expect(refused.status == 400, "\(body): \(refused.json)")
        }
        let unknown = "/clip/v2/resource/geofence_client/00000000-0000-4000-8000-000000000000"
        #expect(try await v2.v2(bridge, "PUT", unknown, #"{"name": "phone"}"#).status == 404)
        let deleted = try await v2.v2(bridge, "DELETE", "/clip/v2/resource/geofence_client/\(client)")
        #expect(deleted.status == 200, "\(deleted.json)")
        #expect(try await v2.resources(bridge, "geofence_client").isEmpty)
        let gone = try await events.read(stream, of: bridge.bridge.events) { $0.contains(#""type":"delete""#) }
        #expect(gone.contains(client))
    }

    /// The bridge's record is read strictly (a version 4 UUID each, given once; a name of 1 to 32 characters), and
    /// the table holds 64: the 65th is refused until one is deleted. A restore keeps them, as it keeps the apps paired.
    @Test func geofenceClientsAreReadStrictlyBoundedAndKeptByAReset() async throws {
        func reads(_ clients: String) -> Bool {
            let record = #"{"users": [], "lights": {}, "rooms": {}, "geofenceClients": \#(clients)}"#
            return (try? HueBridgeState(record: try JSONParser.parse(Array(record.utf8)))) != nil
        }
        let uuid = "0a1b2c3d-0000-4000-8000-000000000001"
        #expect(reads(#"[{"id": "\#(uuid)", "name": "phone", "isAtHome": true}]"#))
        for bad in [
            #"[{"id": "not-a-uuid", "name": "phone", "isAtHome": true}]"#,
            #"[{"id": "\#(uuid)", "name": "", "isAtHome": true}]"#,
            #"[{"id": "\#(uuid)", "name": "phone"}]"#,
            #"[{"id": "\#(uuid)", "name": "a", "isAtHome": true}, {"id": "\#(uuid)", "name": "b", "isAtHome": true}]"#,
            #"{"id": "\#(uuid)"}"#,
        ] {
            #expect(!reads(bad), "\(bad)")
        }
        let bridge = try await HueTestBridge()
        try await bridge.home.checkpoint("before")
        for index in 0..<HueBridgeState.geofenceClientLimit {
            let made = try await v2.v2(bridge, "POST", "/clip/v2/resource/geofence_client", #"{"name": "c\#(index)"}"#)
            #expect(made.status == 200, "\(index): \(made.json)")
        }
        let full = try await v2.v2(bridge, "POST", "/clip/v2/resource/geofence_client", #"{"name": "one more"}"#)
        #expect(full.status == 400, "\(full.json)")
        try await bridge.home.restore(checkpoint: "before")
        #expect(try await v2.resources(bridge, "geofence_client").count == HueBridgeState.geofenceClientLimit)
    }
}
