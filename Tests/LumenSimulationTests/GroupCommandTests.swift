import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

/// A room's group command (`setAll`) and its derived values (`anyOn`, `allOn`), as a Zigbee group behaves.
@Suite("Room group commands")
struct GroupCommandTests {
    static let room = """
        {"schema": 1, "id": "g", "name": "G", "seed": 9, "rooms": [{"id": "den", "name": "Den",
          "latency": {"kind": "uniform", "minMs": 20, "maxMs": 80}, "lights": [
          {"id": "den.a", "name": "A", "kind": "color", "state": {"isOn": false}},
          {"id": "den.b", "name": "B", "kind": "dimmable", "state": {"isOn": false}},
          {"id": "den.c", "name": "C", "kind": "color", "state": {"isOn": false}, "timeoutMs": 5000},
          {"id": "den.d", "name": "D", "kind": "onoff", "state": {"isOn": false}}
        ]}, {"id": "empty", "name": "Empty", "lights": []}]}
        """

    /// The answer to a group command is one moment of the home's: when its last light answers, whatever order
    /// its lights answer in, so the reply sits in the same place among a session's notices every run.
    @Test func aGroupCommandIsSettledOnceAsItsLastLightAnswers() async throws {
        let (home, log) = try await makeHome(Self.room)
        let lights: [LightID] = ["den.a", "den.b", "den.c", "den.d"]
        let ticket = try await home.setAll(LightChange(isOn: true), in: "den")
        let lightsOnWhenTold = Locked<[Int]>([])
        ticket.whenSettled { _ in
            let on = lights.filter { !log.values("isOn", of: $0).isEmpty }.count
            lightsOnWhenTold.withLock { $0.append(on) }
        }
        for _ in 0..<100 { try await home.advance(byMilliseconds: 1) }
        let times = lights.map { log.values("isOn", of: $0).first!.ms }
        #expect(Set(times).count == 4, "\(times)")
        #expect(lightsOnWhenTold.withLock { $0 } == [4])
        #expect(try await ticket.outcome.allSatisfy { $0.missed == nil })
    }

    @Test func setAllReachesEachLightAfterItsOwnLatencyAndSaysWhatEachDid() async throws {
        let (home, log) = try await makeHome(Self.room)
        try await home.setReachable(false, light: "den.c")
        let ticket = try await home.setAll(
            LightChange(isOn: true, brightness: 60, color: CIEColor(x: 0.2, y: 0.3)), in: "den")
        try await home.advance(byMilliseconds: 100)
        let outcome = try await ticket.outcome
        #expect(outcome.map(\.light) == ["den.a", "den.b", "den.c", "den.d"])
        #expect(outcome[0] == .init(light: "den.a", applied: [.isOn, .brightness, .color], ignored: [], missed: nil))
        #expect(outcome[1] == .init(light: "den.b", applied: [.isOn, .brightness], ignored: [.color], missed: nil))
        // The unreachable light missed it silently: no wait for its 5 s timeout, no error for the room.
        #expect(outcome[2] == .init(light: "den.c", applied: [], ignored: [], missed: .unreachable))
        #expect(outcome[3] == .init(light: "den.d", applied: [.isOn], ignored: [.brightness, .color], missed: nil))
        #expect(outcome[3].jsonValue == ["light": "den.d", "applied": ["isOn"], "ignored": ["brightness", "color"]])
        #expect(outcome[2].jsonValue == ["light": "den.c", "missed": "unreachable"])
        // Each applied after its own latency, between 20 and 80 ms, not all at once.
        let times = ["den.a", "den.b", "den.d"].map { log.values("isOn", of: LightID($0)).first!.ms }
        #expect(times.allSatisfy { (20...80).contains($0) })
        #expect(Set(times).count == 3)
        #expect(try await home.light("den.c").state.isOn == false)
    }

