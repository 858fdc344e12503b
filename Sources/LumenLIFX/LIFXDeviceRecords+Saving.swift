import LumenModel
import LumenProtocol
import LumenSimulation

extension LIFXDeviceRecords {
    /// The name the bulbs' record is saved under with the home (``Fixture/fronts``).
    static let recordName = "lifx"

    /// Reads what the home keeps for the bulbs, once: on the front's first turn of the home, before anything a
    /// client sends is placed over it. This is the bulbs' boot: a HEV cycle kept under way ends interrupted, as a
    /// LIFX Clean's does when its power is lost, and is saved so.
    func loadOnce(from home: isolated Home) {
        let first = isLoaded.withLock { loaded in
            defer { loaded = true }
            return !loaded
        }
        guard first else { return }
        load(home.frontRecord(Self.recordName), atMs: home.nowMilliseconds, booting: true)
        save(to: home)
    }

    /// Reads again what the home keeps for the bulbs, in place of what they held: after a reset or a checkpoint's
    /// restore, whose record is now the home's. Boots stay: a restore is no reboot, and a HEV cycle the target
    /// held runs again for the time it had left.
    func reload(from home: isolated Home) {
        isLoaded.withLock { $0 = true }
        unsaved.withLock { $0 = [] }
        clear()
        load(home.frontRecord(Self.recordName), atMs: home.nowMilliseconds, booting: false)
    }

