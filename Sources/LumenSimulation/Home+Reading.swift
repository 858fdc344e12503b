import LumenModel
import LumenProtocol

/// A light as a reader sees it.
public struct LightSnapshot: Sendable, Hashable {
    /// Its ID.
    package var id: LightID
    /// Its name.
    package var name: String
    /// Its room.
    package var room: RoomID
    /// What device it is.
    package var model: DeviceModel
    /// Its state now (mid-transition, the current step).
    package var state: LightState
    /// Whether the controller reports it reachable (its family's controller notices a light gone only after a
    /// while; ``Home/groundTruth(of:)`` tells whether it really is).
    package var isReachable: Bool
}

extension Home {
    /// The room IDs, in order.
    package var roomIDs: [RoomID] { roomOrder }

    /// Whether a room exists.
    package func hasRoom(_ room: RoomID) -> Bool { rooms[room] != nil }

    /// Whether a light exists.
    package func hasLight(_ light: LightID) -> Bool { lights[light] != nil }

    /// A light as it is now.
    package func light(_ id: LightID) throws(LumenError) -> LightSnapshot {
        guard let index = lights.slot(of: id) else { throw Self.noSuchLight(id) }
        return snapshot(at: index)
    }

    /// The light in `index` as it is now, read where it lies rather than copied out whole.
    func snapshot(at index: LightTable.Slot) -> LightSnapshot {
        LightSnapshot(
            id: lights[slot: index].id, name: lights[slot: index].name, room: lights[slot: index].room,
            model: lights[slot: index].model, state: lights[slot: index].state,
            isReachable: !lights[slot: index].reportsUnreachable)
    }

    /// Where light `id` lands once its fades under way have (its state, when none is under way): what a
    /// snapshot saves and a command confirms. A front that draws over a fade compares it to tell whether another
    /// command changed the light since.
    /// - Throws: ``LumenError`` `noSuchEntity` for an unknown light.
    package func landing(of id: LightID) throws(LumenError) -> LightState {
        guard let index = lights.slot(of: id) else { throw Self.noSuchLight(id) }
        return savedState(at: index)
    }

    /// The number of lights in the home.
    package var lightCount: Int { lights.count }

    /// The clock as the `simulation` scope's `clock` value shows it: `{mode, runsItself, nowMs, wallTime}`.
    package var clockValue: JSONValue {
        .object([
            "mode": .string(clockMode.rawValue), "runsItself": .bool(clockRunsItself),
            "nowMs": .double(nowMilliseconds), "wallTime": .string(wallTime.iso8601),
        ])
    }

    /// The value of a property as the wire shows it: what `get` and `subscribe` return.
    ///
    /// For every property that announces its changes, this is the value its last change announced.
    /// - Throws: ``LumenError`` for an unknown entity, or a property the device does not have.
    package func value(of key: PropertyKey) throws(LumenError) -> JSONValue {
        switch key {
        case .home(let property):
            switch property {
            case .name: return .string(name)
            case .roomIDs: return .array(roomOrder.map { .string($0.rawValue) })
            case .lastCommand: return commandLog.lastSettled?.jsonValue ?? .null
            }
        case .room(let id, let property):
            guard let room = rooms[id] else { throw Self.noSuchRoom(id) }
            switch property {
            case .name: return .string(room.name)
            case .lightIDs: return .array(room.lightIDs.map { .string($0.rawValue) })
            case .isScanning: return .bool(discovery.scan(in: id) != nil)
            case .scan: return discovery.scanValue(in: id)
            case .anyOn: return .bool(room.groupState.anyOn)
            case .allOn: return .bool(room.groupState.allOn)
            }
        case .light(let id, let property):
            guard let light = lights[id] else { throw Self.noSuchLight(id) }
            guard property.isSupported(by: light.model.kind) else {
                throw Self.notSupported(property, by: id, light.model.kind)
            }
            switch property {
            case .name: return .string(light.name)
            case .model:
                var model: JSONObject = [
                    "kind": .string(light.model.kind.rawValue), "manufacturer": .string(light.model.manufacturer),
                    "product": .string(light.model.product),
                ]
                // A bulb on the LIFX LAN is known there by its serial.
                if let index = lights.slot(of: id), governingSettings(at: index).network == .lifxLAN {
                    model["serial"] = .string(DeviceSerial.text(DeviceSerial.of(home: fixtureIdentity.id, light: id)))
                }
                return .object(model)
            case .isReachable: return .bool(!light.reportsUnreachable)
            case .effect: return .string((effects[id]?.effect ?? .none).name)
            case .settings: return .object((lightSettings[id] ?? DeviceSettings()).jsonObject)
            case .isOn, .brightness, .colorTemperature, .color: return light.state.value(of: property) ?? .null
            }
        }
    }

