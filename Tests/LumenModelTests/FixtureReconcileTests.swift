import LumenModel
import LumenProtocol
import Testing

/// A saved state reconciled with its edited fixture: the home is the fixture's, the lights keep their state.
@Suite("A saved state and its edited fixture")
struct FixtureReconcileTests {
    static let before = """
        {"schema": 1, "id": "flat", "name": "Flat", "seed": 1, "rooms": [
          {"id": "hall", "name": "Hall", "lights": [
            {"id": "hall.lamp", "name": "Lamp", "kind": "dimmable", "state": {"isOn": false, "brightness": 10}},
            {"id": "hall.spot", "name": "Spot", "kind": "dimmable"},
            {"id": "hall.strip", "name": "Strip", "kind": "dimmable"}
          ], "undiscovered": [{"delayMs": 100, "light": {"id": "hall.new", "name": "New", "kind": "onoff"}}]}
        ]}
        """

    static let after = """
        {"schema": 1, "id": "flat", "name": "Flat, edited", "seed": 2, "rooms": [
          {"id": "hall", "name": "Entrance", "lights": [
            {"id": "hall.strip", "name": "Strip", "kind": "color"},
            {"id": "hall.lamp", "name": "Big lamp", "kind": "dimmable", "latency": "hue-zigbee",
             "state": {"isOn": false, "brightness": 90}},
            {"id": "hall.fan", "name": "Fan", "kind": "onoff"}
          ], "undiscovered": [{"delayMs": 100, "light": {"id": "hall.new", "name": "New", "kind": "onoff"}}]}
        ],
        "hue": {"users": [{"username": "fixed-app", "devicetype": "test", "createdMs": 0}], "lights": {}, "rooms": {}}}
        """

    /// The state as lumend saved it: the lamp turned on, the new light found, an app paired.
    func saved() throws -> Fixture {
        var state = try Fixture(json: Array(Self.before.utf8))
        state.rooms[0].lights[0].state.isOn = true
        state.rooms[0].lights[0].state.brightness = 42
        state.rooms[0].lights[0].isReachable = false
        var found = state.rooms[0].undiscovered.removeFirst().light
        found.state.isOn = true
        state.rooms[0].lights.append(found)
        state.fronts["hue"] = ["users": [["username": "paired-app", "devicetype": "app#phone", "createdMs": 5]]]
        state.generation = 9
        return state
    }

