import LumenModel
import LumenSimulation
import Testing

@Suite("Transitions and discovery")
struct TransitionAndDiscoveryTests {
    @Test func aTransitionMovesTenStepsASecondAndLandsExactly() async throws {
        let (home, log) = try await makeHome(
            singleLight(
                state: #"{"isOn": true, "brightness": 10, "colorTemperature": 153, "color": {"x": 0.1, "y": 0.1}}"#))
        let ticket = try await home.submit(
            LightChange(brightness: 100, colorTemperature: 500), to: "bulb", transitionMs: 1_000)
        try await home.advance(byMilliseconds: 0)
        #expect(try await ticket.value.brightness == 100)
        try await home.advance(byMilliseconds: 2_000)
        let steps = log.values("brightness", of: "bulb")
        #expect(steps.map(\.ms) == stride(from: 100.0, through: 1_000, by: 100).map { $0 })
        let values = steps.map { $0.value.doubleValue! }
        #expect(values == values.sorted())
        #expect(values.last == 100)
        #expect(values.first == 19)
        #expect(log.values("colorTemperature", of: "bulb").last?.value == 500)
    }

    @Test func aNewCommandCancelsARunningTransition() async throws {
        let (home, log) = try await makeHome(singleLight(state: #"{"isOn": true, "brightness": 10}"#))
        _ = try await home.submit(LightChange(brightness: 100), to: "bulb", transitionMs: 1_000)
        try await home.advance(byMilliseconds: 250)
        _ = try await home.submit(LightChange(brightness: 5), to: "bulb")
        try await home.advance(byMilliseconds: 2_000)
        #expect(try await home.light("bulb").state.brightness == 5)
        #expect(log.values("brightness", of: "bulb").last?.ms == 250)
    }

    static let discoveryHome = """
        {"schema": 1, "id": "d", "name": "D", "discovery": {"scanDurationMs": 60000, "jitterMs": 0},
         "defaults": {"latency": "instant"},
         "rooms": [{"id": "loft", "name": "Loft", "lights": [], "undiscovered": [
        \((0..<20).map { #"{"delayMs": \#(2_000 + $0 * 2_500), "light": {"id": "loft.n\#($0)", "name": "N\#($0)", "kind": "dimmable"}}"# }.joined(separator: ",\n"))
        ]}]}
        """

    @Test func aScanFindsTheRightLightsAtTheRightTimesCapsAtFifteenAndEndsOnTime() async throws {
        let (home, log) = try await makeHome(Self.discoveryHome)
        let scan = try await home.detectLights(in: "loft")
        #expect(scan.endsMs == 60_000)
        // A second request during the scan is the same scan.
        try await home.advance(byMilliseconds: 1_000)
        #expect(try await home.detectLights(in: "loft").id == scan.id)
        try await home.advance(byMilliseconds: 59_000)
        let found = log.all.compactMap { event -> (Double, Int)? in
            guard event.entity == .room("loft"), case .property(.room(_, .lightIDs), let ids) = event.change else {
                return nil
            }
            return (Double(event.timeMicros) / 1_000, ids.arrayValue!.count)
        }
        #expect(found.map(\.1) == Array(1...15))
        #expect(found.map(\.0) == (0..<15).map { 2_000 + Double($0) * 2_500 })
        let scanning = log.all.compactMap { event -> (Int64, Bool)? in
            guard event.entity == .room("loft"), case .property(.room(_, .isScanning), let value) = event.change else {
                return nil
            }
            return (event.timeMicros, value.boolValue!)
        }
        #expect(scanning.map(\.1) == [true, false])
        #expect(scanning.last?.0 == 60_000_000)
        // The next scan finds the remaining five.
        _ = try await home.detectLights(in: "loft")
        try await home.advance(byMilliseconds: 60_000)
        #expect(try await home.lightIDs(in: "loft").count == 20)
    }

    @Test func aRoomAddedDuringASearchJoinsIt() async throws {
        let (home, _) = try await makeHome(Self.discoveryHome)
        let scan = try await home.detectLights(in: "loft")
        try await home.addRoom(id: "attic", name: "Attic")
        #expect(try await home.detectLights(in: "attic").id == scan.id)
        try await home.advance(byMilliseconds: 60_000)
        #expect(try await home.lightIDs(in: "loft").count == 15, "one search, fifteen lights")
        #expect(try await home.detectLights(in: "attic").id != scan.id, "a later search is a new one")
    }

    @Test func foundLightsAreInTheSnapshot() async throws {
        let (home, _) = try await makeHome(Self.discoveryHome)
        _ = try await home.detectLights(in: "loft")
        try await home.advance(byMilliseconds: 5_000)
        let snapshot = await home.snapshot()
        #expect(snapshot.rooms[0].lights.map(\.id) == ["loft.n0", "loft.n1"])
        #expect(snapshot.rooms[0].undiscovered.count == 18)
    }

    @Test func scanningAnUnknownRoomSaysSo() async throws {
        let (home, _) = try await makeHome(Self.discoveryHome)
        do {
            _ = try await home.detectLights(in: "nowhere")
            Issue.record("scanned a room that does not exist")
        } catch {
            #expect(error.code == .noSuchEntity)
        }
    }
}
