import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import LumenTestSupport
import Testing

@testable import LumenHue

/// The Hue bridge's answers, request by request, over a home on the virtual clock (no HTTP: `make interop`
/// drives it through real clients).
@Suite("Hue bridge")
struct HueBridgeTests {
    static let home = """
        {"schema": 1, "id": "flat", "name": "Flat", "seed": 4, "defaults": {"latency": "instant"}, "rooms": [
          {"id": "den", "name": "Den", "lights": [
            {"id": "den.lamp", "name": "Lamp", "kind": "color", "manufacturer": "Signify", "product": "Hue A19",
             "state": {"isOn": false, "brightness": 40}},
            {"id": "den.bulb", "name": "Bulb", "kind": "color", "manufacturer": "LIFX", "product": "LIFX A19"},
            {"id": "den.plug", "name": "Plug", "kind": "onoff", "state": {"isOn": false}}
          ], "undiscovered": [{"delayMs": 5000, "light": {"id": "den.new", "name": "New", "kind": "dimmable"}}]},
          {"id": "hall", "name": "Hall", "lights": [
            {"id": "hall.spot", "name": "Spot", "kind": "ambiance", "family": "generic"}]}
        ]}
        """

    /// What every client sends: the bridge's address as `Host`.
    static let headers = ["host": "127.0.0.1"]

    let home: Home
    let bridge: HueBridge

    init() throws {
        home = Home(fixture: try Fixture(json: Array(Self.home.utf8)), clock: .virtual)
        bridge = HueBridge(scopeContext: ScopeContext(home: home))
    }