    @Test func theHomeIsTheFixturesAndEachLightKeepsItsSavedState() throws {
        let edited = try Fixture(json: Array(Self.after.utf8))
        let (home, report) = edited.reconciled(keeping: try saved())
        #expect(home.name == "Flat, edited" && home.seed == 2 && home.rooms[0].name == "Entrance")
        #expect(home.rooms[0].lights.map(\.id) == ["hall.strip", "hall.lamp", "hall.fan", "hall.new"])
        let lamp = home.rooms[0].lights[1]
        #expect(lamp.name == "Big lamp" && lamp.settings == edited.rooms[0].lights[1].settings)
        #expect(lamp.state.isOn && lamp.state.brightness == 42 && !lamp.isReachable)
        // The strip became a colour light: the saved state of a dimmable one is not carried over.
        #expect(home.rooms[0].lights[0].state == edited.rooms[0].lights[0].state)
        #expect(home.rooms[0].lights[3].state.isOn && home.rooms[0].undiscovered.isEmpty)
        // The bridge's own record, as it saved it: the fixture's applies only to a bridge that saved none.
        #expect(home.fronts["hue"]?["users"]?.arrayValue?.first?["username"] == "paired-app")
        #expect(home.generation == 9)
        #expect(report.added == ["hall.fan"] && report.removed == ["hall.spot"])
        #expect(report.restarted == ["hall.strip"] && report.keptDiscovered == ["hall.new"])
        #expect(
            report.summary(kept: 2)
                == "2 lights kept their saved state; added from the fixture: hall.fan; removed, as the fixture no "
                + "longer has them: hall.spot; in the fixture's state, as their kind changed: hall.strip; kept as "
                + "discovered: hall.new")
    }

    @Test func aFrontThatSavedNoRecordStartsFromTheFixtures() throws {
        var state = try saved()
        state.fronts = [:]
        let (home, _) = try Fixture(json: Array(Self.after.utf8)).reconciled(keeping: state)
        #expect(home.fronts["hue"]?["users"]?.arrayValue?.first?["username"] == "fixed-app")
    }

    /// A light whose edited fixture makes it take other colour temperatures (an A19 made a Tile) keeps its saved
    /// state with its colour temperature brought to the nearer end of what it now takes: it does not hold a value no
    /// front could read back and send again, and it is not switched back to the fixture's state for it.
    @Test func aLightWhoseSavedColourTemperatureNoLongerFitsKeepsItsStateBroughtIntoRange() throws {
        let bulb =
            #"{"id": "den.bulb", "name": "Bulb", "kind": "color", "manufacturer": "LIFX", "product": "LIFX A19"}"#
        let before =
            #"{"schema": 1, "id": "flat", "name": "Flat", "seed": 1, "rooms": [{"id": "den", "name": "Den", "lights": [\#(bulb), \#(bulb.replacingOccurrences(of: "den.bulb", with: "den.warm"))]}]}"#
        var state = try Fixture(json: Array(before.utf8))
        // Showing the white of 1,500 K, as a colour light set to that temperature does.
        state.rooms[0].lights[0].state.colorTemperature = 667
        state.rooms[0].lights[0].state.color = CIEColor(mireds: 667)
        state.rooms[0].lights[0].state.brightness = 30
        state.rooms[0].lights[1].state.colorTemperature = 300
        state.generation = 4
        let edited = try Fixture(json: Array(before.replacingOccurrences(of: "LIFX A19", with: "LIFX Tile").utf8))
        let (home, report) = edited.reconciled(keeping: state)
        var expected = state.rooms[0].lights[0].state
        expected.colorTemperature = 400
        expected.color = CIEColor(mireds: 400)
        #expect(home.rooms[0].lights[0].state == expected, "its state kept, at the Tile's warmest white, 2,500 K")
        #expect(home.rooms[0].lights[0].state.showsColorTemperature)
        #expect(home.rooms[0].lights[1].state.colorTemperature == 300, "a saved state that fits is kept")
        #expect(report.restarted == [] && report.broughtIntoRange == ["den.bulb"])
        #expect(
            report.summary(kept: 2)
                == "2 lights kept their saved state; their colour temperature brought into what they now take: "
                + "den.bulb")
    }

    /// A light a scan had found keeps its saved state by the same rule, its colour temperature brought into what
    /// the fixture's light takes.
    @Test func aFoundLightWhoseSavedColourTemperatureNoLongerFitsKeepsItsStateBroughtIntoRange() throws {
        let before =
            #"{"schema": 1, "id": "flat", "name": "Flat", "seed": 1, "rooms": [{"id": "den", "name": "Den", "lights": [], "undiscovered": [{"delayMs": 100, "light": {"id": "den.bulb", "name": "Bulb", "kind": "color", "manufacturer": "LIFX", "product": "LIFX A19"}}]}]}"#
        var state = try Fixture(json: Array(before.utf8))
        var found = state.rooms[0].undiscovered.removeFirst().light
        found.state.colorTemperature = 667
        state.rooms[0].lights.append(found)
        state.generation = 4
        let edited = try Fixture(json: Array(before.replacingOccurrences(of: "LIFX A19", with: "LIFX Tile").utf8))
        let (home, report) = edited.reconciled(keeping: state)
        #expect(home.rooms[0].lights.map(\.id) == ["den.bulb"])
        #expect(home.rooms[0].lights[0].state.colorTemperature == 400)
        #expect(report.broughtIntoRange == ["den.bulb"] && report.keptDiscovered == ["den.bulb"])
    }
}
