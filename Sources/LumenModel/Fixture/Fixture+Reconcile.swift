import LumenProtocol

/// What reconciling a saved state with its edited fixture did, for the log.
public struct FixtureReconciliation: Sendable, Hashable {
    /// Lights the fixture has and the saved state had not: they start as the fixture gives them.
    public var added: [LightID] = []
    /// Lights the saved state had and the fixture has not: they are gone.
    public var removed: [LightID] = []
    /// Lights in both whose kind the fixture changed: they start in the fixture's state, as the saved one does not
    /// fit them.
    public var restarted: [LightID] = []
    /// Lights in both whose saved colour temperature the light the fixture makes of them does not take (an A19 at
    /// 1,500 K made a Tile, a range narrowed since): they keep their saved state, that colour temperature brought
    /// to the nearer end of what they take.
    public var broughtIntoRange: [LightID] = []
    /// Lights a discovery scan had found that the fixture still lists as waiting to be found: kept as found.
    public var keptDiscovered: [LightID] = []

    /// One line for the log: what came, what went and what kept its saved state.
    public func summary(kept: Int) -> String {
        func list(_ ids: [LightID]) -> String { ids.map(\.rawValue).joined(separator: ", ") }
        var parts = ["\(kept) light\(kept == 1 ? "" : "s") kept their saved state"]
        if !added.isEmpty { parts.append("added from the fixture: \(list(added))") }
        if !removed.isEmpty { parts.append("removed, as the fixture no longer has them: \(list(removed))") }
        if !restarted.isEmpty { parts.append("in the fixture's state, as their kind changed: \(list(restarted))") }
        if !broughtIntoRange.isEmpty {
            parts.append("their colour temperature brought into what they now take: \(list(broughtIntoRange))")
        }
        if !keptDiscovered.isEmpty { parts.append("kept as discovered: \(list(keptDiscovered))") }
        return parts.joined(separator: "; ")
    }
}

extension Fixture {
    /// This fixture, an edited version of the one `saved` was started from, with what `saved` kept.
    ///
    /// The rule: the home is the fixture's (its rooms and their order, the lights in each, every name, kind,
    /// setting, LIFX address, light waiting to be discovered, the fault schedule, seed and durability), and
    /// each light in both keeps its saved state and reachability, unless the fixture changed its kind; a saved
    /// colour temperature the fixture's light does not take is brought to the nearer end of what it takes. A light
    /// the saved state had and the fixture does not is gone, except one a scan had found that the fixture
    /// still lists as waiting to be found: it stays found, at the end of its room, in its saved state. Each
    /// front keeps the record it saved (the Hue bridge its users, numbers, scenes and groups, taking lights that
    /// went out of its scenes and groups as a bridge does); a front that saved none starts from the fixture's.
    /// The generation goes on from the saved one.
    ///
    /// - Parameter saved: the state saved from the earlier version, its journal replayed.
    /// - Returns: the home to start from, and what the reconciling did.
    public func reconciled(keeping saved: Fixture) -> (Fixture, FixtureReconciliation) {
        var savedLights: [LightID: LightFixture] = [:]
        var savedOrder: [LightID] = []
        for room in saved.rooms {
            for light in room.lights {
                savedLights[light.id] = light
                savedOrder.append(light.id)
            }
        }
        var report = FixtureReconciliation()
        var result = self
        var placed = Set<LightID>()
        for roomIndex in result.rooms.indices {
            for lightIndex in result.rooms[roomIndex].lights.indices {
                let light = result.rooms[roomIndex].lights[lightIndex]
                placed.insert(light.id)
                guard let old = savedLights[light.id] else {
                    report.added.append(light.id)
                    continue
                }
                guard let state = kept(old, as: light, in: result.rooms[roomIndex], report: &report) else {
                    report.restarted.append(light.id)
                    continue
                }
                result.rooms[roomIndex].lights[lightIndex].state = state
                result.rooms[roomIndex].lights[lightIndex].isReachable = old.isReachable
            }
            // A light found by a scan stays found: the fixture lists it, unchanged, as waiting.
            let room = result.rooms[roomIndex]
            for pending in room.undiscovered {
                guard let old = savedLights[pending.light.id], !placed.contains(old.id) else { continue }
                var found = pending.light
                if let state = kept(old, as: found, in: room, report: &report) {
                    found.state = state
                    found.isReachable = old.isReachable
                } else {
                    report.restarted.append(found.id)
                }
                result.rooms[roomIndex].lights.append(found)
                result.rooms[roomIndex].undiscovered.removeAll { $0.light.id == found.id }
                placed.insert(found.id)
                report.keptDiscovered.append(found.id)
            }
        }
        report.removed = savedOrder.filter { !placed.contains($0) }
        // Each front's own record (the Hue bridge's users, numbers, scenes and groups) is kept as saved; the
        // front takes lights that went out of it itself as it reads the home.
        result.fronts.merge(saved.fronts) { _, kept in kept }
        result.generation = saved.generation
        result.origin = nil
        return (result, report)
    }

    /// The saved state of `old` as `light` keeps it, as this fixture makes it in `room`; `nil` when the fixture
    /// changed its kind. A colour temperature the light does not take is brought to the nearer end of what it
    /// takes, and the light listed in `report` for it.
    func kept(
        _ old: LightFixture, as light: LightFixture, in room: RoomFixture, report: inout FixtureReconciliation
    ) -> LightState? {
        guard old.model.kind == light.model.kind else { return nil }
        var state = old.state
        let settings = light.settings.inheriting(from: room.defaults).inheriting(from: defaults)
        if light.model.kind.supports(.colorTemperature) {
            let within = settings.colorTemperatureRange(of: light.model).clamping(state.colorTemperature)
            if within != state.colorTemperature {
                // A colour light showing that temperature's white shows the new one's, as a command moving the
                // temperature moves it: else it would go on showing the white it no longer takes.
                if light.model.kind.supports(.color), state.showsColorTemperature {
                    state.color = CIEColor(mireds: within)
                }
                state.colorTemperature = within
                report.broughtIntoRange.append(light.id)
            }
        }
        return state
    }
}
