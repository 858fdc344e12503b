import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

@testable import LumenHue

/// What the Hue bridge keeps: numbers given once and read back as they were, each number naming one light.
@Suite("Hue bridge state")
struct HueBridgeStateTests {
    @Test func numbersAreGivenOnceAndReadBackAsTheyWere() throws {
        var state = HueBridgeState()
        let given = [
            state.number(LightID("a")), state.number(LightID("b")), state.number(LightID("a")),
            state.number(RoomID("lab")),
        ]
        #expect(given == [true, true, false, true])
        let read = try HueBridgeState(cursor: JSONCursor(state.jsonValue))
        #expect(read.jsonValue == state.jsonValue)
        #expect(read.lightNumbers == state.lightNumbers && read.roomNumbers == state.roomNumbers)
        #expect(read.lightsByNumber == [1: LightID("a"), 2: LightID("b")])
        #expect(read.lightNumbers[LightID("b")] == 2)
    }

    /// The numbers a client holds, and the record's text, for a given home: lights and rooms numbered in the
    /// home's order at start, written in the order of their numbers; a record's numbers read back and written as
    /// they were, gaps and all, a light added taking the number after the highest.
    @Test func aHomeIsNumberedInItsOrderAndItsRecordWrittenInTheOrderOfTheNumbers() async throws {
        let home = Home(fixture: try Fixture(json: Array(HueBridgeTests.home.utf8)), clock: .virtual)
        #expect(try await HueBridge.numberAtStart(home))
        let record = try #require(await home.frontRecord("hue"))
        #expect(record["lights"]?.serialized() == #"{"den.lamp":1,"den.bulb":2,"den.plug":3,"hall.spot":4}"#)
        #expect(record["rooms"]?.serialized() == #"{"den":1,"hall":2}"#)
        #expect(!(try await HueBridge.numberAtStart(home)), "numbered once")

        let text = #"{"lights": {"c": 30, "a": 7, "b": 1}, "rooms": {"r": 2}}"#
        var state = try HueBridgeState(cursor: JSONCursor(try JSONParser.parse(Array(text.utf8))))
        #expect(state.jsonValue["lights"]?.serialized() == #"{"b":1,"a":7,"c":30}"#)
        #expect(state.number(LightID("d")) && state.lightNumbers[LightID("d")] == 31)
        #expect(state.jsonValue["lights"]?.serialized() == #"{"b":1,"a":7,"c":30,"d":31}"#)
    }