    @Test func anyOnAndAllOnChangeOnlyWhenTheyChange() async throws {
        let (home, log) = try await makeHome(Self.room)
        func room(_ name: String) -> [JSONValue] {
            log.all.compactMap { event in
                guard event.entity == .room("den"), case .property(let key, let value) = event.change,
                    key.name == name
                else { return nil }
                return value
            }
        }
        #expect(try await home.value(of: .room("den", .anyOn)) == false)
        _ = try await home.submit(LightChange(isOn: true), to: "den.a")
        _ = try await home.submit(LightChange(isOn: true), to: "den.b")
        try await home.advance(byMilliseconds: 200)
        #expect(room("anyOn") == [true], "the second light on changes nothing")
        #expect(room("allOn").isEmpty)
        let ticket = try await home.setAll(LightChange(isOn: true), in: "den")
        try await home.advance(byMilliseconds: 200)
        _ = try await ticket.outcome
        #expect(room("allOn") == [true])
        #expect(try await home.value(of: .room("den", .allOn)) == true)
        // A light added off breaks "all on"; removing it restores it.
        try await home.addLight(
            LightFixture(
                id: "den.e", name: "E", model: DeviceModel(kind: .onoff, manufacturer: "x", product: "y"),
                state: LightState(isOn: false, brightness: 100, colorTemperature: 366, color: .white)),
            to: "den")
        try await home.removeLight("den.e")
        #expect(room("allOn") == [true, false, true])
        #expect(room("anyOn") == [true])
        // An empty room is neither.
        #expect(try await home.value(of: .room("empty", .anyOn)) == false)
        #expect(try await home.value(of: .room("empty", .allOn)) == false)
    }

    @Test func aGroupCommandTakesATransitionAndKeepsEachLightsOrder() async throws {
        let (home, log) = try await makeHome(Self.room)
        _ = try await home.submit(LightChange(isOn: true, brightness: 10), to: "den.a")
        let ticket = try await home.setAll(LightChange(isOn: true, brightness: 90), in: "den", transitionMs: 400)
        try await home.advance(byMilliseconds: 1_000)
        _ = try await ticket.outcome
        let steps = log.values("brightness", of: "den.a").map { $0.value.doubleValue! }
        #expect(steps.first == 10 && steps.last == 90 && steps.count > 3, "\(steps)")
    }

    @Test func aGroupCommandCutShortByShutdownSaysSoRatherThanBlamingTheLights() async throws {
        let (home, _) = try await makeHome(Self.room)
        let ticket = try await home.setAll(LightChange(isOn: true), in: "den")
        await home.shutDown()
        await #expect(throws: LumenError(.shuttingDown, "lumend is shutting down; retry once it is back")) {
            _ = try await ticket.outcome
        }
    }

    @Test func setAllRefusesAnEmptyChangeAndValuesOutOfRange() async throws {
        let (home, _) = try await makeHome(Self.room)
        await #expect(throws: LumenError.self) { _ = try await home.setAll(LightChange(), in: "den") }
        await #expect(throws: LumenError.self) { _ = try await home.setAll(LightChange(brightness: 140), in: "den") }
        await #expect(throws: LumenError.self) { _ = try await home.setAll(LightChange(isOn: true), in: "attic") }
    }

    @Test func aHueLikeLightThatIsOffMissesGroupBrightnessAndALostFrameIsLost() async throws {
        let json = """
            {"schema": 1, "id": "h", "name": "H", "rooms": [{"id": "den", "name": "Den", "lights": [
              {"id": "den.hue", "name": "Hue", "kind": "color", "whileOff": "refuse", "state": {"isOn": false}},
              {"id": "den.lossy", "name": "Lossy", "kind": "color", "dropProbability": 1}
            ]}]}
            """
        let (home, _) = try await makeHome(json)
        let ticket = try await home.setAll(LightChange(brightness: 50), in: "den")
        try await home.advance(byMilliseconds: 0)
        let outcome = try await ticket.outcome
        #expect(outcome.map(\.missed) == [.off, .lost])
    }
}