    /// Saves the entries of the bulbs that changed since the last save with `home`, each on its own: a journal line
    /// carries one bulb. A light removed meanwhile is forgotten instead (the home dropped its entry with it).
    ///
    /// Bulbs answering side by side save once for them all; a bulb sending the same again saves nothing.
    func save(to home: isolated Home) {
        loadOnce(from: home)
        // Taken before the entries are read, so that a change made while they are read is saved by the next save.
        let lights = unsaved.withLock { unsaved in
            defer { unsaved = [] }
            return unsaved
        }
        let nowMs = home.nowMilliseconds
        for light in lights.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard home.hasLight(light) else {
                forget(light)
                continue
            }
            home.saveFrontEntry(Self.recordName, key: light.rawValue, entry(of: light, atMs: nowMs))
        }
    }

    /// What `light` keeps across restarts at `nowMs`, `nil` for nothing: the location and group a client gave
    /// it, its infrared level, its HEV settings and cycle (which a restart ends, but a checkpoint's restore brings
    /// back), its zones or the pixels it shows (frame buffer 0; the
    /// others do not outlive the bulb's power), where its tiles are, its effects and the colour a client last gave
    /// it. Boots are left out: a restart is a boot.
    func entry(of light: LightID, atMs nowMs: Double) -> JSONValue? {
        var entry = JSONObject()
        entry["location"] = locations.withLock { $0[light] }?.jsonValue
        entry["group"] = groups.withLock { $0[light] }?.jsonValue
        entry["infrared"] = infraredLevels.withLock { $0[light] }.map { .int(Int($0)) }
        entry["hev"] = hevStates.withLock { $0[light] }.map { hevJSON($0, atMs: nowMs) }
        entry["zones"] = zoneStates.withLock { $0[light] }?.jsonValue
        if let pixels = matrixStates.withLock({ $0[light] }) {
            entry["pixels"] = .object(["base": pixels.base.jsonValue, "colors": pixels.colors.jsonValue])
        }
        if let tiles = tilePositions.withLock({ $0[light] }) {
            let placed = tiles.sorted { $0.key < $1.key }.map { tile, position -> JSONValue in
                .array([.int(tile), .double(Double(position.x)), .double(Double(position.y))])
            }
            entry["tiles"] = .array(placed)
        }
        entry["multiZoneEffect"] = multiZoneEffects.withLock { $0[light] }?.jsonValue
        entry["tileEffect"] = tileEffects.withLock { $0[light] }?.jsonValue
        if let given = givenColors.withLock({ $0[light] }) {
            let state = given.state
            entry["color"] = .object([
                "hsbk": given.color.jsonValue, "brightness": .double(state.brightness),
                "mireds": .int(state.colorTemperature), "x": .double(state.color.x), "y": .double(state.color.y),
            ])
        }
        return entry.count == 0 ? nil : .object(entry)
    }

    /// Takes back what ``entry(of:atMs:)`` wrote for each bulb, at `nowMs`; `booting`, as the bulbs start, a HEV
    /// cycle kept under way ends interrupted (a change to save). The record is the front's own: a part that does
    /// not read (written by another build, say) is left out, and the bulb reports that part as if never set.
    func load(_ record: JSONValue?, atMs nowMs: Double, booting: Bool) {
        guard let entries = record?.objectValue else { return }
        for (key, value) in entries {
            if let entry = value.objectValue { load(entry, of: LightID(key), atMs: nowMs, booting: booting) }
        }
    }

    /// Takes back one bulb's entry.
    private func load(_ entry: JSONObject, of light: LightID, atMs nowMs: Double, booting: Bool) {
        if let membership = entry["location"].flatMap(Membership.init(json:)) {
            locations.withLock { $0[light] = membership }
        }
        if let membership = entry["group"].flatMap(Membership.init(json:)) {
            groups.withLock { $0[light] = membership }
        }
        if let level = entry["infrared"]?.intValue.flatMap(UInt16.init(exactly:)) {
            infraredLevels.withLock { $0[light] = level }
        }
        if var hev = entry["hev"].flatMap({ hev(json: $0, atMs: nowMs) }) {
            if booting, hev.interrupt(atMs: nowMs) { changed(light) }
            hevStates.withLock { $0[light] = hev }
        }
        if let zones = entry["zones"].flatMap(LIFXZones.init(json:)) { zoneStates.withLock { $0[light] = zones } }
        // The record keeps the colours, not the chain's shape: their count tells a Tile's 320 from a Candle's 30,
        // a Ceiling's 64 and a Ceiling 13x26's 128.
        // Pixels kept for a product the light no longer is are left unused (``LIFXMatrix/current(_:light:geometry:)``).
        if let pixels = entry["pixels"], let base = pixels["base"].flatMap(HSBK.init(json:)),
            let colors = pixels["colors"].flatMap([HSBK].init(json:)),
            let geometry = LIFXMatrixGeometry.all.first(where: { $0.pixels == colors.count })
        {
            matrixStates.withLock { $0[light] = LIFXMatrix(geometry: geometry, base: base, colors: colors) }
        }
        if let tiles = entry["tiles"]?.arrayValue {
            var placed: [Int: SIMD2<Float>] = [:]
            for tile in tiles {
                guard let parts = tile.arrayValue, parts.count == 3, let index = parts[0].intValue,
                    (0..<LIFXMatrixGeometry.mostTiles).contains(index), let x = parts[1].doubleValue,
                    let y = parts[2].doubleValue
                else { continue }
                placed[index] = SIMD2(Float(x), Float(y))
            }
            if !placed.isEmpty { tilePositions.withLock { $0[light] = placed } }
        }
        // One of a type the device lacks, kept by a lumend that took any, runs as none.
        if let effect = entry["multiZoneEffect"].flatMap(LIFXEffect.init(json:)), effect.isOne(of: .multiZone) {
            multiZoneEffects.withLock { $0[light] = effect }
        }
        if let effect = entry["tileEffect"].flatMap(LIFXEffect.init(json:)), effect.isOne(of: .tile) {
            tileEffects.withLock { $0[light] = effect }
        }
        if let given = entry["color"], let color = given["hsbk"].flatMap(HSBK.init(json:)),
            let brightness = given["brightness"]?.doubleValue, let mireds = given["mireds"]?.intValue,
            let x = given["x"]?.doubleValue, let y = given["y"]?.doubleValue
        {
            // Whether the light is on is no part of what the colour left: only the colour is compared.
            let state = LightState(
                isOn: true, brightness: brightness, colorTemperature: mireds, color: CIEColor(x: x, y: y))
            givenColors.withLock { $0[light] = (color, state) }
        }
    }

    /// A HEV bulb's settings and cycle as JSON at `nowMs`; a cycle under way by the time it has left then, which
    /// runs on from wherever the simulated clock stands when it is read back.
    private func hevJSON(_ hev: HEV, atMs nowMs: Double) -> JSONValue {
        var object: JSONObject = [
            "lastResult": .int(Int(hev.lastResult)), "indication": .bool(hev.indication),
            "defaultDurationS": .int(Int(hev.defaultDurationS)),
        ]
        if let last = hev.lastCycle {
            object["lastCycle"] = .object([
                "durationS": .int(Int(last.durationS)), "lastPower": .bool(last.lastPower),
            ])
        }
        if let cycle = hev.cycle {
            object["cycle"] = .object([
                "leftMs": .double(cycle.leftMs(atMs: nowMs)), "durationS": .int(Int(cycle.durationS)),
                "lastPower": .bool(cycle.lastPower),
            ])
        }
        return .object(object)
    }

    /// A HEV bulb's settings and cycle read back at `nowMs`: a cycle by its time left, or, as records written
    /// before kept it, by its start on the simulated wall clock in nanoseconds since 1970.
    private func hev(json: JSONValue, atMs nowMs: Double) -> HEV? {
        guard let lastResult = json["lastResult"]?.intValue.flatMap(UInt8.init(exactly:)),
            let indication = json["indication"]?.boolValue,
            let defaultDurationS = json["defaultDurationS"]?.intValue.flatMap(UInt32.init(exactly:))
        else { return nil }
        var hev = HEV(lastResult: lastResult, indication: indication, defaultDurationS: defaultDurationS)
        // A record written before kept no cycle that was over.
        if let last = json["lastCycle"], let durationS = last["durationS"]?.intValue.flatMap(UInt32.init(exactly:)),
            let lastPower = last["lastPower"]?.boolValue
        {
            hev.lastCycle = HEV.Ended(durationS: durationS, lastPower: lastPower)
        }
        guard let cycle = json["cycle"], let durationS = cycle["durationS"]?.intValue.flatMap(UInt32.init(exactly:)),
            let lastPower = cycle["lastPower"]?.boolValue
        else { return hev }
        let lengthMs = Double(durationS) * 1_000
        if let leftMs = cycle["leftMs"]?.doubleValue, leftMs.isFinite {
            let startMs = nowMs - (lengthMs - min(max(leftMs, 0), lengthMs))
            hev.cycle = HEV.Cycle(startMs: startMs, durationS: durationS, lastPower: lastPower)
        } else if let startNs = cycle["startNs"]?.doubleValue {
            let startMs = (startNs - Double(startedAtNanoseconds)) / 1_000_000
            hev.cycle = HEV.Cycle(startMs: startMs, durationS: durationS, lastPower: lastPower)
        }
        return hev
    }
}

