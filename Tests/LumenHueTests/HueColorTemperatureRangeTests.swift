import LumenModel
import LumenProtocol
import Testing

@testable import LumenHue

/// Each light behind the bridge shows and takes its own colour temperatures, as a bridge lists each light's
/// (`capabilities.control.ct`, v2's `mirek_schema`) and brings a value past them into them: a LIFX Tile placed
/// behind the bridge takes 2,500–9,000 K (111–400 mireds), so 153–400 of the API's 153–500.
@Suite struct HueColorTemperatureRangeTests {
    let v2 = HueV2Tests()

    /// A LIFX Tile; a LIFX Mini White to Warm at 1,500 K (667 mireds, past the API's warmest); a LIFX A19 showing
    /// the white of 1,500 K: all behind the bridge.
    static let home = """
        {"schema": 1, "id": "flat", "name": "Flat", "seed": 4, "defaults": {"latency": "instant"}, "rooms": [
          {"id": "den", "name": "Den", "lights": [
            {"id": "den.tile", "name": "Tile", "kind": "color", "manufacturer": "LIFX", "product": "LIFX Tile",
             "network": "hue-bridge", "state": {"isOn": true, "colorTemperature": 250}},
            {"id": "den.bulb", "name": "Bulb", "kind": "ambiance", "manufacturer": "LIFX", "product": "LIFX Mini WW",
             "network": "hue-bridge", "state": {"isOn": true, "colorTemperature": 667}},
            {"id": "den.a19", "name": "A19", "kind": "color", "manufacturer": "LIFX", "product": "LIFX A19",
             "network": "hue-bridge", "state": {"isOn": true, "colorTemperature": 667}}
          ]}
        ]}
        """

    /// A bridge over ``home``, its user paired.
    func bridge() async throws -> HueTestBridge {
        try await HueTestBridge(fixture: try Fixture(json: Array(Self.home.utf8)))
    }

