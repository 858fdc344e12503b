import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

/// What differs between families of devices as their controllers see them: group commands, rate limits,
/// faults, power-on and a level of 0 (fades are in ``FadeTests``).
@Suite("Device families as their controllers see them")
struct FamilyRuleTests {
    /// A room of `count` colour lights of `family`, each with a latency spread over 20–200 ms.
    static func room(family: String, count: Int = 4, extra: String = "") -> String {
        let lights = (0..<count).map {
            #"{"id": "den.l\#($0)", "name": "L\#($0)", "kind": "color", "state": {"isOn": false}}"#
        }
        return """
            {"schema": 1, "id": "f", "name": "F", "seed": 5, "rooms": [{"id": "den", "name": "Den",
              "family": "\(family)", "latency": {"kind": "uniform", "minMs": 20, "maxMs": 200}\(extra),
              "lights": [\(lights.joined(separator: ","))]}]}
            """
    }

    // MARK: - Groups

    @Test(arguments: ["hue", "matter"])
    func aZigbeeOrMatterGroupCommandStartsEveryLightTogetherAndReportsNoMiss(family: String) async throws {
        let (home, log) = try await makeHome(Self.room(family: family))
        try await home.setReachable(false, light: "den.l2")
        let ticket = try await home.setAll(LightChange(isOn: true, brightness: 80), in: "den", transitionMs: 1_000)
        try await home.advance(byMilliseconds: 2_000)
        let outcome = try await ticket.outcome
        // One broadcast: every light that got it switched on at the same moment.
        let times = ["den.l0", "den.l1", "den.l3"].map { log.values("isOn", of: LightID($0)).first!.ms }
        #expect(Set(times).count == 1 && (20...200).contains(times[0]))
        // The sender is not told who missed it; the light that did simply did not change.
        #expect(outcome.allSatisfy { $0.missed == nil && $0.applied == [.isOn, .brightness] })
        #expect(try await home.light("den.l2").state.isOn == false)
        // The command record keeps what really happened.
        let records = await home.commandRecords(light: "den.l2")
        #expect(records.map(\.outcome) == [.unreachable])
    }

    @Test func aLIFXGroupChangeReachesEachBulbAfterItsOwnLatencyUnacknowledged() async throws {
        let (home, log) = try await makeHome(Self.room(family: "lifx"))
        try await home.setReachable(false, light: "den.l2")
        let ticket = try await home.setAll(LightChange(isOn: true), in: "den")
        try await home.advance(byMilliseconds: 1_000)
        let times = ["den.l0", "den.l1", "den.l3"].map { log.values("isOn", of: LightID($0)).first!.ms }
        #expect(Set(times).count == 3)
        #expect(try await ticket.outcome.allSatisfy { $0.missed == nil })
    }

    @Test func aGenericDeviceSaysWhichLightMissedAGroupCommand() async throws {
        let (home, _) = try await makeHome(Self.room(family: "generic"))
        try await home.setReachable(false, light: "den.l2")
        let ticket = try await home.setAll(LightChange(isOn: true), in: "den")
        try await home.advance(byMilliseconds: 1_000)
        #expect(try await ticket.outcome.map(\.missed) == [nil, nil, .unreachable, nil])
    }

    // MARK: - Rate limits

