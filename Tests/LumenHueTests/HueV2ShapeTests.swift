import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import Testing

@testable import LumenHue

/// The API v2 resources in the shape a bridge gives them where a client reads it: Home Assistant's Hue
/// integration (through aiohue) offers a flash for a light whose `alert` lists an action, tells a Signify light
/// from another by `certified`, and reads a grouped light as the bridge aggregates its lights.
@Suite struct HueV2ShapeTests {
    let v2 = HueV2Tests()

    /// A room of three dimmable lights, two of them on, and a plug; the Signify light certified, the others not.
    static let home = """
        {"schema": 1, "id": "flat", "name": "Flat", "seed": 4, "defaults": {"latency": "instant"}, "rooms": [
          {"id": "den", "name": "Den", "lights": [
            {"id": "den.a", "name": "A", "kind": "dimmable", "manufacturer": "Signify", "product": "Hue White A60",
             "state": {"isOn": true, "brightness": 30}},
            {"id": "den.b", "name": "B", "kind": "ambiance", "manufacturer": "IKEA", "product": "TRADFRI E27",
             "family": "hue", "state": {"isOn": true, "brightness": 50}},
            {"id": "den.c", "name": "C", "kind": "dimmable", "family": "hue", "state": {"isOn": false,
             "brightness": 100}},
            {"id": "den.plug", "name": "Plug", "kind": "onoff", "manufacturer": "Eve", "product": "Eve Energy",
             "state": {"isOn": false}}
          ]}
        ]}
        """

    func bridge() async throws -> HueTestBridge {
        try await HueTestBridge(fixture: try Fixture(json: Array(Self.home.utf8)))
    }

