import LumenModel
import LumenProtocol

extension Home {
    /// Makes a light reachable or unreachable until told otherwise (scheduled faults still apply on top).
    /// - Throws: ``LumenError`` `noSuchEntity` for an unknown light.
    package func setReachable(_ reachable: Bool, light id: LightID) throws(LumenError) {
        guard let index = lights.slot(of: id) else { throw Self.noSuchLight(id, listedBy: .simulation) }
        let was = lights[slot: index].isReachable
        let wasForced = lights[slot: index].forcedUnreachable
        lights[slot: index].forcedUnreachable = !reachable
        if was != lights[slot: index].isReachable { reachabilityChanged(at: index) }
        if wasForced != !reachable { persist(.light(id)) }
    }

    /// Changes a light's device settings at run time (latency, drop probability, timeout, rate limit, power-on
    /// behaviour, what it does while off, overload, family, network). Unset fields keep their current value.
    /// - Throws: ``LumenError`` `noSuchEntity` for an unknown light, `invalidParams` for a rate limit that lets
    ///   less than one command through per timeout, or a change of family that moves the light's colour
    ///   temperature (where a fade lands) out of what it takes; a light outside it already (as an older lumend
    ///   may have saved it) is not refused.
    package func updateSettings(_ settings: DeviceSettings, light id: LightID) throws(LumenError) {
        guard let index = lights.slot(of: id) else { throw Self.noSuchLight(id, listedBy: .simulation) }
        let model = lights[slot: index].model
        let merged = settings.inheriting(from: lightSettings[id] ?? DeviceSettings())
        let effective = effectiveSettings(of: id, in: lights[slot: index].room, own: merged)
        if let problem = effective.rateProblem {
            throw LumenError(.invalidParams, "light '\(id)': \(problem)", data: ["light": .string(id.rawValue)])
        }
        // A change of family that leaves the light's colour temperature (where a fade lands) outside what it takes
        // (a LIFX bulb at 1,500 K made a Hue light) would leave a state no front reads back and sends again. One
        // outside it already (a state an older lumend saved) is not made worse by any other setting.
        let mireds = savedState(at: index).colorTemperature
        if let problem = effective.colorTemperatureProblem(light: id, model: model, mireds: mireds),
            governingSettings(at: index).family.colorTemperatureRange(of: model).contains(mireds)
        {
            let family = effective.effectiveFamily(manufacturer: model.manufacturer)
            let given = settings.family != nil ? "" : " (the latency preset given makes it one)"
            throw LumenError(
                .invalidParams,
                "made one of the \(family.rawValue) family\(given), \(problem)"
                    + "\(transitions[id] != nil ? " (where its fade lands)" : ""): set its colorTemperature within "
                    + "them first, or keep its family",
                data: ["light": .string(id.rawValue), "family": .string(family.rawValue)])
        }
        setOwnSettings(merged, of: id)
    }

    /// Gives light `id` its own `settings` (`nil` for none, so that it takes its room's and the home's) and
    /// tells everyone who depends on them: watchers, the state directory and the fronts.
    func setOwnSettings(_ settings: DeviceSettings?, of id: LightID) {
        lightSettings[id] = settings
        if let slot = lights.slot(of: id) { lights[slot: slot].governingSettings = nil }
        // The rate limit may have changed; start its bucket afresh.
        rateBuckets[id] = nil
        emit(.light(id, .settings), .object((settings ?? DeviceSettings()).jsonObject))
        persist(.light(id))
        tellFronts(.settingsChanged(id))
    }

    /// Cuts a light's power for `durationMs`; when it comes back it restores its last state or its factory
    /// default, as its `powerOn` setting says.
    package func powerCycle(light id: LightID, durationMs: Double = 1_000) throws(LumenError) {
        guard lights[id] != nil else { throw Self.noSuchLight(id, listedBy: .simulation) }
        refreshRealTime()
        let cycle = faults.addPowerCycle(of: id, at: nowMicros, durationMs: durationMs)
        applyScheduledFault(cycle.index, begins: true)
        schedule(.fault(index: cycle.index, begins: false), at: cycle.endsAt)
    }

    /// Carries out the beginning or end of the fault at `index` of the plan, as ``FaultPlan`` decides it.
    func applyScheduledFault(_ index: Int, begins: Bool) {
        let fault = faults[index]
        guard var light = lights[fault.light] else { return }
        let was = light.isReachable
        let endsFades = FaultPlan.apply(fault, begins: begins, to: &light)
        lights[fault.light] = light
        if endsFades { dropTransitions(of: fault.light) }
        if begins, fault.kind == .powerCycle {
            tellFronts(.powerCut(fault.light, downMs: fault.untilMs - fault.fromMs))
        }
        if was != light.isReachable, let index = lights.slot(of: fault.light) { reachabilityChanged(at: index) }
        if !begins, fault.kind == .powerCycle, let index = lights.slot(of: fault.light),
            let state = FaultPlan.stateAfterPowerReturns(
                governingSettings(at: index).powerOn, from: lights[slot: index].state)
        {
            setState(at: index, to: state)
        }
        // A power cut ends a fade where it stands, and a restart may restore the factory default: both are saved.
        if fault.kind == .powerCycle { persist(.light(fault.light)) }
    }

    /// Tells the controller's side of a change in whether the light at `index` of `lights` can be reached: one
    /// that comes back is reported at once; one that goes is reported after its family's delay, unless it is
    /// back by then.
    func reachabilityChanged(at index: LightTable.Slot) {
        lights[slot: index].reachabilitySpell &+= 1
        let id = lights[slot: index].id
        if lights[slot: index].isReachable {
            guard lights[slot: index].reportsUnreachable else { return }
            lights[slot: index].reportsUnreachable = false
            emit(.light(id, .isReachable), true)
            return
        }
        let delay = governingSettings(at: index).family.unreachableReportDelayMs
        guard delay > 0 else {
            reportUnreachable(id, spell: lights[slot: index].reachabilitySpell)
            return
        }
        schedule(
            .reportUnreachable(id, spell: lights[slot: index].reachabilitySpell), at: nowMicros + Self.micros(delay))
    }

    /// Reports a light unreachable, if it still is in the spell the report was for.
    func reportUnreachable(_ id: LightID, spell: UInt32) {
        guard let index = lights.slot(of: id), lights[slot: index].reachabilitySpell == spell,
            !lights[slot: index].reportsUnreachable
        else { return }
        lights[slot: index].reportsUnreachable = true
        emit(.light(id, .isReachable), false)
    }
}
