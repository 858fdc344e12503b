import LumenProtocol
import Testing

@Suite("JSON parser")
struct JSONParserTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONParser.parse(
            #" {"a": [1, -2.5e3, true, false, null], "b": "x\"y\u00e9\ud83d\ude00", "c": {}} "#)
        #expect(value["a"] == [1, .number(JSONParserTests.number("-2.5e3")), true, false, nil])
        #expect(value["b"]?.stringValue == "x\"yé😀")
        #expect(value["c"] == .object([:]))
    }

    static func number(_ text: String) -> JSONNumber {
        guard case .number(let number) = try! JSONParser.parse(text) else { fatalError() }
        return number
    }

    @Test func keepsNumbersAsWritten() throws {
        for text in ["1.50", "12345678901234567890", "-0", "1e400"] {
            #expect(try JSONParser.parse(text).serialized() == text)
        }
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\":1,}", "01", "1.", "-", "tru", "nul", "\"abc", "[1 2]", "{\"a\" 1}", "{1:2}",
        "\"\\x\"", "\"\\ud800\"", "\"a\u{01}b\"", "NaN", "Infinity", "1 2", "[]]",
    ])
    func rejectsInvalidJSON(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
    }

    @Test func rejectsInvalidUTF8AndNULBytes() {
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x22, 0xFF, 0xFE, 0x22]) }
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x22, 0xC3, 0x22]) }
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x7B, 0x00, 0x7D]) }
    }

    @Test func stopsAtTheDepthLimitWithoutRecursingFurther() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        do {
            _ = try JSONParser.parse(deep)
            Issue.record("a 10,000-deep document parsed")
        } catch {
            #expect(error.isDepthLimit)
        }
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try JSONParser.parse(ok) }
    }

    @Test func serializationRoundTripsAndEscapes() throws {
        let value: JSONValue = ["text": "line\nbreak \"quoted\" \u{01} tab\t", "list": [1, 2.5, nil], "flag": true]
        let text = value.serialized()
        #expect(text.contains(#"\n"#) && text.contains(#"\u0001"#) && text.contains(#"\""#))
        #expect(try JSONParser.parse(text) == value)
        #expect(try JSONParser.parse(value.prettySerialized()) == value)
    }

    @Test func objectsKeepKeyOrderAndTheLastDuplicateWins() throws {
        let value = try JSONParser.parse(#"{"z":1,"a":2,"z":3}"#)
        #expect(value.objectValue?.keys == ["z", "a", "z"])
        #expect(value["z"] == 3)
    }
}
