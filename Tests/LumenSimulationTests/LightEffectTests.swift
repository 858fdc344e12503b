import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

/// Effects a light shows besides its state: a colour loop until stopped, breathing that ends by itself.
@Suite("Light effects")
struct LightEffectTests {
    @Test func aColourLoopRunsUntilStoppedAndBreathingEndsByItself() async throws {
        let (home, log) = try await makeHome(singleLight())
        #expect(try await home.value(of: .light("bulb", .effect)) == "none")
        try await home.setEffect(colorLoop: true, on: "bulb")
        try await home.setEffect(breathing: .once, on: "bulb")
        #expect(try await home.effect(of: "bulb") == LightEffect(colorLoop: true, breathing: .once))
        #expect(try await home.value(of: .light("bulb", .effect)) == "breathe")
        try await home.advance(byMilliseconds: 999)
        #expect(try await home.effect(of: "bulb").breathing == .once)
        try await home.advance(byMilliseconds: 1)
        #expect(try await home.effect(of: "bulb") == LightEffect(colorLoop: true))
        // Asked again for long, it breathes 15 s; stopped, it stops at once.
        try await home.setEffect(breathing: .long, on: "bulb")
        try await home.advance(byMilliseconds: 14_000)
        #expect(try await home.value(of: .light("bulb", .effect)) == "breathe")
        try await home.setEffect(colorLoop: false, breathing: .some(nil), on: "bulb")
        #expect(try await home.effect(of: "bulb") == .none)
        #expect(
            log.values("effect", of: "bulb").map(\.value) == ["colorLoop", "breathe", "colorLoop", "breathe", "none"],
            "announced as the value changes, not for each call")
    }

    @Test func aLightWithoutColourHasNoColourLoopButBreathes() async throws {
        let (home, _) = try await makeHome(singleLight(kind: "dimmable"))
        await #expect(throws: LumenError.self) { try await home.setEffect(colorLoop: true, on: "bulb") }
        try await home.setEffect(breathing: .once, on: "bulb")
        #expect(try await home.value(of: .light("bulb", .effect)) == "breathe")
        await #expect(throws: LumenError.self) { try await home.setEffect(breathing: .once, on: "nothing") }
    }
}