    /// Reads a property, from the published values when they have it (no wait for the actor), else on the
    /// actor, filling them.
    package nonisolated func read(_ key: PropertyKey) async throws(LumenError) -> JSONValue {
        if let value = published.value(for: key) { return value }
        return try await readAndPublish(key)
    }

    private func readAndPublish(_ key: PropertyKey) throws(LumenError) -> JSONValue {
        let value = try value(of: key)
        published.fill(key, value)
        // Marked on the entity too, so that its changes are looked for in the table (see `PropertyAudience`).
        switch key {
        case .home: break
        case .room(let id, let property): rooms[id]?.audience.markPublished(property)
        case .light(let id, let property):
            if let slot = lights.slot(of: id) { lights[slot: slot].audience.markPublished(property) }
        }
        return value
    }
}

/// What a light really is and does, beside what its controller reports: for tests that check both.
package struct DeviceTruth: Sendable, Hashable {
    /// The light.
    var light: LightID
    /// Its family, as the fixture says or its maker and preset imply.
    var family: DeviceFamily
    /// Whether it can really be reached now.
    package var isReachable: Bool
    /// Whether its controller reports it reachable (``LightSnapshot/isReachable``).
    var isReportedReachable: Bool
    /// Its state now, mid-fade the current step.
    var state: LightState
    /// The properties fading now, each on its own.
    package var fading: [LightProperty]

    /// `{light, family, reachable, reportedReachable, state, fading}`, with only the state the kind has.
    package func jsonValue(kind: LightKind) -> JSONValue {
        var state = JSONObject()
        // In the properties' declared order, not the set's, which differs from one process to the next.
        for property in LightProperty.allCases where kind.capabilities.contains(property) {
            state[property.rawValue] = self.state.value(of: property)
        }
        return .object([
            "light": .string(light.rawValue), "family": .string(family.rawValue), "reachable": .bool(isReachable),
            "reportedReachable": .bool(isReportedReachable), "state": .object(state),
            "fading": .array(fading.map { .string($0.rawValue) }),
        ])
    }
}

extension Home {
    /// What `body` reads of the home, or does with it, in one visit: every value it reads is from the same moment,
    /// with no change in between what it reads and what it registers (a subscription's first value and its
    /// registration), and a front that needs several values (the Hue bridge's search, its lights and the clock)
    /// makes one hop, not one a value.
    ///
    /// ```swift
    /// let (search, nowMs) = await home.reading { home in (home.latestSearch(), home.nowMilliseconds) }
    /// ```
    package func reading<Value: Sendable, Failure: Error>(_ body: @Sendable (isolated Home) throws(Failure) -> Value)
        throws(Failure) -> Value
    {
        try body(self)
    }
}

extension Home {
    /// What a light really is and does now, beside what its controller reports.
    /// - Throws: ``LumenError`` `noSuchEntity` for an unknown light.
    package func groundTruth(of id: LightID) throws(LumenError) -> (truth: DeviceTruth, kind: LightKind) {
        guard let index = lights.slot(of: id) else { throw Self.noSuchLight(id, listedBy: .simulation) }
        let fades = transitions[id]
        var fading: [LightProperty] = []
        if fades?.brightness != nil { fading.append(.brightness) }
        if fades?.colorTemperature != nil { fading.append(.colorTemperature) }
        if fades?.color != nil { fading.append(.color) }
        let truth = DeviceTruth(
            light: id, family: governingSettings(at: index).family, isReachable: lights[slot: index].isReachable,
            isReportedReachable: !lights[slot: index].reportsUnreachable, state: lights[slot: index].state,
            fading: fading)
        return (truth, lights[slot: index].model.kind)
    }
}
