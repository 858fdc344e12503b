import LumenModel
import LumenProtocol
import Testing

@testable import LumenSimulation

/// The home's scheduled faults, without a home: when each begins and ends, and what it does to its light.
@Suite("The plan of faults")
struct FaultPlanTests {
    static let schedule = [
        ScheduledFault(light: "hall.lamp", kind: .unreachable, fromMs: 100, untilMs: 250.5),
        ScheduledFault(light: "hall.spot", kind: .powerCycle, fromMs: 0, untilMs: 1_000),
    ]

    static func light(_ id: LightID = "hall.lamp") -> SimulatedLight {
        SimulatedLight(
            fixture: LightFixture(
                id: id, name: "Lamp", model: DeviceModel(kind: .color, manufacturer: "Lumen", product: "Test")),
            room: "hall", seed: 1)
    }

    @Test func eachFixtureFaultBeginsAndEndsAtItsOwnTimesInScheduleOrder() {
        let plan = FaultPlan(Self.schedule)
        let events = plan.fixtureEvents
        #expect(
            events.map(\.event) == [
                .fault(index: 0, begins: true), .fault(index: 0, begins: false),
                .fault(index: 1, begins: true), .fault(index: 1, begins: false),
            ])
        #expect(events.map(\.due) == [100_000, 250_500, 0, 1_000_000])
    }

    @Test func aPowerCycleAskedForLaterIsPlannedButNotSaved() {
        var plan = FaultPlan(Self.schedule)
        let cycle = plan.addPowerCycle(of: "hall.spot", at: 2_500, durationMs: 1_000)
        #expect(cycle.index == 2)
        #expect(cycle.endsAt == 1_002_500)
        #expect(plan[2] == ScheduledFault(light: "hall.spot", kind: .powerCycle, fromMs: 2.5, untilMs: 1_002.5))
        #expect(plan.fixtureFaults == Self.schedule)
        // Only the fixture's faults are scheduled from the fixture.
        #expect(plan.fixtureEvents.count == 4)
    }

    @Test func overlappingFaultsKeepALightUnreachableUntilTheLastEnds() {
        var light = Self.light()
        let fault = Self.schedule[0]
        #expect(!FaultPlan.apply(fault, begins: true, to: &light))
        #expect(!FaultPlan.apply(fault, begins: true, to: &light))
        #expect(!light.isReachable)
        #expect(!FaultPlan.apply(fault, begins: false, to: &light))
        #expect(!light.isReachable)
        #expect(!FaultPlan.apply(fault, begins: false, to: &light))
        #expect(light.isReachable)
        // An end with none under way does not count below zero.
        _ = FaultPlan.apply(fault, begins: false, to: &light)
        _ = FaultPlan.apply(fault, begins: true, to: &light)
        #expect(!light.isReachable)
    }

    @Test func aPowerCutEndsTheLightsFadesAsItBeginsOnly() {
        var light = Self.light("hall.spot")
        let generation = light.transitionGeneration
        let cut = Self.schedule[1]
        #expect(FaultPlan.apply(cut, begins: true, to: &light))
        #expect(light.transitionGeneration == generation &+ 1)
        #expect(!FaultPlan.apply(cut, begins: false, to: &light))
        #expect(light.transitionGeneration == generation &+ 1)
        #expect(light.isReachable)
    }

    @Test func aLightWhosePowerReturnsComesBackAsItsPowerOnSays() {
        var dimmedOff = LightState.factoryDefault
        dimmedOff.isOn = false
        dimmedOff.brightness = 12
        #expect(FaultPlan.stateAfterPowerReturns(.restore, from: dimmedOff) == nil)
        #expect(FaultPlan.stateAfterPowerReturns(.default, from: dimmedOff) == .factoryDefault)
        var on = dimmedOff
        on.isOn = true
        #expect(FaultPlan.stateAfterPowerReturns(.on, from: dimmedOff) == on)
    }
}