    @Test func aBridgeTakesTenLightCommandsASecondAcrossItsLightsAndOneGroupCommand() async throws {
        let (home, _) = try await makeHome(Self.room(family: "hue"))
        for index in 0..<10 { _ = try await home.submit(LightChange(isOn: true), to: LightID("den.l\(index % 4)")) }
        let error = await #expect(throws: LumenError.self) {
            try await home.submit(LightChange(isOn: false), to: "den.l3")
        }
        #expect(error?.code == .busy)
        #expect(error?.message.contains("the bridge accepts at most 10 light commands a second") == true)
        _ = try await home.setAll(LightChange(isOn: true), in: "den")
        let group = await #expect(throws: LumenError.self) {
            try await home.setAll(LightChange(isOn: false), in: "den")
        }
        #expect(group?.message.contains("at most 1 group command a second") == true)
        // A tenth of a second gives the lights' budget one command back; a second, the groups' one.
        try await home.advance(byMilliseconds: 100)
        _ = try await home.submit(LightChange(isOn: false), to: "den.l3")
        try await home.advance(byMilliseconds: 900)
        _ = try await home.setAll(LightChange(isOn: false), in: "den")
    }

    @Test func aBridgesBudgetIsSetInTheFixture() async throws {
        let json = Self.room(family: "hue").replacingOccurrences(
            of: #""seed": 5,"#, with: #""seed": 5, "bridge": {"lightCommandsPerSecond": 2},"#)
        let (home, _) = try await makeHome(json)
        _ = try await home.submit(LightChange(isOn: true), to: "den.l0")
        _ = try await home.submit(LightChange(isOn: true), to: "den.l1")
        await #expect(throws: LumenError.self) { try await home.submit(LightChange(isOn: true), to: "den.l2") }
    }

    @Test func aLIFXBulbDropsWhatIsBeyondTwentyMessagesASecondUnlessTheFixtureSaysOtherwise() async throws {
        let (home, _) = try await makeHome(Self.room(family: "lifx", count: 1))
        var tickets: [CommandTicket] = []
        for level in 1...25 {
            tickets.append(try await home.submit(LightChange(brightness: Double(level)), to: "den.l0"))
        }
        try await home.advance(byMilliseconds: 3_000)
        var codes: [LumenError.Code?] = []
        for ticket in tickets { codes.append(await ticket.result.failure?.code) }
        #expect(codes.prefix(20).allSatisfy { $0 == nil })
        #expect(codes.suffix(5).allSatisfy { $0 == .timedOut })
    }

    // MARK: - Faults

    @Test func aBridgeAnswersForAnUnreachableLightAndReportsItUnreachableOnlyAfterAWhile() async throws {
        let (home, log) = try await makeHome(Self.room(family: "hue", count: 1))
        try await home.setReachable(false, light: "den.l0")
        let ticket = try await home.submit(LightChange(isOn: true), to: "den.l0")
        try await home.advance(byMilliseconds: 200)
        #expect(try await ticket.value.isOn, "the bridge confirms what it sent")
        #expect(try await home.light("den.l0").state.isOn == false, "the light never saw it")
        #expect(await home.commandRecords(light: "den.l0").map(\.outcome) == [.unreachable])
        #expect(try await home.light("den.l0").isReachable, "not yet noticed")
        try await home.advance(byMilliseconds: 10_000)
        #expect(try await home.light("den.l0").isReachable == false)
        #expect(log.values("isReachable", of: "den.l0").map(\.ms) == [10_000])
        // Back at once, as the light announces itself.
        try await home.setReachable(true, light: "den.l0")
        #expect(try await home.light("den.l0").isReachable)
    }

    @Test(arguments: ["lifx", "matter"])
    func aLIFXOrMatterControllerOnlyEverTimesOut(family: String) async throws {
        let (home, _) = try await makeHome(Self.room(family: family, count: 1))
        try await home.setReachable(false, light: "den.l0")
        let ticket = try await home.submit(LightChange(isOn: true), to: "den.l0")
        try await home.advance(byMilliseconds: 2_000)
        #expect(await ticket.result.failure?.code == .timedOut)
        #expect(await home.commandRecords(light: "den.l0").map(\.outcome) == [.unreachable])
    }

    @Test func anAcknowledgementCanBeLostAfterTheLightTookTheCommand() async throws {
        let (home, _) = try await makeHome(Self.room(family: "lifx", count: 1, extra: #", "dropProbability": 1"#))
        var tickets: [CommandTicket] = []
        for level in 1...10 {
            tickets.append(try await home.submit(LightChange(brightness: Double(level)), to: "den.l0"))
        }
        try await home.advance(byMilliseconds: 3_000)
        for ticket in tickets { #expect(await ticket.result.failure?.code == .timedOut) }
        let records = await home.commandRecords(light: "den.l0")
        let applied = records.filter { $0.outcome == .applied }
        // Seeded: some were taken with their answer lost, the others lost on the way.
        #expect(!applied.isEmpty && applied.count < 10)
        #expect(try await home.light("den.l0").state.brightness == applied.last?.change.brightness)
    }

    // MARK: - Power-on

    @Test(arguments: [("hue", true, 100.0), ("lifx", true, 30.0), ("matter", false, 30.0), ("generic", false, 30.0)])
    func powerReturningFollowsTheFamily(family: String, comesOn: Bool, brightness: Double) async throws {
        let (home, _) = try await makeHome(
            singleLight(
                settings: #""latency": "instant", "family": "\#(family)""#,
                state: #"{"isOn": false, "brightness": 30}"#))
        try await home.powerCycle(light: "bulb", durationMs: 1_000)
        try await home.advance(byMilliseconds: 12_000)
        let state = try await home.light("bulb").state
        #expect(state.isOn == comesOn)
        #expect(state.brightness == brightness)
    }

    // MARK: - Level 0

    @Test func aBrightnessOfZeroDimsToOffAndKeepsTheLevel() async throws {
        let (home, log) = try await makeHome(singleLight(state: #"{"isOn": true, "brightness": 41}"#))
        let ticket = try await home.submit(LightChange(brightness: 0), to: "bulb", transitionMs: 400)
        try await home.advance(byMilliseconds: 1_000)
        #expect(try await ticket.value == home.light("bulb").state)
        let state = try await home.light("bulb").state
        #expect(!state.isOn && state.brightness == 41)
        #expect(log.values("brightness", of: "bulb").map(\.value) == [31, 21, 11, 1, 41])
        await #expect(throws: LumenError.self) {
            try await home.submit(LightChange(isOn: true, brightness: 0), to: "bulb")
        }
    }

    @Test func aHueLightsDimmestLevelIsOneSoZeroIsOutOfRange() async throws {
        let (home, _) = try await makeHome(singleLight(settings: #""latency": "instant", "family": "hue""#))
        let error = await #expect(throws: LumenError.self) {
            try await home.submit(LightChange(brightness: 0), to: "bulb")
        }
        #expect(error?.code == .invalidParams)
        #expect(error?.message.contains("switch it off with isOn: false") == true)
        await #expect(throws: LumenError.self) { try await home.setAll(LightChange(brightness: 0), in: "room") }
    }

    // MARK: - Discovery

    static let threeRooms = """
        {"schema": 1, "id": "d", "name": "D", "seed": 2, "defaults": {"latency": "instant"},
         "rooms": [\((0..<3).map { room in
            """
            {"id": "r\(room)", "name": "R\(room)", "lights": [], "undiscovered": [\((0..<9).map { light in
                #"{"delayMs": \#(5_000 + light * 5_000), "light": {"id": "r\#(room).n\#(light)", "name": "N", "kind": "dimmable"}}"#
            }.joined(separator: ","))]}
            """
        }.joined(separator: ","))]}
        """

    @Test func oneSearchForTheWholeHomeFindsFifteenAtMostWithJitter() async throws {
        let (home, log) = try await makeHome(Self.threeRooms)
        let first = try await home.detectLights(in: "r0")
        // Scans started from the other rooms are the same search.
        #expect(try await home.detectLights(in: "r1").id == first.id)
        #expect(try await home.detectLights(in: "r2").id == first.id)
        try await home.advance(byMilliseconds: 60_000)
        var found = 0
        for room in ["r0", "r1", "r2"] { found += try await home.lightIDs(in: RoomID(room)).count }
        #expect(found == 15)
        // Found near their delays, but not exactly on them.
        let times = log.all.compactMap { event -> Int64? in
            guard case .property(.room(_, .lightIDs), _) = event.change else { return nil }
            return event.timeMicros
        }
        #expect(times.count == 15)
        #expect(times.contains { $0 % 5_000_000 != 0 })
        #expect(times.allSatisfy { $0 >= 4_000_000 && $0 <= 31_000_000 })
    }

    @Test func theJitterIsDrawnFromTheSeed() async throws {
        func times(seed: UInt64) async throws -> [Int64] {
            let (home, log) = try await makeHome(Self.threeRooms, seed: seed)
            _ = try await home.detectLights(in: "r0")
            try await home.advance(byMilliseconds: 60_000)
            return log.all.compactMap { event in
                if case .property(.room(_, .lightIDs), _) = event.change { event.timeMicros } else { nil }
            }
        }
        #expect(try await times(seed: 1) == times(seed: 1))
        #expect(try await times(seed: 1) != times(seed: 2))
    }
}

extension FamilyRuleTests {
    /// A Tile and an A19, LIFX bulbs whose kelvin ranges differ (2,500–9,000 K and 1,500–9,000 K).
    static let tileAndBulb = """
        {"schema": 1, "id": "f", "name": "F", "seed": 5, "rooms": [{"id": "den", "name": "Den", "lights": [
          {"id": "den.tile", "name": "Tile", "kind": "color", "manufacturer": "LIFX", "product": "LIFX Tile"},
          {"id": "den.bulb", "name": "Bulb", "kind": "color", "manufacturer": "LIFX", "product": "LIFX A19"}
        ]}]}
        """

    @Test func aLIFXLightRefusesAColourTemperatureOutsideItsProductsRange() async throws {
        let (home, _) = try await makeHome(Self.tileAndBulb)
        do {
            _ = try await home.submit(LightChange(colorTemperature: 500), to: "den.tile")
            Issue.record("a Tile took 2,000 K")
        } catch {
            #expect(error.code == .invalidParams)
            #expect(error.message == "colorTemperature 500 is out of range 111–400 mireds", "\(error.message)")
        }
        _ = try await home.submit(LightChange(colorTemperature: 500), to: "den.bulb")
        try await home.advance(byMilliseconds: 1_000)
        #expect(try await home.light("den.bulb").state.colorTemperature == 500)
    }

    /// A LIFX light without colour temperature (a Mini White, whose one white is all it reports) is told it
    /// takes none, as any such light is, not that a value is out of its range.
    @Test func aLIFXLightWithoutColourTemperatureIsToldItTakesNone() async throws {
        let (home, _) = try await makeHome(
            """
            {"schema": 1, "id": "f", "name": "F", "seed": 5, "rooms": [{"id": "den", "name": "Den", "lights": [
              {"id": "den.mini", "name": "Mini", "kind": "dimmable", "manufacturer": "LIFX", "product": "LIFX Mini White"}
            ]}]}
            """)
        do {
            _ = try await home.submit(LightChange(colorTemperature: 250), to: "den.mini")
            Issue.record("a Mini White took a colour temperature")
        } catch {
            #expect(error.code == .notSupported, "\(error.message)")
        }
    }

    @Test func aLIFXLightInAGroupCommandTakesTheNearerEndOfItsProductsRange() async throws {
        let (home, _) = try await makeHome(Self.tileAndBulb)
        _ = try await home.setAll(LightChange(colorTemperature: 667), in: "den")
        try await home.advance(byMilliseconds: 1_000)
        #expect(try await home.light("den.tile").state.colorTemperature == 400)
        #expect(try await home.light("den.bulb").state.colorTemperature == 667)
    }
}