    func groupedLight(_ bridge: HueTestBridge, of room: String) async throws -> JSONValue {
        let den = try #require(
            await v2.resources(bridge, "room").first { $0["metadata"]?["name"]?.stringValue == room })
        let id = try #require(den["services"]?.arrayValue?.first?["rid"]?.stringValue)
        let answer = try await v2.v2(bridge, "GET", "/clip/v2/resource/grouped_light/\(id)")
        return try #require(answer.json["data"]?.arrayValue?.first)
    }

    /// A bridge's `bridge_home` holds its rooms and every device in none of them, the bridge's own device among
    /// them (a real bridge's dump, and the API reference: "child devices/services to group by the derived group").
    @Test func theBridgeHomeHoldsTheRoomsAndTheBridgesOwnDevice() async throws {
        let bridge = try await bridge()
        let home = try #require(try await v2.resources(bridge, "bridge_home").first)
        let children = home["children"]?.arrayValue ?? []
        let rooms = try await v2.resources(bridge, "room").compactMap { $0["id"]?.stringValue }
        let bridgeDevice = try #require(try await v2.resources(bridge, "bridge").first?["owner"]?["rid"]?.stringValue)
        #expect(children.filter { $0["rtype"] == "room" }.compactMap { $0["rid"]?.stringValue } == rooms)
        #expect(children.filter { $0["rtype"] == "device" }.compactMap { $0["rid"]?.stringValue } == [bridgeDevice])
    }

    /// The bridge's own device has its Zigbee radio, as a bridge lists it (aiohue's and openHAB's v2 dumps: a
    /// `zigbee_connectivity` with `id_v1` "", owned by the bridge's device, `connected`, its MAC in Signify's
    /// range): Home Assistant gives the bridge's device that MAC and a connectivity sensor, as for each light.
    @Test func theBridgesDeviceHasItsZigbeeConnectivity() async throws {
        let bridge = try await bridge()
        let device = try #require(
            try await v2.resources(bridge, "device").first { $0["product_data"]?["model_id"] == "BSB002" })
        let deviceID = try #require(device["id"]?.stringValue)
        let service = try #require(
            device["services"]?.arrayValue?.first { $0["rtype"] == "zigbee_connectivity" }, "\(device)")
        let id = try #require(service["rid"]?.stringValue)
        let answer = try await v2.v2(bridge, "GET", "/clip/v2/resource/zigbee_connectivity/\(id)")
        let zigbee = try #require(answer.json["data"]?.arrayValue?.first, "\(answer.json)")
        #expect(zigbee["owner"] == ["rid": .string(deviceID), "rtype": "device"], "\(zigbee)")
        #expect(zigbee["id_v1"] == "" && zigbee["status"] == "connected", "\(zigbee)")
        let mac = try #require(zigbee["mac_address"]?.stringValue)
        #expect(mac.wholeMatch(of: /00:17:88:01(:[0-9a-f]{2}){4}/) != nil, "\(mac)")
        let lights = try await v2.resources(bridge, "zigbee_connectivity").compactMap { $0["mac_address"] }
        #expect(Set(lights).count == lights.count, "each its own address")
    }

    /// A bridge lists `alert` for an on/off light as for any other (a real bridge's dump holds an on/off light
    /// with `"alert": {"action_values": ["breathe"]}`), and the light breathes for it as v1's `alert` makes it.
    @Test func anOnOffLightListsAndTakesTheBreatheAlert() async throws {
        let bridge = try await bridge()
        let plug = try await v2.light(bridge, named: "Plug")
        #expect(plug["alert"]?["action_values"] == ["breathe"], "\(plug)")
        let id = try #require(plug["id"]?.stringValue)
        let put = try await v2.v2(bridge, "PUT", "/clip/v2/resource/light/\(id)", #"{"alert": {"action": "breathe"}}"#)
        #expect(put.status == 200, "\(put.json)")
        #expect(try await bridge.answer("GET", "/lights/4")["state"]?["alert"] == "select")
    }

    /// A Hue smart plug (Signify's on/off light) lists no alert action and the function `functional`, as two
    /// recorded bridges list one (openHAB's v2 dump of two LOM003 plugs, and a LOM plug in a client's test:
    /// `"alert": {"action_values": []}`, `"function": "functional"`), so Home Assistant offers no flash for it;
    /// another maker's on/off light keeps the breathe, as recorded for one.
    @Test func aHueSmartPlugListsNoAlertAction() async throws {
        let home = """
            {"schema": 1, "id": "flat", "name": "Flat", "seed": 4, "defaults": {"latency": "instant"}, "rooms": [
              {"id": "den", "name": "Den", "lights": [
                {"id": "den.plug", "name": "Hue Plug", "kind": "onoff", "manufacturer": "Signify",
                 "product": "Hue smart plug"},
                {"id": "den.eve", "name": "Eve Plug", "kind": "onoff", "manufacturer": "Eve", "product": "Eve Energy"},
                {"id": "den.lamp", "name": "Lamp", "kind": "dimmable", "manufacturer": "Signify",
                 "product": "Hue White A60"}
              ]}
            ]}
            """
        let bridge = try await HueTestBridge(fixture: try Fixture(json: Array(home.utf8)))
        let plug = try await v2.light(bridge, named: "Hue Plug")
        #expect(plug["alert"] == ["action_values": []], "\(plug)")
        #expect(plug["metadata"]?["function"] == "functional" && plug["product_data"]?["function"] == "functional")
        let eve = try await v2.light(bridge, named: "Eve Plug")
        #expect(eve["alert"] == ["action_values": ["breathe"]], "\(eve)")
        let lamp = try await v2.light(bridge, named: "Lamp")
        #expect(lamp["alert"] == ["action_values": ["breathe"]] && lamp["metadata"]?["function"] == "mixed")
    }

    /// A grouped light's `dimming.brightness` is the mean of its lights that are on, and 0 while none is, as the
    /// API reference says ("average brightness of group containing turned-on lights only"); it lists
    /// `dynamics`, as a bridge does, for the transition it takes.
    @Test func aGroupedLightShowsTheMeanBrightnessOfItsLightsThatAreOn() async throws {
        let bridge = try await bridge()
        var den = try await groupedLight(bridge, of: "Den")
        #expect(den["dimming"]?["brightness"]?.doubleValue == 40, "\(den)")
        #expect(den["dynamics"] == [:], "\(den)")
        let id = try #require(den["id"]?.stringValue)
        let off = try await v2.v2(bridge, "PUT", "/clip/v2/resource/grouped_light/\(id)", #"{"on": {"on": false}}"#)
        #expect(off.status == 200, "\(off.json)")
        den = try await groupedLight(bridge, of: "Den")
        #expect(den["on"]?["on"] == false)
        #expect(den["dimming"]?["brightness"]?.doubleValue == 0, "\(den)")
    }

    /// `product_data.certified` is true for Signify's lights only, as a bridge reports a third party's light
    /// (certified lights' state is trusted by Home Assistant, which tracks an uncertified one's colour mode and
    /// availability itself).
    @Test func onlySignifysLightsAreCertified() async throws {
        let bridge = try await bridge()
        let devices = try await v2.resources(bridge, "device")
        func certified(_ name: String) -> JSONValue? {
            devices.first { $0["metadata"]?["name"]?.stringValue == name }?["product_data"]?["certified"]
        }
        #expect(certified("A") == true)
        #expect(certified("B") == false)
        #expect(certified("Plug") == false)
        #expect(certified("Flat") == true, "the bridge itself")
        // v1 says the same of each light.
        let lights = try await bridge.answer("GET", "/lights").objectValue?.members.map(\.value) ?? []
        func v1Certified(_ name: String) -> JSONValue? {
            lights.first { $0["name"]?.stringValue == name }?["capabilities"]?["certified"]
        }
        #expect(v1Certified("A") == true && v1Certified("B") == false && v1Certified("Plug") == false)
    }

    /// A bridge names Signify as "Signify Netherlands B.V." for each of its lights, however the home spells the
    /// maker (every recorded bridge's `product_data.manufacturer_name`, and v1's `manufacturername`), and another
    /// maker's light by its own name: Home Assistant shows it as the device's manufacturer.
    @Test func signifysLightsNameTheirMakerAsABridgeDoes() async throws {
        let bridge = try await bridge()
        let devices = try await v2.resources(bridge, "device")
        func v2Maker(_ name: String) -> JSONValue? {
            devices.first { $0["metadata"]?["name"]?.stringValue == name }?["product_data"]?["manufacturer_name"]
        }
        let lights = try await bridge.answer("GET", "/lights").objectValue?.members.map(\.value) ?? []
        func v1Maker(_ name: String) -> JSONValue? {
            lights.first { $0["name"]?.stringValue == name }?["manufacturername"]
        }
        #expect(v2Maker("A") == "Signify Netherlands B.V." && v1Maker("A") == "Signify Netherlands B.V.")
        #expect(v2Maker("B") == "IKEA" && v1Maker("B") == "IKEA")
        #expect(v2Maker("Plug") == "Eve" && v1Maker("Plug") == "Eve")
    }

    /// A light reports its maker's model: a Signify light the model ID of a Hue bulb of its kind, another maker's
    /// light its product, as such a light reports itself to a bridge (not a Hue model ID a Hue app would take for
    /// one of Signify's), through either API.
    @Test func aLightOfAnotherMakerReportsItsOwnModel() async throws {
        let bridge = try await bridge()
        let devices = try await v2.resources(bridge, "device")
        func v2Model(_ name: String) -> JSONValue? {
            devices.first { $0["metadata"]?["name"]?.stringValue == name }?["product_data"]?["model_id"]
        }
        let lights = try await bridge.answer("GET", "/lights").objectValue?.members.map(\.value) ?? []
        func v1Model(_ name: String) -> JSONValue? { lights.first { $0["name"]?.stringValue == name }?["modelid"] }
        #expect(v2Model("A") == "LWB010" && v1Model("A") == "LWB010")
        #expect(v2Model("B") == "TRADFRI E27" && v1Model("B") == "TRADFRI E27")
        #expect(v2Model("Plug") == "Eve Energy" && v1Model("Plug") == "Eve Energy")
    }
}
