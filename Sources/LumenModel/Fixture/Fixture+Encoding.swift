import LumenProtocol

extension Fixture {
    /// The fixture as a JSON value, keys in schema order, leaving out what is at its default.
    public var jsonValue: JSONValue {
        var object: JSONObject = ["schema": .int(schema), "id": .string(id), "name": .string(name)]
        object["seed"] = .number(JSONNumber(seed))
        if let generation { object["generation"] = .int(generation) }
        if let origin { object["origin"] = .object(["id": .string(origin.id), "digest": .string(origin.digest)]) }
        if let durability { object["durability"] = .string(durability.rawValue) }
        if let start { object["start"] = .string(start.time(atMicros: 0).iso8601) }
        if !defaults.isEmpty { object["defaults"] = .object(defaults.jsonObject) }
        if discovery != DiscoverySettings() {
            object["discovery"] = .object([
                "scanDurationMs": .double(discovery.scanDurationMs),
                "maxLightsPerScan": .int(discovery.maxLightsPerScan), "jitterMs": .double(discovery.jitterMs),
            ])
        }
        if bridge != BridgeSettings() {
            object["bridge"] = .object([
                "lightCommandsPerSecond": .double(bridge.lightCommandsPerSecond),
                "groupCommandsPerSecond": .double(bridge.groupCommandsPerSecond),
            ])
        }
        for name in Self.frontNames { object[name] = fronts[name] }
        object["rooms"] = .array(rooms.map(\.jsonValue))
        if !faultSchedule.isEmpty { object["faultSchedule"] = .array(faultSchedule.map(\.jsonValue)) }
        return .object(object)
    }

    /// The fixture as indented JSON text.
    public func prettyJSON() -> String { jsonValue.prettySerialized() }
}

extension DeviceSettings {
    /// The settings that are set, as a JSON object.
    public var jsonObject: JSONObject {
        var object = JSONObject()
        if let latency { object["latency"] = latency.jsonValue }
        if let dropProbability { object["dropProbability"] = .double(dropProbability) }
        if let timeoutMs { object["timeoutMs"] = .double(timeoutMs) }
        if let rateLimitPerSecond { object["rateLimitPerSecond"] = .double(rateLimitPerSecond) }
        if let powerOn { object["powerOn"] = .string(powerOn.rawValue) }
        if let whileOff { object["whileOff"] = .string(whileOff.rawValue) }
        if let overload { object["overload"] = .string(overload.rawValue) }
        if let family { object["family"] = .string(family.rawValue) }
        if let network { object["network"] = .string(network.rawValue) }
        return object
    }
}

extension LatencyModel {
    /// The model as fixture JSON: a preset's name when it is one.
    public var jsonValue: JSONValue {
        if let preset { return .string(preset.rawValue) }
        switch self {
        case .fixed(let ms): return .object(["kind": "fixed", "ms": .double(ms)])
        case .uniform(let low, let high):
            return .object(["kind": "uniform", "minMs": .double(low), "maxMs": .double(high)])
        case .normal(let mean, let stddev, let max):
            var object: JSONObject = ["kind": "normal", "meanMs": .double(mean), "stddevMs": .double(stddev)]
            if let max { object["maxMs"] = .double(max) }
            return .object(object)
        case .logNormal(let median, let sigma, let max):
            var object: JSONObject = ["kind": "logNormal", "medianMs": .double(median), "sigma": .double(sigma)]
            if let max { object["maxMs"] = .double(max) }
            return .object(object)
        case .mixture(let components):
            return .object([
                "kind": "mixture",
                "components": .array(
                    components.map { .object(["weight": .double($0.weight), "model": $0.model.jsonValue]) }),
            ])
        }
    }
}

extension RoomFixture {
    var jsonValue: JSONValue {
        var object: JSONObject = ["id": .string(id.rawValue), "name": .string(name)]
        for member in defaults.jsonObject { object[member.key] = member.value }
        object["lights"] = .array(lights.map(\.jsonValue))
        if !undiscovered.isEmpty {
            object["undiscovered"] = .array(
                undiscovered.map { .object(["delayMs": .double($0.delayMs), "light": $0.light.jsonValue]) })
        }
        return .object(object)
    }
}

extension LightFixture {
    var jsonValue: JSONValue {
        var object: JSONObject = [
            "id": .string(id.rawValue), "name": .string(name), "kind": .string(model.kind.rawValue),
            "manufacturer": .string(model.manufacturer), "product": .string(model.product),
            "state": state.jsonValue(for: model.kind),
        ]
        if !isReachable { object["reachable"] = false }
        if let lifxAddress { object["lifx"] = .object(["address": .string(lifxAddress.description)]) }
        for member in settings.jsonObject { object[member.key] = member.value }
        return .object(object)
    }
}

extension LightState {
    /// The state as JSON, with only the properties a `kind` of light has.
    public func jsonValue(for kind: LightKind) -> JSONValue {
        var object: JSONObject = ["isOn": .bool(isOn)]
        let capabilities = kind.capabilities
        if capabilities.contains(.brightness) { object["brightness"] = .double(brightness) }
        if capabilities.contains(.colorTemperature) { object["colorTemperature"] = .int(colorTemperature) }
        if capabilities.contains(.color) { object["color"] = color.jsonValue }
        return .object(object)
    }
}

extension ScheduledFault {
    var jsonValue: JSONValue {
        .object([
            "light": .string(light.rawValue), "fault": .string(kind.rawValue), "fromMs": .double(fromMs),
            "untilMs": .double(untilMs),
        ])
    }
}
