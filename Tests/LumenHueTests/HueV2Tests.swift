import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import LumenTestSupport
import Testing

@testable import LumenHue

/// The Hue API v2 over the test home: resources, their IDs and links, the key, changes and scenes.
@Suite struct HueV2Tests {
    /// A v2 request's answer, over HTTPS unless `secure` is false, with the test user's key unless `key` is given.
    func v2(
        _ bridge: HueTestBridge, _ method: String, _ path: String, _ body: String = "", key: String? = nil,
        secure: Bool = true
    ) async throws -> (status: Int, json: JSONValue) {
        var headers = HueBridgeTests.headers
        headers["hue-application-key"] = key ?? bridge.user
        var request = HTTPRequest(method: method, path: path, headers: headers, body: Array(body.utf8))
        request.isSecure = secure
        let reply = try #require(bridge.bridge.respond(to: request))
        let response: HTTPResponse
        switch reply {
        case .now(let now):
            response = now
        case .later(let work):
            response = try await bridge.home.driving(work)
        case .stream:
            Issue.record("a stream")
            return (0, .null)
        }
        return (response.status, try JSONParser.parse(response.body))
    }

    func resources(_ bridge: HueTestBridge, _ type: String) async throws -> [JSONValue] {
        try await v2(bridge, "GET", "/clip/v2/resource/\(type)").json["data"]?.arrayValue ?? []
    }

    func light(_ bridge: HueTestBridge, named name: String) async throws -> JSONValue {
        try #require(try await resources(bridge, "light").first { $0["metadata"]?["name"]?.stringValue == name })
    }

    @Test func everyResourceHasAStableVersion4IDAndItsV1Link() async throws {
        let bridge = try await HueTestBridge()
        let all = try await v2(bridge, "GET", "/clip/v2/resource")
        #expect(all.status == 200)
        let data = try #require(all.json["data"]?.arrayValue)
        let types = Set(data.compactMap { $0["type"]?.stringValue })
        #expect(types.isSuperset(of: ["bridge", "bridge_home", "device", "light", "room", "grouped_light"]))
        for resource in data {
            let id = try #require(resource["id"]?.stringValue)
            let characters = Array(id)
            #expect(characters.count == 36 && characters[14] == "4" && "89ab".contains(characters[19]), "\(id)")
        }
        #expect(Set(data.compactMap { $0["id"]?.stringValue }).count == data.count)
        let again = try await bridge.restarted()
        #expect(try await v2(again, "GET", "/clip/v2/resource").json["data"] == all.json["data"])
        let lamp = try await light(bridge, named: "Lamp")
        #expect(lamp["id_v1"]?.stringValue == "/lights/1")
        #expect(lamp["on"]?["on"] == false)
        #expect(lamp["dimming"]?["brightness"]?.doubleValue == 40)
        #expect(lamp["color"]?["gamut_type"]?.stringValue == "C")
        let spot = try await light(bridge, named: "Spot")
        #expect(spot["color_temperature"]?["mirek_schema"]?["mirek_minimum"]?.intValue == 153)
        #expect(spot["color"] == nil)
        let rooms = try await resources(bridge, "room")
        #expect(rooms.compactMap { $0["metadata"]?["name"]?.stringValue } == ["Den", "Hall"])
        let one = try await v2(bridge, "GET", "/clip/v2/resource/light/\(lamp["id"]!.stringValue!)")
        #expect(one.json["data"]?.arrayValue == [lamp])
    }

