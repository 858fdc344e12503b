import LumenModel
import LumenProtocol
import Testing

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
        #expect(read == state)
        #expect(read.lightsByNumber == [1: LightID("a"), 2: LightID("b")])
        #expect(read.lightNumbers[LightID("b")] == 2)
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
