import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

/// The one scalar `value` as a string.
private func scalar(_ value: UInt32) -> String { String(Unicode.Scalar(value)!) }

/// Names are shown to people, in tables and on terminals: every way one is given holds it to the same rule.
@Suite("Names")
struct NameTests {
    static let message =
        "a name must be 1–64 characters, not only spaces, and without control characters (tabs, newlines, "
        + "escapes) or characters that reorder or hide text (direction marks and overrides, zero-width and other "
        + "invisible characters, line separators, noncharacters)"

    static let refused = [
        "", "   ", String(repeating: "n", count: 65), "Lamp\u{1B}[2J", "Desk\nFake line", "Tab\tName", "Bell\u{07}",
        "C1\u{9B}31m",
    ]

    /// Characters that are not control characters but turn text around or hide part of it: a name that shows
    /// as one thing and is another.
    static let reorderingOrInvisible = [
        "Lamp \u{202E}pmal", "\u{202A}Embedded", "\u{202B}Embedded", "Pop\u{202C}", "\u{202D}Override",
        "\u{2066}Isolate\u{2069}", "\u{2067}Isolate", "\u{2068}Isolate", "Mark\u{200E}", "Mark\u{200F}",
        "Arabic mark\u{061C}", "Line\u{2028}separator", "Paragraph\u{2029}separator", "Zero\u{200B}width",
        "Word\u{2060}joiner", "Invisible\u{2062}times", "\u{FEFF}Byte order mark", "Soft\u{AD}hyphen",
        // Swift refuses some noncharacters in a literal.
        "Not a character" + scalar(0xFFFF), "Not a character" + scalar(0xFFFE), scalar(0xFDD0) + "Not a character",
        "Not" + scalar(0xFDEF), "Plane one" + scalar(0x1FFFF), "Plane sixteen" + scalar(0x10_FFFE),
        // A joiner joins only two characters beyond ASCII (an emoji sequence, a script that needs it): not at
        // either end, not beside plain letters, not two in a row.
        "Lamp\u{200D}", "\u{200D}💡", "a\u{200D}b", "a\u{200C}b", "👩\u{200D}\u{200D}💻", "👩\u{200D}",
    ]

    @Test(arguments: refused + reorderingOrInvisible)
    func aNameWithoutTextTooLongOrWithControlOrInvisibleCharactersIsRefused(_ name: String) async throws {
        let (home, _) = try await makeHome(singleLight())
        let error = try await #require(throws: LumenError.self) { try await home.setName(name, of: .light("bulb")) }
        #expect(error.code == .invalidParams)
        #expect(error.message == Self.message)
        await #expect(throws: LumenError.self) { try await home.setName(name, of: .home) }
        await #expect(throws: LumenError.self) { try await home.addRoom(id: "new", name: name) }
        let light = LightFixture(
            id: "new", name: name, model: DeviceModel(kind: .onoff, manufacturer: "Lumen", product: "Plug"))
        await #expect(throws: LumenError.self) { try await home.addLight(light, to: "room") }
        #expect(await home.snapshot().rooms.map(\.id) == ["room"])
        #expect(await home.snapshot().rooms.first?.lights.map(\.id) == ["bulb"])
        #expect(await home.snapshot().name == "One")
        let fixture = singleLight().replacingOccurrences(
            of: #""name": "Bulb""#, with: #""name": \#(JSONValue.string(name).serialized())"#)
        let refusal = try #require(throws: FixtureError.self) { try Fixture(json: Array(fixture.utf8)) }
        #expect(refusal.description == "rooms[0].lights[0].name: \(Self.message)")
    }

    @Test func namesOfEveryScriptAndSymbolArePassed() async throws {
        let (home, _) = try await makeHome(singleLight())
        let names = [
            "Küche", "客厅", "Lamp 💡", "Spot #1 (left)", String(repeating: "n", count: 64), "غرفة المعيشة", "סלון",
            "☀️ Sun", "Family 👨\u{200D}👩\u{200D}👧", "👩\u{200D}💻 Desk", "🏳️\u{200D}🌈",
            "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}",
            // A zero-width non-joiner inside a Persian word ("bedroom"), a joiner inside a Devanagari cluster.
            "اتاق\u{200C}خواب", "क्\u{200D}ष",
        ]
        for (index, name) in names.enumerated() {
            try await home.setName(name, of: .light("bulb"))
            try await home.addRoom(id: RoomID("r\(index)"), name: name)
            let fixture = singleLight().replacingOccurrences(
                of: #""name": "Bulb""#, with: #""name": \#(JSONValue.string(name).serialized())"#)
            #expect(try Fixture(json: Array(fixture.utf8)).rooms[0].lights[0].name == name)
        }
    }
}
