import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

/// Names are shown to people, in tables and on terminals: every way one is given holds it to the same rule.
@Suite("Names")
struct NameTests {
    static let refused = [
        "", "   ", String(repeating: "n", count: 65), "Lamp\u{1B}[2J", "Desk\nFake line", "Tab\tName", "Bell\u{07}",
        "C1\u{9B}31m",
    ]

    @Test(arguments: refused)
    func aNameWithoutTextTooLongOrWithControlCharactersIsRefused(_ name: String) async throws {
        let (home, _) = try await makeHome(singleLight())
        let error = try await #require(throws: LumenError.self) { try await home.setName(name, of: .light("bulb")) }
        #expect(error.code == .invalidParams)
        #expect(
            error.message
                == "a name must be 1–64 characters, not only spaces, and without control characters (tabs, newlines, escapes)"
        )
        await #expect(throws: LumenError.self) { try await home.addRoom(id: "new", name: name) }
        let light = LightFixture(
            id: "new", name: name, model: DeviceModel(kind: .onoff, manufacturer: "Lumen", product: "Plug"))
        await #expect(throws: LumenError.self) { try await home.addLight(light, to: "room") }
        #expect(await home.snapshot().rooms.map(\.id) == ["room"])
        #expect(await home.snapshot().rooms.first?.lights.map(\.id) == ["bulb"])
    }

    @Test func namesOfEveryScriptAndSymbolArePassed() async throws {
        let (home, _) = try await makeHome(singleLight())
        for name in ["Küche", "客厅", "Lamp 💡", "Spot #1 (left)", String(repeating: "n", count: 64)] {
            try await home.setName(name, of: .light("bulb"))
            try await home.addRoom(id: RoomID("r\(name.count)"), name: name)
        }
    }
}