    /// `capabilities.control.ct` and `mirek_schema` give each light's range within the API's; a state past it
    /// reads as the nearer end.
    @Test func eachLightListsItsOwnRangeWithinTheAPIs() async throws {
        let bridge = try await bridge()
        let tile = try await bridge.answer("GET", "/lights/1")
        #expect(tile["capabilities"]?["control"]?["ct"] == ["min": 153, "max": 400], "\(tile)")
        let bulb = try await bridge.answer("GET", "/lights/2")
        #expect(bulb["capabilities"]?["control"]?["ct"] == ["min": 153, "max": 500], "\(bulb)")
        // A light warmer than the API reaches reads as the API's warmest.
        #expect(bulb["state"]?["ct"] == 500, "\(bulb)")
        let tileV2 = try await v2.light(bridge, named: "Tile")
        #expect(
            tileV2["color_temperature"]?["mirek_schema"] == ["mirek_minimum": 153, "mirek_maximum": 400], "\(tileV2)")
        let bulbV2 = try await v2.light(bridge, named: "Bulb")
        #expect(bulbV2["color_temperature"]?["mirek"] == 500, "\(bulbV2)")
    }

    /// A Hue White Ambiance light takes 2,200–6,500 K (153–454 mireds), as a bridge lists every recorded one
    /// (`mirek_schema` 153–454 for the LTW001, LTW013, LTA001 and LTC001 in openHAB's and aiohue's v2 dumps; v1's
    /// `ct` 153–454 for an LTW013), and brings a warmer value to 454; Signify's colour lights keep 153–500, as
    /// recorded, and another maker's ambiance light the API's range. Home Assistant shows the range a light
    /// lists as its warmest and coolest.
    @Test func aHueWhiteAmbianceLightTakesUpTo454Mireds() async throws {
        let home = """
            {"schema": 1, "id": "flat", "name": "Flat", "seed": 4, "defaults": {"latency": "instant"}, "rooms": [
              {"id": "den", "name": "Den", "lights": [
                {"id": "den.white", "name": "White", "kind": "ambiance", "manufacturer": "Signify",
                 "product": "Hue White Ambiance E27", "state": {"isOn": true, "colorTemperature": 300}},
                {"id": "den.color", "name": "Colour", "kind": "color", "manufacturer": "Signify",
                 "product": "Hue A19", "state": {"isOn": true, "colorTemperature": 500}},
                {"id": "den.ikea", "name": "IKEA", "kind": "ambiance", "manufacturer": "IKEA",
                 "product": "TRADFRI E27 WS", "family": "hue", "state": {"isOn": true, "colorTemperature": 500}}
              ]}
            ]}
            """
        let bridge = try await HueTestBridge(fixture: try Fixture(json: Array(home.utf8)))
        let white = try await bridge.answer("GET", "/lights/1")
        #expect(white["capabilities"]?["control"]?["ct"] == ["min": 153, "max": 454], "\(white)")
        let whiteV2 = try await v2.light(bridge, named: "White")
        #expect(
            whiteV2["color_temperature"]?["mirek_schema"] == ["mirek_minimum": 153, "mirek_maximum": 454],
            "\(whiteV2)")
        let id = try #require(whiteV2["id"]?.stringValue)
        let put = try await v2.v2(
            bridge, "PUT", "/clip/v2/resource/light/\(id)", #"{"color_temperature": {"mirek": 500}}"#)
        #expect(put.status == 200, "\(put.json)")
        #expect(try await v2.light(bridge, named: "White")["color_temperature"]?["mirek"] == 454)
        for name in ["Colour", "IKEA"] {
            let light = try await v2.light(bridge, named: name)
            #expect(
                light["color_temperature"]?["mirek_schema"] == ["mirek_minimum": 153, "mirek_maximum": 500],
                "\(light)")
        }
    }

    /// A colour light showing a white warmer than the API reaches still shows a white, the API's warmest: its
    /// colour mode stays `ct`, v2's `mirek` stays valid, and a scene stores it as `ct`.
    @Test func aColourLightShowingAWhitePastTheAPIsRangeStillShowsAWhite() async throws {
        let bridge = try await bridge()
        let a19 = try await bridge.answer("GET", "/lights/3")
        #expect(a19["state"]?["colormode"] == "ct" && a19["state"]?["ct"] == 500, "\(a19)")
        let a19V2 = try await v2.light(bridge, named: "A19")
        #expect(a19V2["color_temperature"]?["mirek_valid"] == true, "\(a19V2)")
        #expect(a19V2["color_temperature"]?["mirek"] == 500, "\(a19V2)")
        let scene = try await bridge.createScene(#"{"name": "Warm", "lights": ["3"], "recycle": false}"#)
        let stored = try await bridge.answer("GET", "/scenes/\(scene)")
        #expect(stored["lightstates"]?["3"]?["ct"] == 500, "\(stored)")
    }

    /// A value past a light's range, however it comes (the light's own `ct` or `ct_inc`, an app's group, a
    /// group's step from each light, a scene), is brought into it rather than refused.
    @Test func aColourTemperaturePastALightsRangeIsBroughtIntoIt() async throws {
        let bridge = try await bridge()
        let set = try await bridge.answer("PUT", "/lights/1/state", #"{"ct": 500}"#)
        #expect(set == [["success": ["/lights/1/state/ct": 500]]], "\(set)")
        #expect(try await bridge.answer("GET", "/lights/1")["state"]?["ct"] == 400)
        let step = try await bridge.answer("PUT", "/lights/1/state", #"{"ct_inc": -300}"#)
        #expect(step.arrayValue?.first?["success"] != nil, "\(step)")
        #expect(try await bridge.answer("GET", "/lights/1")["state"]?["ct"] == 153)
        let group = try await bridge.answer("PUT", "/groups/0/action", #"{"ct": 480}"#)
        #expect(group.arrayValue?.first?["success"] != nil, "\(group)")
        #expect(try await bridge.answer("GET", "/lights/1")["state"]?["ct"] == 400)
        #expect(try await bridge.answer("GET", "/lights/2")["state"]?["ct"] == 480)
        let tile = try #require(try await v2.light(bridge, named: "Tile")["id"]?.stringValue)
        let put = try await v2.v2(
            bridge, "PUT", "/clip/v2/resource/light/\(tile)", #"{"color_temperature": {"mirek": 454}}"#)
        #expect(put.status == 200, "\(put.json)")
        #expect(try await v2.light(bridge, named: "Tile")["color_temperature"]?["mirek"] == 400)
    }

    /// An app's group (`performEach`, each light its own change), a group's `ct_inc` from each light, a light's
    /// own `ct_inc` upwards, and a scene recalled, each stop at the Tile's warmest, 400 mireds.
    @Test func everyWayToTheTileStopsAtItsWarmest() async throws {
        let bridge = try await bridge()
        let tile = { try await bridge.answer("GET", "/lights/1")["state"]?["ct"] }
        let made = try await bridge.answer("POST", "/groups", #"{"name": "Mine", "lights": ["1", "2"]}"#)
        let group = try #require(made.arrayValue?.first?["success"]?["id"]?.stringValue, "\(made)")
        _ = try await bridge.answer("PUT", "/groups/\(group)/action", #"{"ct": 500}"#)
        #expect(try await tile() == 400)
        _ = try await bridge.answer("PUT", "/lights/1/state", #"{"ct": 300}"#)
        // A bridge takes one group command a second.
        try await bridge.home.advance(byMilliseconds: 1_000)
        let step = try await bridge.answer("PUT", "/groups/\(group)/action", #"{"ct_inc": 200}"#)
        #expect(try await tile() == 400, "\(step)")
        _ = try await bridge.answer("PUT", "/lights/1/state", #"{"ct": 300}"#)
        _ = try await bridge.answer("PUT", "/lights/1/state", #"{"ct_inc": 200}"#)
        #expect(try await tile() == 400)
        _ = try await bridge.answer("PUT", "/lights/1/state", #"{"ct": 300}"#)
        let scene = try await bridge.createScene(
            #"{"name": "Warm", "lights": ["1"], "recycle": false, "lightstates": {"1": {"on": true, "ct": 480}}}"#)
        try await bridge.home.advance(byMilliseconds: 1_000)
        let recall = try await bridge.answer("PUT", "/groups/0/action", #"{"scene": "\#(scene)"}"#)
        #expect(recall.arrayValue?.first?["success"] != nil, "\(recall)")
        #expect(try await tile() == 400)
    }
}