extension LIFXDeviceRecords.Membership {
    var jsonValue: JSONValue {
        .object(["id": .string(id.hexText), "label": .string(label), "updatedAt": .number(JSONNumber(updatedAt))])
    }

    init?(json: JSONValue) {
        guard let id = json["id"]?.stringValue.flatMap([UInt8].init(hexText:)), id.count == 16,
            let label = json["label"]?.stringValue, let updatedAt = json["updatedAt"]?.unsignedValue
        else { return nil }
        self.init(id: id, label: label, updatedAt: updatedAt)
    }
}

extension HSBK {
    /// The colour as `[hue, saturation, brightness, kelvin]`.
    var jsonValue: JSONValue {
        .array([.int(Int(hue)), .int(Int(saturation)), .int(Int(brightness)), .int(Int(kelvin))])
    }

    init?(json: JSONValue) {
        guard let parts = json.arrayValue, parts.count == 4 else { return nil }
        let values = parts.compactMap { $0.intValue.flatMap(UInt16.init(exactly:)) }
        guard values.count == 4 else { return nil }
        self.init(hue: values[0], saturation: values[1], brightness: values[2], kelvin: values[3])
    }
}

extension [HSBK] {
    var jsonValue: JSONValue { .array(map(\.jsonValue)) }

    init?(json: JSONValue) {
        guard let parts = json.arrayValue else { return nil }
        let colors = parts.compactMap(HSBK.init(json:))
        guard colors.count == parts.count else { return nil }
        self = colors
    }
}

extension LIFXZones {
    var jsonValue: JSONValue {
        var object: JSONObject = ["base": base.jsonValue, "colors": colors.jsonValue]
        if let pending { object["pending"] = pending.jsonValue }
        return .object(object)
    }

    init?(json: JSONValue) {
        guard let base = json["base"].flatMap(HSBK.init(json:)),
            let colors = json["colors"].flatMap([HSBK].init(json:)), colors.count == Self.count
        else { return nil }
        let pending = json["pending"].flatMap([HSBK].init(json:))
        guard pending == nil || pending?.count == Self.count else { return nil }
        // A fade under way is saved landed: after a restart the zones show where it was going.
        self.init(base: base, colors: colors, pending: pending, fade: nil)
    }
}

extension LIFXEffect {
    var jsonValue: JSONValue {
        .object([
            "instanceID": .int(Int(instanceID)), "type": .int(Int(type)), "speedMs": .int(Int(speedMs)),
            "durationNs": .number(JSONNumber(durationNs)), "parameters": .string(parameters.hexText),
            "palette": palette.jsonValue,
        ])
    }

    init?(json: JSONValue) {
        guard let instanceID = json["instanceID"]?.intValue.flatMap(UInt32.init(exactly:)),
            let type = json["type"]?.intValue.flatMap(UInt8.init(exactly:)),
            let speedMs = json["speedMs"]?.intValue.flatMap(UInt32.init(exactly:)),
            let durationNs = json["durationNs"]?.unsignedValue,
            let parameters = json["parameters"]?.stringValue.flatMap([UInt8].init(hexText:)),
            let palette = json["palette"].flatMap([HSBK].init(json:))
        else { return nil }
        self.init(
            instanceID: instanceID, type: type, speedMs: speedMs, durationNs: durationNs, parameters: parameters,
            palette: palette)
    }
}

extension JSONValue {
    /// The value as a 64-bit unsigned integer, all its digits kept (a time in nanoseconds passes 2^53).
    fileprivate var unsignedValue: UInt64? { if case .number(let n) = self { UInt64(n.text) } else { nil } }
}

extension [UInt8] {
    /// The bytes as lower-case hexadecimal, two digits a byte.
    fileprivate var hexText: String { map { String(hex: $0, digits: 2) }.joined() }

    /// The bytes `text` writes as hexadecimal, two digits a byte; `nil` for anything else.
    fileprivate init?(hexText text: String) {
        let digits = Array(text.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        let bytes = stride(from: 0, to: digits.count, by: 2).compactMap {
            UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)
        }
        guard bytes.count == digits.count / 2 else { return nil }
        self = bytes
    }
}