    /// The bridge's answer, advancing the clock until it comes, and its body as JSON.
    func answer(_ method: String, _ path: String, _ body: String = "") async throws -> (status: Int, json: JSONValue) {
        let request = HTTPRequest(method: method, path: path, headers: Self.headers, body: Array(body.utf8))
        guard case .later(let work) = try #require(bridge.respond(to: request)) else {
            Issue.record("answered at once")
            return (0, .null)
        }
        let response = try await home.driving(work)
        return (response.status, try JSONParser.parse(response.body))
    }

    func pair() async throws -> String {
        await bridge.pressLinkButton()
        let (_, json) = try await answer("POST", "/api", #"{"devicetype": "tests#swift"}"#)
        return try #require(json.arrayValue?.first?["success"]?["username"]?.stringValue)
    }

    @Test func pairingNeedsTheLinkButtonForThirtySeconds() async throws {
        #expect(
            try await answer("POST", "/api", #"{"devicetype": "x#y"}"#).json.arrayValue?.first?["error"]?["type"] == 101
        )
        await bridge.pressLinkButton()
        try await home.advance(byMilliseconds: 29_000)
        let user = try await pair()
        #expect(user.count == 40)
        try await home.advance(byMilliseconds: 31_000)
        #expect(
            try await answer("POST", "/api", #"{"devicetype": "x#y"}"#).json.arrayValue?.first?["error"]?["type"] == 101
        )
        // Kept in the state, and known to the bridge.
        #expect(await bridge.users.map(\.username).contains(user))
        #expect(try await answer("POST", "/api", #"{"devicetype": 3}"#).json.arrayValue?.first?["error"]?["type"] == 7)
        #expect(try await answer("POST", "/api", "not json").json.arrayValue?.first?["error"]?["type"] == 2)
    }

    @Test func anUnknownUserIsUnauthorizedButMayReadTheShortConfig() async throws {
        #expect(try await answer("GET", "/api/nobody/lights").json.arrayValue?.first?["error"]?["type"] == 1)
        let config = try await answer("GET", "/api/nobody/config").json
        #expect(config["name"] == "Flat" && config["bridgeid"]?.stringValue?.hasPrefix("001788FFFE") == true)
        #expect(try await answer("GET", "/api/config").json == config)
        #expect(bridge.respond(to: HTTPRequest(method: "GET", path: "/other")) == nil)
    }

    @Test func theLightsBehindTheBridgeAreListedByStableNumbers() async throws {
        let user = try await pair()
        let lights = try await answer("GET", "/api/\(user)/lights/").json
        // The LIFX bulb is on the LAN: its number is kept but it is not listed.
        #expect(lights.objectValue?.keys.sorted() == ["1", "3", "4"])
        #expect(lights["1"]?["type"] == "Extended color light")
        #expect(lights["1"]?["state"]?["bri"] == 101 && lights["1"]?["state"]?["on"] == false)
        #expect(lights["3"]?["type"] == "On/Off plug-in unit" && lights["3"]?["state"]?["bri"] == nil)
        let groups = try await answer("GET", "/api/\(user)/groups").json
        #expect(groups["1"]?["name"] == "Den" && groups["1"]?["lights"] == ["1", "3"])
        #expect(try await answer("GET", "/api/\(user)/groups/0").json["lights"] == ["1", "3", "4"])
        // A light added later gets the next number; one removed keeps its number unused.
        try await home.removeLight("den.plug")
        try await home.addLight(
            LightFixture(
                id: "den.strip", name: "Strip", model: DeviceModel(kind: .dimmable, manufacturer: "Acme", product: "S")),
            to: "den")
        let after = try await answer("GET", "/api/\(user)/lights").json
        #expect(after.objectValue?.keys.sorted() == ["1", "4", "5"])
    }

    @Test func aStateCommandIsOneCommandAnsweredWithTheSuccessList() async throws {
        let user = try await pair()
        let (status, json) = try await answer(
            "PUT", "/api/\(user)/lights/1/state", #"{"on": true, "bri": 254, "xy": [0.3, 0.4], "transitiontime": 0}"#)
        #expect(status == 200)
        #expect(
            json == [
                ["success": ["/lights/1/state/on": true]], ["success": ["/lights/1/state/bri": 254]],
                ["success": ["/lights/1/state/xy": [0.3, 0.4]]], ["success": ["/lights/1/state/transitiontime": 0]],
            ])
        let state = try await home.light("den.lamp").state
        #expect(state.isOn && state.brightness == 100 && state.color == CIEColor(x: 0.3, y: 0.4))
        // One command, recorded as the app's: `hue` and a tag drawn from its name, which holds none of it.
        let sender = try #require(await home.commandRecords(light: "den.lamp").map(\.source).first)
        #expect(await home.commandRecords(light: "den.lamp").count == 1)
        #expect(sender.hasPrefix("hue ") && sender.count == 12 && !sender.contains(user.prefix(4)), "\(sender)")
        _ = try await answer("PUT", "/api/\(user)/groups/0/action", #"{"on": false}"#)
        #expect(await home.commandRecords(light: "den.lamp").last?.source == sender)
    }

    @Test func everyCommandThroughTheBridgeIsRecordedAsTheApps() async throws {
        let user = try await pair()
        // The answer, checked a success, with the clock moved on after it: the bridge takes about a group
        // command a second.
        func send(_ method: String, _ path: String, _ body: String) async throws -> JSONValue {
            let (_, json) = try await answer(method, "/api/\(user)\(path)", body)
            try await home.advance(byMilliseconds: 2_000)
            #expect(json.arrayValue?.first?["success"] != nil, "\(path): \(json)")
            return json
        }
        _ = try await send("PUT", "/lights/1/state", #"{"on": true, "transitiontime": 0}"#)
        _ = try await send("PUT", "/groups/1/action", #"{"on": false, "transitiontime": 0}"#)
        let created = try await send("POST", "/groups", #"{"name": "Pair", "lights": ["1", "4"]}"#)
        let group = try #require(created.arrayValue?.first?["success"]?["id"]?.stringValue)
        _ = try await send("PUT", "/groups/\(group)/action", #"{"on": true, "transitiontime": 0}"#)
        let stored = try await send("POST", "/scenes", #"{"name": "Lit", "lights": ["1"]}"#)
        let scene = try #require(stored.arrayValue?.first?["success"]?["id"]?.stringValue)
        _ = try await send("PUT", "/groups/0/action", #"{"on": false}"#)
        _ = try await send("PUT", "/groups/0/action", #"{"scene": "\#(scene)"}"#)
        // A light's command, a room's, a created group's, group 0's and a scene's recall: each the app's.
        let sources = await home.commandRecords().map(\.source)
        #expect(sources.count == 9)
        #expect(Set(sources) == [HueBridge.sender(user)])
    }

    /// A bridge reports the state it accepted as soon as it answers; the fade goes on in the bulb, out of sight.
    @Test func aConfirmedCommandReadsBackAsItsTargetNotMidFade() async throws {
        let user = try await pair()
        _ = try await answer("PUT", "/api/\(user)/lights/1/state", #"{"on": true, "bri": 200, "transitiontime": 20}"#)
        #expect(try await home.light("den.lamp").state.brightness < 78, "the lamp itself is still fading")
        var (_, light) = try await answer("GET", "/api/\(user)/lights/1")
        #expect(light["state"]?["on"] == true && light["state"]?["bri"] == 200)
        let (_, group) = try await answer("GET", "/api/\(user)/groups/1")
        #expect(group["action"]?["bri"] == 200 && group["state"]?["any_on"] == true)
        // Halfway through the two seconds' fade, the lamp shows on; told off, it fades off from there.
        try await home.advance(byMilliseconds: 1_000)
        _ = try await answer("PUT", "/api/\(user)/lights/1/state", #"{"on": false, "transitiontime": 20}"#)
        #expect(try await home.light("den.lamp").state.isOn, "the lamp itself is still fading off")
        (_, light) = try await answer("GET", "/api/\(user)/lights/1")
        #expect(light["state"]?["on"] == false)
    }

    /// `hue` and `sat` read back as sent; a colour temperature set last shows as `colormode` `ct`, a colour as
    /// `xy`, as a bridge reports what it was told last.
    @Test func aColourReadsBackAsSentAndTheColourModeFollowsWhatWasSetLast() async throws {
        let user = try await pair()
        for (hue, sat) in [(0, 254), (21_845, 254), (43_690, 254), (43_690, 200), (65_535, 100), (7_000, 30)] {
            _ = try await answer(
                "PUT", "/api/\(user)/lights/1/state",
                #"{"on": true, "hue": \#(hue), "sat": \#(sat), "transitiontime": 0}"#)
            let (_, light) = try await answer("GET", "/api/\(user)/lights/1")
            let readHue = try #require(light["state"]?["hue"]?.intValue)
            #expect(min(abs(readHue - hue), 65_536 - abs(readHue - hue)) <= 1, "hue \(hue) read back as \(readHue)")
            #expect(light["state"]?["sat"]?.intValue == sat && light["state"]?["colormode"] == "xy")
        }
        _ = try await answer("PUT", "/api/\(user)/lights/1/state", #"{"ct": 250, "transitiontime": 0}"#)
        var (_, light) = try await answer("GET", "/api/\(user)/lights/1")
        #expect(light["state"]?["colormode"] == "ct" && light["state"]?["ct"] == 250)
        let white = CIEColor(mireds: 250)
        #expect(light["state"]?["xy"] == [.double(white.x), .double(white.y)], "the white of 250 mireds")
        _ = try await answer("PUT", "/api/\(user)/lights/1/state", #"{"xy": [0.2, 0.3], "transitiontime": 0}"#)
        (_, light) = try await answer("GET", "/api/\(user)/lights/1")
        #expect(light["state"]?["colormode"] == "xy" && light["state"]?["xy"] == [0.2, 0.3])
    }

    @Test func badParametersAndRefusalsAreHueErrors() async throws {
        let user = try await pair()
        func type(_ path: String, _ body: String) async throws -> JSONValue? {
            try await answer("PUT", "/api/\(user)\(path)", body).json.arrayValue?.first?["error"]?["type"]
        }
        #expect(try await type("/lights/3/state", #"{"bri": 100}"#) == 6)
        #expect(try await type("/lights/1/state", #"{"bri": 300}"#) == 7)
        #expect(try await type("/lights/1/state", #"{"on": "yes"}"#) == 7)
        #expect(try await type("/lights/1/state", #"{"colour": 1}"#) == 6)
        #expect(try await type("/lights/9/state", #"{"on": true}"#) == 3)
        // A group that does not exist is not there, whatever the body asks.
        #expect(try await type("/groups/99/action", #"{"on": true}"#) == 3)
        #expect(try await type("/groups/99/action", "{}") == 3)
        #expect(try await type("/groups/x/action", #"{"on": true}"#) == 3)
        #expect(try await type("/lights/1/state", "") == 5)
        #expect(try await type("/lights/1/state", "[1]") == 5)
        // A Hue light that is off takes no brightness alone.
        let off = try await answer("PUT", "/api/\(user)/lights/1/state", #"{"bri": 10}"#).json.arrayValue?.first?[
            "error"]
        #expect(off?["type"] == 201 && off?["address"] == "/lights/1/state/bri")
        #expect(try await answer("DELETE", "/api/\(user)/lights").json.arrayValue?.first?["error"]?["type"] == 4)
        #expect(try await answer("GET", "/api/\(user)/sensors").json == [:])
    }

    /// `transitiontime` takes a bridge's whole range, 65535 tenths of a second (some 1.8 hours: a long sunrise an
    /// automation asks for), and refuses more.
    @Test func aTransitionTakesTheWholeRangeOfABridge() async throws {
        let user = try await pair()
        let longest = try await answer(
            "PUT", "/api/\(user)/lights/1/state", #"{"on": true, "bri": 254, "transitiontime": 65535}"#)
        #expect(longest.json.arrayValue?.allSatisfy { $0["success"] != nil } == true, "\(longest.json)")
        #expect(await home.commandRecords(light: "den.lamp").last?.transitionMs == 6_553_500)
        let over = try await answer("PUT", "/api/\(user)/lights/1/state", #"{"transitiontime": 65536}"#)
        #expect(over.json.arrayValue?.first?["error"]?["type"] == 7, "\(over.json)")
    }

    /// A bridge answers each parameter of a light's state or a group's action for itself and takes those it can:
    /// an app that sends back the state it read (with `colormode` and `reachable`) still sets the light.
    @Test func aStateWithSomeParametersRefusedTakesTheOthers() async throws {
        let user = try await pair()
        func entries(_ path: String, _ body: String) async throws -> [String] {
            try await answer("PUT", "/api/\(user)\(path)", body).json.arrayValue?.map { entry in
                if let success = entry["success"]?.objectValue { return "ok \(success.keys.joined())" }
                return "\(entry["error"]?["type"]?.intValue ?? 0) \(entry["error"]?["address"]?.stringValue ?? "")"
            } ?? []
        }
        #expect(
            try await entries("/lights/1/state", #"{"on": true, "bri": 300, "transitiontime": 0}"#) == [
                "ok /lights/1/state/on", "7 /lights/1/state/bri", "ok /lights/1/state/transitiontime",
            ])
        var (_, light) = try await answer("GET", "/api/\(user)/lights/1")
        #expect(light["state"]?["on"] == true)
        // The state read, sent back with another brightness.
        var state = try #require(light["state"]?.objectValue)
        state["bri"] = 100
        state["transitiontime"] = 0
        let sent = JSONValue.object(state).serialized()
        let answered = try await entries("/lights/1/state", sent)
        #expect(answered.contains("6 /lights/1/state/colormode") && answered.contains("6 /lights/1/state/reachable"))
        #expect(answered.contains("ok /lights/1/state/bri"), "\(answered)")
        (_, light) = try await answer("GET", "/api/\(user)/lights/1")
        #expect(light["state"]?["bri"] == 100)
        // A parameter the light lacks is refused alone.
        #expect(
            try await entries("/lights/3/state", #"{"bri": 100, "on": true}"#) == [
                "6 /lights/3/state/bri", "ok /lights/3/state/on",
            ])
        (_, light) = try await answer("GET", "/api/\(user)/lights/3")
        #expect(light["state"]?["on"] == true)
        // A group's action alike.
        #expect(
            try await entries("/groups/0/action", #"{"on": false, "sat": 255}"#) == [
                "ok /groups/0/action/on", "7 /groups/0/action/sat",
            ])
        (_, light) = try await answer("GET", "/api/\(user)/lights/1")
        #expect(light["state"]?["on"] == false)
    }

    /// `sat` without `hue` (or `hue` without `sat`) keeps the light's other half, as a bridge does: sent alone, or
    /// beside a `hue` refused.
    @Test func aSatAloneKeepsTheLightsHue() async throws {
        let user = try await pair()
        func hueAndSat() async throws -> (JSONValue?, JSONValue?) {
            let state = try await answer("GET", "/api/\(user)/lights/1").json["state"]
            return (state?["hue"], state?["sat"])
        }
        _ = try await answer(
            "PUT", "/api/\(user)/lights/1/state", #"{"on": true, "hue": 25500, "sat": 254, "transitiontime": 0}"#)
        _ = try await answer("PUT", "/api/\(user)/lights/1/state", #"{"sat": 200, "transitiontime": 0}"#)
        #expect(try await hueAndSat() == (25500, 200))
        _ = try await answer(
            "PUT", "/api/\(user)/lights/1/state", #"{"hue": 70000, "sat": 150, "transitiontime": 0}"#)
        #expect(try await hueAndSat() == (25500, 150))
        _ = try await answer("PUT", "/api/\(user)/lights/1/state", #"{"hue": 46920, "transitiontime": 0}"#)
        #expect(try await hueAndSat() == (46920, 150))
        // A group's lights each keep their own.
        _ = try await answer("PUT", "/api/\(user)/groups/0/action", #"{"sat": 100, "transitiontime": 0}"#)
        #expect(try await hueAndSat() == (46920, 100))
    }

    /// A colour given leaves out the colour's increments beside it, and a group whose lights take nothing else of
    /// an action still takes its `alert`; a scene's stored `sat` alone keeps each light's hue when recalled.
    @Test func incrementsYieldToAColourAnAlertIsTakenAloneAndASceneSatKeepsTheHue() async throws {
        let user = try await pair()
        func state(of light: Int) async throws -> JSONValue? {
            try await answer("GET", "/api/\(user)/lights/\(light)").json["state"]
        }
        _ = try await answer(
            "PUT", "/api/\(user)/lights/1/state", #"{"on": true, "hue": 25500, "sat": 254, "transitiontime": 0}"#)
        _ = try await answer(
            "PUT", "/api/\(user)/lights/1/state", #"{"hue": 1000, "xy_inc": [0.1, 0], "transitiontime": 0}"#)
        #expect(try await state(of: 1)?["hue"] == 1000)
        _ = try await answer(
            "PUT", "/api/\(user)/lights/1/state", #"{"ct": 300, "hue_inc": 5000, "transitiontime": 0}"#)
        #expect(try await state(of: 1)?["colormode"] == "ct")
        // The hall's one light takes colour temperatures alone: a `sat` is nothing to it, the `alert` is.
        _ = try await answer("PUT", "/api/\(user)/lights/4/state", #"{"on": true, "transitiontime": 0}"#)
        _ = try await answer("PUT", "/api/\(user)/groups/2/action", #"{"sat": 100, "alert": "lselect"}"#)
        #expect(try await state(of: 4)?["alert"] == "lselect")
        // A scene that stores a saturation alone.
        let made = try await answer(
            "POST", "/api/\(user)/scenes",
            #"{"name": "Pale", "lights": ["1"], "lightstates": {"1": {"on": true, "sat": 100}}}"#)
        let scene = try #require(made.json.arrayValue?.first?["success"]?["id"]?.stringValue)
        _ = try await answer(
            "PUT", "/api/\(user)/lights/1/state", #"{"hue": 46920, "sat": 254, "transitiontime": 0}"#)
        _ = try await answer("PUT", "/api/\(user)/groups/0/action", #"{"scene": "\#(scene)"}"#)
        try await home.advance(byMilliseconds: 1_000)
        let recalled = try await state(of: 1)
        #expect(recalled?["hue"] == 46920 && recalled?["sat"] == 100, "\(recalled as Any)")
    }

    /// Colours given more than one way are taken as a bridge takes them, `xy` before `ct` before `hue` and `sat`:
    /// a state read back (which has them all) and sent again keeps the light in its colour mode.
    @Test func xyComesBeforeCtBeforeHueAndSat() async throws {
        let user = try await pair()
        func state(after body: String) async throws -> JSONValue? {
            _ = try await answer("PUT", "/api/\(user)/lights/1/state", body)
            return try await answer("GET", "/api/\(user)/lights/1").json["state"]
        }
        var read = try await state(after: #"{"on": true, "xy": [0.2, 0.3], "hue": 0, "sat": 254, "transitiontime": 0}"#)
        #expect(read?["colormode"] == "xy" && read?["xy"] == [0.2, 0.3])
        read = try await state(after: #"{"ct": 250, "hue": 0, "sat": 254, "transitiontime": 0}"#)
        #expect(read?["colormode"] == "ct" && read?["ct"] == 250)
        read = try await state(after: #"{"ct": 300, "xy": [0.3, 0.2], "transitiontime": 0}"#)
        #expect(read?["colormode"] == "xy" && read?["xy"] == [0.3, 0.2])
        read = try await state(after: #"{"ct": 300, "sat": 100, "transitiontime": 0}"#)
        #expect(read?["colormode"] == "ct" && read?["ct"] == 300)
    }

    @Test func aFloodIsAnsweredTooManyRequests() async throws {
        let user = try await pair()
        var statuses: [Int] = []
        for level in 1...12 {
            statuses.append(
                try await answer("PUT", "/api/\(user)/lights/1/state", #"{"on": true, "bri": \#(level)}"#).status)
            // Ten light commands a second: one every 100 ms is within the budget however many are sent.
            try await home.advance(byMilliseconds: 100)
        }
        #expect(statuses.allSatisfy { $0 == 200 })
        let request = HTTPRequest(
            method: "PUT", path: "/api/\(user)/lights/1/state", headers: Self.headers,
            body: Array(#"{"on": true}"#.utf8))
        var codes: [Int] = []
        // On a clock that does not move, the bridge's budget does not refill.
        for _ in 0..<12 {
            guard case .later(let work) = bridge.respond(to: request) else { continue }
            codes.append(try await home.driving(work).status)
        }
        #expect(codes.contains(429))
    }

    @Test func aGroupActionAndASearchAndARename() async throws {
        let user = try await pair()
        let action = try await answer("PUT", "/api/\(user)/groups/1/action", #"{"on": true}"#)
        #expect(action.json == [["success": ["/groups/1/action/on": true]]])
        #expect(try await home.light("den.lamp").state.isOn)
        #expect(try await home.light("den.plug").state.isOn)
        // The LIFX bulb is on the LAN, not in the bridge's group.
        #expect(await home.commandRecords(light: "den.bulb").isEmpty)
        #expect(try await answer("POST", "/api/\(user)/lights").json.arrayValue?.first?["success"] != nil)
        #expect(try await answer("GET", "/api/\(user)/lights/new").json["lastscan"] == "active")
        try await home.advance(byMilliseconds: 60_000)
        let found = try await answer("GET", "/api/\(user)/lights/new").json
        #expect(found["5"]?["name"] == "New" && found["lastscan"]?.stringValue?.count == 19)
        let renamed = try await answer("PUT", "/api/\(user)/lights/1", #"{"name": "Big"}"#).json
        #expect(renamed == [["success": ["/lights/1/name": "Big"]]])
        #expect(try await home.light("den.lamp").name == "Big")
    }

    @Test func valuesMapBothWays() {
        #expect(HueValues.brightness(bri: 1) == 1 && HueValues.brightness(bri: 254) == 100)
        for bri in 1...254 { #expect(HueValues.bri(brightness: HueValues.brightness(bri: bri)) == bri) }
        #expect(HueValues.mireds(ct: 100) == 153 && HueValues.mireds(ct: 600) == 500)
        #expect(HueValues.uniqueID(of: "den.lamp").hasPrefix("00:17:88:01:"))
        let red = HueValues.color(hue: 0, sat: 254)
        #expect(red.x > 0.6 && red.y < 0.35)
    }

    @Test func theBridgesMemoryIsSavedAndReadBack() async throws {
        let user = try await pair()
        let snapshot = await home.snapshot()
        let read = try Fixture(json: Array(snapshot.jsonValue.serialized().utf8))
        #expect(read.fronts == snapshot.fronts)
        let journaled = try Fixture(json: Array(Self.home.utf8)).applying([.front("hue", snapshot.fronts["hue"]!)])
        #expect(try HueBridgeState(record: journaled.fronts["hue"]).users.map(\.username) == [user])
        let again = HueBridge(scopeContext: ScopeContext(home: Home(fixture: read, clock: .virtual)))
        #expect(await again.lights().map(\.number) == [1, 3, 4])
        #expect(await again.users.map(\.username) == [user])
    }

    @Test func aJournalLineAsLumendAlwaysWroteItIsTheBridgesRecord() async throws {
        let line = #"""
            {"hue": {"users": [{"username": "old-user", "devicetype": "a#b", "createdMs": 0}],
            "lights": {"den.plug": 7}, "rooms": {"den": 2}, "pairings": 1}}
            """#
        let record = try StateRecord(cursor: JSONCursor(JSONParser.parse(Array(line.utf8))))
        let fixture = try Fixture(json: Array(Self.home.utf8)).applying([record])
        #expect(fixture.jsonValue["hue"]?["users"]?.arrayValue?.first?["username"] == "old-user")
        let old = HueBridge(scopeContext: ScopeContext(home: Home(fixture: fixture, clock: .virtual)))
        #expect(await old.users.map(\.username) == ["old-user"])
        #expect(await old.lights().first { $0.light.id == "den.plug" }?.number == 7)
    }

    @Test func pairingAfterARestartGivesANewNameAndTheBridgeKeepsSixtyFourByDefault() async throws {
        let first = try await pair()
        let again = HueBridge(scopeContext: ScopeContext(home: Home(fixture: await home.snapshot(), clock: .virtual)))
        await again.setPairingOpen(true)
        let second = try await again.pair(deviceType: "tests#again", username: nil).user.username
        #expect(second != first)
        for index in 0..<70 { _ = try await again.pair(deviceType: "tests#\(index)", username: nil) }
        let users = await again.users
        #expect(users.count == HueBridge.defaultUserLimit)
        #expect(Set(users.map(\.username)).count == users.count)
        #expect(!users.map(\.username).contains(first), "the user unused longest is forgotten")
    }

    /// Over a clock that runs itself, every wait of a request to the bridge is one the home counts: a light's
    /// command, a room's and group 0's are each answered once their lights take them, with nobody moving the clock.
    @Test(.timeLimit(.minutes(1))) func overAClockThatRunsItselfEveryRequestIsAnsweredWhenItsLightsTakeIt() async throws
    {
        let json = Self.home.replacing(#""latency": "instant""#, with: #""latency": {"kind": "fixed", "ms": 250}"#)
        let home = Home(fixture: try Fixture(json: Array(json.utf8)), clock: .virtual, runsItself: true)
        let bridge = HueBridge(scopeContext: ScopeContext(home: home))
        try await bridge.pairUser("tests", deviceType: "tests#swift")
        func status(_ method: String, _ path: String, _ body: String) async throws -> Int {
            let request = HTTPRequest(
                method: method, path: "/api/tests\(path)", headers: Self.headers, body: Array(body.utf8))
            guard case .later(let work) = try #require(bridge.respond(to: request)) else { return 0 }
            return await work().status
        }
        #expect(try await status("PUT", "/lights/1/state", #"{"on": true, "transitiontime": 0}"#) == 200)
        #expect(await home.nowMilliseconds == 250)
        #expect(try await status("PUT", "/groups/1/action", #"{"on": false}"#) == 200)
        #expect(await home.nowMilliseconds == 500)
        try await home.sleep(milliseconds: 1_000)
        #expect(try await status("PUT", "/groups/0/action", #"{"on": true}"#) == 200)
        #expect(await home.nowMilliseconds == 1_750)
        await home.shutDown()
    }

    @Test func groupZeroIsOneGroupCommand() async throws {
        let user = try await pair()
        let all = try await answer("PUT", "/api/\(user)/groups/0/action", #"{"on": true, "transitiontime": 0}"#)
        #expect(
            all.json == [
                ["success": ["/groups/0/action/on": true]], ["success": ["/groups/0/action/transitiontime": 0]],
            ])
        #expect(try await home.light("hall.spot").state.isOn)
        // A second later the bridge takes one group command, and a second in the same instant is too many.
        try await home.advance(byMilliseconds: 1_000)
        let request = HTTPRequest(
            method: "PUT", path: "/api/\(user)/groups/0/action", headers: Self.headers,
            body: Array(#"{"on": false}"#.utf8))
        var statuses: [Int] = []
        for _ in 0..<2 {
            guard case .later(let work) = bridge.respond(to: request) else { continue }
            statuses.append(try await home.driving(work).status)
        }
        #expect(statuses == [200, 429])
    }
}
