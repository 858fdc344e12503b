import LumenModel
import Testing

@testable import LumenSimulation

/// The home's lights: found by ID, read and changed in place, and still found after others are removed.
@Suite("The table of lights")
struct LightTableTests {
    static func light(_ id: String) -> SimulatedLight {
        SimulatedLight(
            fixture: LightFixture(
                id: LightID(id), name: id, model: DeviceModel(kind: .dimmable, manufacturer: "Lumen", product: "Test")),
            room: RoomID("room"), seed: 1)
    }

    @Test func everyLightIsFoundByItsIDAfterOthersAreRemoved() throws {
        var table = LightTable()
        let ids = (0..<6).map { "light-\($0)" }
        for id in ids { table[LightID(id)] = Self.light(id) }
        #expect(table.count == 6)
        // The first, a middle one and the last: each removal but the last moves the last light into its slot.
        for removed in ["light-0", "light-3", "light-5"] {
            #expect(table.removeValue(forKey: LightID(removed))?.id == LightID(removed))
        }
        #expect(table.removeValue(forKey: LightID("light-0")) == nil, "gone already")
        #expect(table.count == 3)
        for id in ["light-1", "light-2", "light-4"] {
            let slot = try #require(table.slot(of: LightID(id)))
            #expect(table[slot: slot].id == LightID(id))
            #expect(table[LightID(id)]?.name == id)
        }
        for id in ["light-0", "light-3", "light-5"] { #expect(table[LightID(id)] == nil) }
    }

    @Test func aLightIsChangedWhereItLies() throws {
        var table = LightTable()
        table[LightID("a")] = Self.light("a")
        table[LightID("b")] = Self.light("b")
        let slot = try #require(table.slot(of: LightID("b")))
        table[slot: slot].state.isOn.toggle()
        table[LightID("a")]?.name = "renamed"
        #expect(table[LightID("b")]?.state.isOn == !Self.light("b").state.isOn)
        #expect(table[LightID("a")]?.name == "renamed")
        table[LightID("a")] = nil
        #expect(table.count == 1 && table.slot(of: LightID("b")) == 0)
    }
}
