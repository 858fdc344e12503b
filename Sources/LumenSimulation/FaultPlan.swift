import LumenModel

/// The home's scheduled faults: the fixture's, then the power cycles asked for at run time, each known by its
/// place in the plan, which the events that begin and end it carry.
///
/// It decides what a fault's beginning or end does to its light; the home carries that out and tells of it.
///
/// ```swift
/// var plan = FaultPlan(fixture.faultSchedule)
/// for (event, due) in plan.fixtureEvents { queue.schedule(event, at: due) }
/// let cycle = plan.addPowerCycle(of: "hall.lamp", at: now, durationMs: 1_000)
/// ```
struct FaultPlan: Sendable {
    /// Every fault, by its place.
    private(set) var faults: [ScheduledFault]
    /// How many of `faults` came from the fixture; later ones were added at run time.
    let fixtureCount: Int

    /// A plan holding the fixture's `schedule`.
    init(_ schedule: [ScheduledFault]) {
        faults = schedule
        fixtureCount = schedule.count
    }

    /// The fault at `index`.
    subscript(index: Int) -> ScheduledFault { faults[index] }

    /// The fixture's faults: what a snapshot saves (run-time power cycles are not part of the home's description).
    var fixtureFaults: [ScheduledFault] { Array(faults.prefix(fixtureCount)) }

    /// The events that begin and end each of the fixture's faults, in the order they are scheduled.
    var fixtureEvents: [(event: SimulationEvent, due: Int64)] {
        faults.prefix(fixtureCount).enumerated().flatMap { index, fault in
            [
                (SimulationEvent.fault(index: index, begins: true), Home.micros(fault.fromMs)),
                (SimulationEvent.fault(index: index, begins: false), Home.micros(fault.untilMs)),
            ]
        }
    }

    /// Adds a power cut of `light` from `now` (simulation microseconds) for `durationMs`.
    /// - Returns: its place, to begin it by, and when its end is due.
    mutating func addPowerCycle(of light: LightID, at now: Int64, durationMs: Double) -> (index: Int, endsAt: Int64) {
        let fromMs = Double(now) / 1_000
        faults.append(ScheduledFault(light: light, kind: .powerCycle, fromMs: fromMs, untilMs: fromMs + durationMs))
        return (faults.count - 1, now + Home.micros(durationMs))
    }

    /// Counts `fault` beginning or ending on `light`: a light with any fault under way cannot be reached. A power
    /// cut also ends the light's fades where they stand.
    /// - Returns: whether the light's fades end.
    static func apply(_ fault: ScheduledFault, begins: Bool, to light: inout SimulatedLight) -> Bool {
        light.activeFaults = max(0, light.activeFaults + (begins ? 1 : -1))
        guard begins, fault.kind == .powerCycle else { return false }
        light.transitionGeneration &+= 1
        return true
    }

    /// The state a light whose power comes back takes, as its `powerOn` says, from `state`, the one it had;
    /// `nil` when it keeps that.
    static func stateAfterPowerReturns(_ powerOn: PowerOnBehavior, from state: LightState) -> LightState? {
        switch powerOn {
        case .restore: return nil
        case .default: return .factoryDefault
        case .on:
            var state = state
            state.isOn = true
            return state
        }
    }
}
