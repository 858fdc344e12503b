import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

/// What a light does with commands while off and beyond its rate limit, as its device family's firmware does.
@Suite("Device families: off lights and overload")
struct DeviceFamilyTests {
    @Test func aHueLikeLightRefusesBrightnessAndColourWhileOff() async throws {
        let (home, _) = try await makeHome(
            singleLight(settings: #""whileOff": "refuse""#, state: #"{"isOn": false, "brightness": 40}"#))
        let ticket = try await home.submit(LightChange(brightness: 70), to: "bulb")
        try await home.advance(byMilliseconds: 0)
        let error = try #require(await ticket.result.failure)
        #expect(error.code == .deviceOff)
        #expect(error.code.rawValue == -32013)
        #expect(error.message.contains("is off") && error.message.contains("turn it on first"))
        #expect(error.data["light"] == "bulb" && error.data["connection"] == "brightness")
        #expect(try await home.light("bulb").state.brightness == 40, "nothing was stored")
        // Turning it on in the same change is taken whole.
        let on = try await home.submit(LightChange(isOn: true, brightness: 70), to: "bulb")
        try await home.advance(byMilliseconds: 0)
        #expect(try await on.value.brightness == 70)
    }

    @Test func aRefusalFollowsTheOrderOfCommandsNotTheMomentOfSending() async throws {
        // Sent back to back, "on" then "brightness": the second finds the light on when it arrives.
        let (home, _) = try await makeHome(
            singleLight(
                settings: #""whileOff": "refuse", "latency": {"kind": "fixed", "ms": 50}"#, state: #"{"isOn": false}"#
            ))
        let on = try await home.submit(LightChange(isOn: true), to: "bulb")
        let dim = try await home.submit(LightChange(brightness: 30), to: "bulb")
        try await home.advance(byMilliseconds: 200)
        #expect(try await on.value.isOn)
        #expect(try await dim.value.brightness == 30)
    }

    @Test func aMatterLikeLightStoresChangesForTheNextPowerOn() async throws {
        let (home, log) = try await makeHome(
            singleLight(settings: #""whileOff": "store""#, state: #"{"isOn": false, "brightness": 40}"#))
        let ticket = try await home.submit(LightChange(brightness: 70, colorTemperature: 250), to: "bulb")
        try await home.advance(byMilliseconds: 0)
        #expect(try await ticket.value.brightness == 70)
        #expect(log.values("isOn", of: "bulb").isEmpty, "it stays off")
        _ = try await home.submit(LightChange(isOn: true), to: "bulb")
        try await home.advance(byMilliseconds: 0)
        let state = try await home.light("bulb").state
        #expect(state.isOn && state.brightness == 70 && state.colorTemperature == 250)
    }

    @Test func whatAKindSupportsIsItsListOfCapabilities() {
        for kind in LightKind.allCases {
            for property in LightProperty.allCases {
                #expect(kind.supports(property) == kind.capabilities.contains(property), "\(kind) \(property)")
                #expect(property.isSupported(by: kind) == (!property.isState || kind.capabilities.contains(property)))
            }
        }
        #expect(LightKind.onoff.supports(.isOn) && !LightKind.onoff.supports(.brightness))
        #expect(LightKind.color.supports(.color) && !LightKind.ambiance.supports(.color))
    }

    @Test func theFamilyFollowsTheFixtureThenTheMakerThenThePreset() {
        #expect(DeviceSettings().effectiveFamily(manufacturer: "IKEA") == .generic)
        #expect(DeviceSettings().effectiveFamily(manufacturer: "LIFX") == .lifx)
        #expect(DeviceSettings().effectiveFamily(manufacturer: "Signify") == .hue)
        #expect(DeviceSettings(latency: .preset(.hueZigbee)).effectiveFamily(manufacturer: "IKEA") == .hue)
        #expect(DeviceSettings(latency: .preset(.lifxThread)).effectiveFamily(manufacturer: "") == .lifx)
        #expect(DeviceSettings(latency: .preset(.hueZigbee)).effectiveFamily(manufacturer: "LIFX") == .lifx)
        #expect(
            DeviceSettings(latency: .preset(.hueZigbee), family: .matter).effectiveFamily(manufacturer: "LIFX")
                == .matter)
        // What a family's firmware does unless the fixture says otherwise.
        #expect(DeviceFamily.hue.defaultWhileOff == .refuse && DeviceFamily.lifx.defaultWhileOff == .store)
        #expect(DeviceFamily.generic.defaultWhileOff == .store && DeviceFamily.matter.defaultWhileOff == .store)
        #expect(DeviceFamily.lifx.defaultOverload == .drop && DeviceFamily.hue.defaultOverload == .busy)
        #expect(
            DeviceFamily.lifx.defaultRateLimitPerSecond == 20 && DeviceFamily.generic.defaultRateLimitPerSecond == nil)
    }

    @Test func aBridgeLikeDeviceAnswersBusyAtOnceBeyondItsRate() async throws {
        let (home, _) = try await makeHome(singleLight(settings: #""rateLimitPerSecond": 2, "overload": "busy""#))
        _ = try await home.submit(LightChange(brightness: 10), to: "bulb")
        _ = try await home.submit(LightChange(brightness: 20), to: "bulb")
        do {
            _ = try await home.submit(LightChange(brightness: 30), to: "bulb")
            Issue.record("a third command in the same instant was accepted")
        } catch {
            #expect(error.code == .busy && error.data["light"] == "bulb")
        }
        // The bucket refills: half a second later there is room for one more.
        try await home.advance(byMilliseconds: 500)
        _ = try await home.submit(LightChange(brightness: 40), to: "bulb")
    }

    @Test func aLIFXLikeDeviceDropsTheExcessSilentlyAndTheSenderTimesOut() async throws {
        let (home, _) = try await makeHome(
            singleLight(settings: #""rateLimitPerSecond": 2, "overload": "drop", "timeoutMs": 1500"#))
        let first = try await home.submit(LightChange(brightness: 10), to: "bulb")
        let second = try await home.submit(LightChange(brightness: 20), to: "bulb")
        let third = try await home.submit(LightChange(brightness: 30), to: "bulb")
        try await home.advance(byMilliseconds: 0)
        #expect(try await first.value.brightness == 10)
        #expect(try await second.value.brightness == 20)
        #expect(third.settledResult == nil, "no answer yet: the device said nothing")
        try await home.advance(byMilliseconds: 1_499)
        #expect(third.settledResult == nil)
        try await home.advance(byMilliseconds: 1)
        #expect(try #require(await third.result.failure).code == .timedOut)
        #expect(try await home.light("bulb").state.brightness == 20)
    }
}

extension DeviceFamilyTests {
    @Test func aRateLimitSetAtRunTimeIsHeldToOneCommandPerTimeoutToo() async throws {
        let (home, _) = try await makeHome(singleLight(settings: #""timeoutMs": 2000"#))
        do {
            try await home.updateSettings(DeviceSettings(rateLimitPerSecond: 0.2), light: "bulb")
            Issue.record("a rate limit that can never serve a retry was taken")
        } catch {
            #expect(error.code == .invalidParams)
            #expect(error.message.contains("less than one command per timeout (2000 ms)"), "\(error.message)")
        }
        try await home.updateSettings(DeviceSettings(rateLimitPerSecond: 0.5), light: "bulb")
    }

    /// A light added while lumend runs is held to its colour temperatures as a fixture's is: a LIFX Tile takes
    /// 2,500–9,000 K, so not 2,000 K.
    @Test func aLightAddedWithAColourTemperatureItDoesNotTakeIsRefused() async throws {
        let (home, _) = try await makeHome(singleLight())
        var tile = LightFixture(
            id: "tile", name: "Tile", model: DeviceModel(kind: .color, manufacturer: "LIFX", product: "LIFX Tile"))
        tile.state.colorTemperature = 500
        let error = try await #require(throws: LumenError.self) { try await home.addLight(tile, to: "room") }
        #expect(error.code == .invalidParams)
        #expect(
            error.message
                == "light 'tile' takes colour temperatures of 111–400 mireds (2,500–9,000 K), not 500; give one within them"
        )
        #expect(await home.snapshot().rooms.first?.lights.map(\.id) == ["bulb"])
        tile.state.colorTemperature = 400
        try await home.addLight(tile, to: "room")
        #expect(await home.snapshot().rooms.first?.lights.map(\.id) == ["bulb", "tile"])
    }

    /// A light's family cannot change to one that does not take the colour temperature it is at: a LIFX bulb at
    /// 1,500 K is not a Hue light, which takes 2,000–6,500 K, until it is set within them.
    @Test func aFamilyThatDoesNotTakeTheLightsColourTemperatureIsRefused() async throws {
        let (home, _) = try await makeHome(
            singleLight(
                settings: #""latency": "instant", "manufacturer": "LIFX""#, state: #"{"colorTemperature": 667}"#))
        let error = try await #require(throws: LumenError.self) {
            try await home.updateSettings(DeviceSettings(family: .hue), light: "bulb")
        }
        #expect(error.code == .invalidParams)
        #expect(
            error.message
                == "made one of the hue family, light 'bulb' takes colour temperatures of 153–500 mireds "
                + "(2,000–6,500 K), not 667: set its colorTemperature within them first, or keep its family")
        let set = try await home.submit(LightChange(colorTemperature: 500), to: "bulb")
        try await home.advance(byMilliseconds: 0)
        _ = try await set.value
        try await home.updateSettings(DeviceSettings(family: .hue), light: "bulb")
    }

    /// A home of one LIFX Tile at 1,500 K (667 mireds), warmer than it takes, as an older lumend may have saved it
    /// (a fixture's is refused, so it is set after the fixture is read).
    static func tileWarmerThanItTakes() throws -> Home {
        var fixture = try Fixture(
            json: Array(
                singleLight(settings: #""latency": "instant", "manufacturer": "LIFX", "product": "LIFX Tile""#)
                    .utf8))
        fixture.rooms[0].lights[0].state.colorTemperature = 667
        return Home(fixture: fixture, clock: .virtual)
    }

    /// Only a change of family that moves the light's colour temperature out of its range is refused: a light
    /// already outside it (a state an older lumend saved) still takes any setting, and a fade under way is judged
    /// where it lands.
    @Test func onlyAFamilyChangeThatMovesTheColourTemperatureOutsideIsRefused() async throws {
        let legacy = try Self.tileWarmerThanItTakes()
        try await legacy.updateSettings(DeviceSettings(dropProbability: 0.1), light: "bulb")
        try await legacy.updateSettings(DeviceSettings(family: .hue), light: "bulb")
        // Fading to 2,000 K, as a LIFX bulb takes it: not as a Hue light, though it is not there yet.
        let (fading, _) = try await makeHome(
            singleLight(
                settings: #""latency": "instant", "manufacturer": "LIFX""#, state: #"{"colorTemperature": 300}"#))
        let fade = try await fading.submit(LightChange(colorTemperature: 600), to: "bulb", transitionMs: 10_000)
        try await fading.advance(byMilliseconds: 1_000)
        _ = try await fade.value
        let error = try await #require(throws: LumenError.self) {
            try await fading.updateSettings(DeviceSettings(family: .hue), light: "bulb")
        }
        #expect(error.message.contains("not 600 (where its fade lands)"), "\(error.message)")
        // Fading back within it, it may be one.
        let back = try await fading.submit(LightChange(colorTemperature: 300), to: "bulb", transitionMs: 10_000)
        try await fading.advance(byMilliseconds: 1_000)
        _ = try await back.value
        try await fading.updateSettings(DeviceSettings(family: .hue), light: "bulb")
    }

    /// A colour temperature arrives as the light's family takes it then: one sent to a LIFX bulb, warmer than a
    /// Hue light takes, lands as a Hue light's warmest when the bulb became one on its way.
    @Test func aColourTemperatureOnItsWayLandsAsTheFamilyThenTakesIt() async throws {
        let (home, _) = try await makeHome(
            singleLight(settings: #""latency": {"kind": "fixed", "ms": 200}, "manufacturer": "LIFX""#))
        let ticket = try await home.submit(LightChange(colorTemperature: 600), to: "bulb")
        try await home.updateSettings(DeviceSettings(family: .hue), light: "bulb")
        try await home.advance(byMilliseconds: 300)
        #expect(try await ticket.value.colorTemperature == 500)
        #expect(try await home.light("bulb").state.colorTemperature == 500)
    }

    /// A checkpoint is the home's own, as a snapshot is: a light it holds outside its range (as an older lumend
    /// saved it) comes back as it was, not refused half-way through the restore.
    @Test func aCheckpointsLightOutsideItsRangeIsRestored() async throws {
        let home = try Self.tileWarmerThanItTakes()
        try await home.checkpoint("before")
        try await home.removeLight("bulb")
        try await home.restore(checkpoint: "before")
        #expect(try await home.light("bulb").state.colorTemperature == 667)
    }
}

extension Result {
    /// The error, if this is a failure.
    var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
