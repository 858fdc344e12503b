import LumenProtocol
import Testing

/// Reading a value's shape: what a fixture, a snapshot or a request's parameters may hold.
@Suite("Reading a JSON value's shape")
struct JSONCursorTests {
    /// Which of two values a key given twice stands for is anyone's guess (JSON leaves it open), so the
    /// reader refuses it where it would otherwise silently take the last.
    @Test func aKeyGivenTwiceIsRefusedAtItsPath() throws {
        let value = try JSONParser.parse(#"{"light": {"brightness": 10, "isOn": true, "brightness": 90}}"#)
        let light = try JSONCursor(value).object(allowing: ["light"]).required("light")
        let error = try #require(throws: JSONShapeError.self) {
            try light.object(allowing: ["brightness", "isOn"])
        }
        #expect(error.description == "light.brightness: key given more than once; give each key once")
    }

    @Test func anUnknownKeyIsNamedBeforeARepeatedOne() throws {
        let value = try JSONParser.parse(#"{"isOn": true, "glow": 1, "isOn": false}"#)
        let error = try #require(throws: JSONShapeError.self) {
            try JSONCursor(value).object(allowing: ["isOn"])
        }
        #expect(error.description == "glow: unknown key; expected one of: isOn")
    }

    @Test func keysThatDifferArePassed() throws {
        let value = try JSONParser.parse(#"{"a": 1, "b": 2, "c": {"a": 3}}"#)
        let object = try JSONCursor(value).object(allowing: ["a", "b", "c"])
        #expect(try object.required("c").object(allowing: ["a"]).required("a").int() == 3)
    }
}