    @Test func aMissingOrUnknownKeyIs403AndAnUnknownResource404() async throws {
        let bridge = try await HueTestBridge()
        var request = HTTPRequest(method: "GET", path: "/clip/v2/resource", headers: HueBridgeTests.headers)
        request.isSecure = true
        guard case .now(let response) = try #require(bridge.bridge.respond(to: request)) else {
            Issue.record("answered later")
            return
        }
        #expect(response.status == 403)
        let wrong = try await v2(bridge, "GET", "/clip/v2/resource", key: "nobody")
        #expect(wrong.status == 403)
        #expect(wrong.json["errors"]?.arrayValue?.first?["description"]?.stringValue == "unauthorized user")
        #expect(wrong.json["data"] == [])
        #expect(try await v2(bridge, "GET", "/clip/v2/resource/light/nope").status == 404)
        #expect(try await v2(bridge, "GET", "/clip/v2/resource/sensor").status == 404)
        #expect(try await v2(bridge, "GET", "/clip/v2/resource", secure: false).status == 404)
        let lamp = try await light(bridge, named: "Lamp")["id"]!.stringValue!
        #expect(try await v2(bridge, "PUT", "/clip/v2/resource/light/\(lamp)", "nonsense").status == 400)
        #expect(try await v2(bridge, "PUT", "/clip/v2/resource/light/\(lamp)", #"{"on": 1}"#).status == 400)
        #expect(try await v2(bridge, "PUT", "/clip/v2/resource/light/\(lamp)", #"{"gradient": {}}"#).status == 400)
    }

    @Test func aLightTakesOnDimmingColourAndTemperature() async throws {
        let bridge = try await HueTestBridge()
        let lamp = try await light(bridge, named: "Lamp")["id"]!.stringValue!
        let path = "/clip/v2/resource/light/\(lamp)"
        let put = try await v2(bridge, "PUT", path, #"{"on": {"on": true}, "dimming": {"brightness": 55.5}}"#)
        #expect(put.status == 200)
        #expect(put.json["data"]?.arrayValue?.first?["rid"]?.stringValue == lamp)
        var shown = try await light(bridge, named: "Lamp")
        #expect(shown["on"]?["on"] == true)
        #expect(shown["dimming"]?["brightness"]?.doubleValue == 55.5)
        _ = try await v2(bridge, "PUT", path, #"{"color": {"xy": {"x": 0.3, "y": 0.4}}, "dynamics": {"duration": 0}}"#)
        shown = try await light(bridge, named: "Lamp")
        #expect(shown["color"]?["xy"]?["x"]?.doubleValue == 0.3)
        #expect(shown["color_temperature"]?["mirek_valid"] == false)
        _ = try await v2(bridge, "PUT", path, #"{"color_temperature": {"mirek": 300}}"#)
        shown = try await light(bridge, named: "Lamp")
        #expect(shown["color_temperature"]?["mirek"]?.intValue == 300)
        #expect(shown["color_temperature"]?["mirek_valid"] == true)
        let plug = try await light(bridge, named: "Plug")["id"]!.stringValue!
        let refused = try await v2(bridge, "PUT", "/clip/v2/resource/light/\(plug)", #"{"dimming": {"brightness": 5}}"#)
        #expect(refused.status == 400)
    }

    @Test func aGroupedLightSwitchesItsRoom() async throws {
        let bridge = try await HueTestBridge()
        let den = try #require(await resources(bridge, "room").first { $0["metadata"]?["name"] == "Den" })
        let grouped = try #require(den["services"]?.arrayValue?.first?["rid"]?.stringValue)
        let spot = try await light(bridge, named: "Spot")
        let put = try await v2(bridge, "PUT", "/clip/v2/resource/grouped_light/\(grouped)", #"{"on": {"on": true}}"#)
        #expect(put.status == 200)
        #expect(try await light(bridge, named: "Plug")["on"]?["on"] == true)
        #expect(try await light(bridge, named: "Spot") == spot)
    }

    @Test func aSceneMadeOverV2IsStoredListedAndRecalled() async throws {
        let bridge = try await HueTestBridge()
        let den = try #require(await resources(bridge, "room").first { $0["metadata"]?["name"] == "Den" })
        let lamp = try await light(bridge, named: "Lamp")["id"]!.stringValue!
        let body = """
            {"type": "scene", "metadata": {"name": "Reading"}, "group": {"rid": "\(den["id"]!.stringValue!)", \
            "rtype": "room"}, "actions": [{"target": {"rid": "\(lamp)", "rtype": "light"}, \
            "action": {"on": {"on": true}, "dimming": {"brightness": 80}}}]}
            """
        let made = try await v2(bridge, "POST", "/clip/v2/resource/scene", body)
        #expect(made.status == 200)
        let scene = try #require(made.json["data"]?.arrayValue?.first?["rid"]?.stringValue)
        let listed = try await resources(bridge, "scene")
        #expect(listed.map { $0["id"]?.stringValue } == [scene])
        #expect(listed.first?["metadata"]?["name"] == "Reading")
        let recalled = try await v2(
            bridge, "PUT", "/clip/v2/resource/scene/\(scene)", #"{"recall": {"action": "active"}}"#)
        #expect(recalled.status == 200)
        let shown = try await light(bridge, named: "Lamp")
        #expect(shown["on"]?["on"] == true)
        #expect(abs((shown["dimming"]?["brightness"]?.doubleValue ?? 0) - 80) < 0.5)
        let restarted = try await bridge.restarted()
        #expect(try await resources(restarted, "scene").map { $0["id"]?.stringValue } == [scene])
        let deleted = try await v2(restarted, "DELETE", "/clip/v2/resource/scene/\(scene)")
        #expect(deleted.status == 200)
        #expect(try await resources(restarted, "scene").isEmpty)
        #expect(try await v2(restarted, "DELETE", "/clip/v2/resource/scene/\(scene)").status == 404)
    }
}