    @Test(arguments: [
        (#"{"resourceIDs": {"lamp": "4e1b0f2a-5c3d-4e6f-8a7b-9c0d1e2f3a4b"}}"#, "resourceIDs.lamp", "not 'lamp'"),
        (#"{"resourceIDs": {"light/": "4e1b0f2a-5c3d-4e6f-8a7b-9c0d1e2f3a4b"}}"#, "resourceIDs.light/", "not 'light/'"),
        (#"{"resourceIDs": {"bridge": 7}}"#, "resourceIDs.bridge", "expected a string, got a number"),
        (
            #"{"resourceIDs": {"room/den": "4E1B0F2A-5C3D-4E6F-8A7B-9C0D1E2F3A4B"}}"#, "resourceIDs.room/den",
            "lower case"
        ),
        (
            #"{"resourceIDs": {"room/den": "4e1b0f2a-5c3d-3e6f-8a7b-9c0d1e2f3a4b"}}"#, "resourceIDs.room/den",
            "version 4"
        ),
        (#"{"resourceIDs": {"room/den": "4e1b0f2a-5c3d-4e6f-8a7b-9c0d1e2f3a4"}}"#, "resourceIDs.room/den", "version 4"),
        (
            #"{"resourceIDs": {"bridge": "4e1b0f2a-5c3d-4e6f-8a7b-9c0d1e2f3a4b", "light/a": "4e1b0f2a-5c3d-4e6f-8a7b-9c0d1e2f3a4b"}}"#,
            "resourceIDs.light/a", "given twice"
        ),
    ])
    func aRecordsUUIDThatIsNotOneIsRefusedWhereItStands(text: String, path: String, message: String) throws {
        #expect {
            try HueBridgeState(cursor: JSONCursor(try JSONParser.parse(Array(text.utf8))))
        } throws: { error in
            let error = error as? JSONShapeError
            return error?.message.contains(message) == true && error?.path.description.contains(path) == true
        }
    }

    @Test(arguments: [
        (#"{"lights":{"a":1,"b":1}}"#, "light number 1 is given twice"),
        (#"{"lights":{"a":1,"a":2}}"#, "light 'a' is numbered twice"),
        (#"{"lights":{"a":1,"a":1}}"#, "light 'a' is numbered twice"),
        (#"{"rooms":{"lab":1,"den":1}}"#, "room number 1 is given twice"),
        (#"{"rooms":{"lab":1,"lab":2}}"#, "room 'lab' is numbered twice"),
    ])
    func aNumberNamingTwoThingsOrAThingNumberedTwiceIsRefused(text: String, message: String) throws {
        #expect {
            try HueBridgeState(cursor: JSONCursor(try JSONParser.parse(Array(text.utf8))))
        } throws: { error in
            (error as? JSONShapeError)?.message.contains(message) == true
        }
    }
}

/// Scenes and created groups in the bridge's saved form, which older state files lack.
@Suite("Hue bridge state: scenes and groups")
struct HueBridgeStateSceneTests {
    @Test func aStateWithoutScenesSavesAsBeforeAndOldStateLoads() throws {
        var state = HueBridgeState()
        _ = state.number(LightID("a"))
        #expect(state.jsonValue.objectValue?.keys == ["users", "lights", "rooms", "pairings"])
        let old = try HueBridgeState(
            cursor: JSONCursor(
                try JSONParser.parse(Array(#"{"users": [], "lights": {"a": 1}, "rooms": {"r": 1}}"#.utf8))))
        #expect(old.scenes.isEmpty && old.groups.isEmpty)
    }

    @Test func scenesAndGroupsAreReadBackAsTheyWereAndGroupsNumberAfterRooms() throws {
        var state = HueBridgeState()
        _ = state.number(RoomID("lab"))
        let number = state.addGroup(name: "Z", type: .zone, lights: [1], roomClass: "Office")
        #expect(number == 2)
        state.scenes.append(
            HueBridgeState.Scene(
                id: "abc", name: "S", group: 2, lights: [1], lightStates: [1: ["on": true]], owner: "u",
                lastUpdated: "2026-12-05T00:00:00"))
        var read = try HueBridgeState(cursor: JSONCursor(state.jsonValue))
        #expect(read.jsonValue == state.jsonValue)
        #expect(read.scenes == state.scenes && read.groups == state.groups && read.roomNumbers == state.roomNumbers)
        #expect(read.number(RoomID("den")) && read.roomNumbers[RoomID("den")] == 3)
        #expect(read.removeGroup(2) && read.scenes.isEmpty)
    }

    @Test(arguments: [
        (
            #"{"rooms": {"lab": 1}, "groups": [{"number": 1, "name": "x", "type": "Zone", "lights": []}]}"#,
            "given twice"
        ),
        (#"{"scenes": [{"id": "a/b", "name": "x", "lights": []}]}"#, "letters and digits"),
        (#"{"groups": [{"number": 1, "name": "x", "type": "Room", "lights": []}]}"#, "is not one of"),
    ])
    func aBrokenSceneOrGroupIsRefused(text: String, message: String) throws {
        #expect {
            try HueBridgeState(cursor: JSONCursor(try JSONParser.parse(Array(text.utf8))))
        } throws: { error in
            (error as? JSONShapeError)?.message.contains(message) == true
        }
    }
}
