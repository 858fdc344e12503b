import LumenProtocol

extension Fixture {
    /// Refuses what a fixture can say but a home can never do: a light to discover that no scan lasts long
    /// enough to find, two fault windows of one light that overlap, a rate limit that allows less than one
    /// command per timeout, a colour temperature the light does not take (a LIFX Tile at 2,000 K).
    ///
    /// Snapshots are not held to this: they come from a home that was accepted, and refusing one would stop a
    /// daemon from starting on its own saved state.
    func validateFeasibility() throws(JSONShapeError) {
        let roomsPath = JSONPath.root.appending("rooms")
        for (roomIndex, room) in rooms.enumerated() {
            let roomPath = roomsPath.appending(roomIndex)
            for (index, pending) in room.undiscovered.enumerated() where pending.delayMs >= discovery.scanDurationMs {
                throw JSONShapeError(
                    roomPath.appending("undiscovered").appending(index).appending("delayMs"),
                    "light '\(pending.light.id)' would be found \(JSONCursor.format(pending.delayMs)) ms into a scan, "
                        + "but a scan lasts \(JSONCursor.format(discovery.scanDurationMs)) ms; no scan could find it. "
                        + "Lower delayMs or raise discovery.scanDurationMs")
            }
            let placed =
                room.lights.enumerated().map { (roomPath.appending("lights").appending($0), $1) }
                + room.undiscovered.enumerated().map {
                    (roomPath.appending("undiscovered").appending($0).appending("light"), $1.light)
                }
            for (path, light) in placed {
                let settings = light.settings.inheriting(from: room.defaults).inheriting(from: defaults)
                try Self.checkRate(
                    of: light, settings: settings,
                    path: Self.settingPath(
                        "rateLimitPerSecond", light: light, lightPath: path, room: room, roomPath: roomPath))
                try Self.checkColorTemperature(of: light, settings: settings, path: path)
            }
        }
        try checkFaultWindows()
    }

    /// Where the setting `key` that governs `light` is written: the light, its room, or the home's defaults.
    static func settingPath(
        _ key: String, light: LightFixture, lightPath: JSONPath, room: RoomFixture, roomPath: JSONPath
    ) -> JSONPath {
        let setHere: (DeviceSettings) -> Bool = { $0.jsonObject[key] != nil }
        if setHere(light.settings) { return lightPath.appending(key) }
        if setHere(room.defaults) { return roomPath.appending(key) }
        return JSONPath.root.appending("defaults").appending(key)
    }

    /// A rate limit must let at least one command through per timeout, or a client that waits out a timeout
    /// and retries is refused again however patient it is.
    static func checkRate(of light: LightFixture, settings: DeviceSettings, path: JSONPath) throws(JSONShapeError) {
        guard let problem = settings.rateProblem else { return }
        throw JSONShapeError(path, "light '\(light.id)': \(problem)")
    }

    /// A light's colour temperature must lie in its family's range for its model, or no front could read it back
    /// and send it again (``LightFixture/colorTemperatureProblem(settings:)``).
    static func checkColorTemperature(of light: LightFixture, settings: DeviceSettings, path: JSONPath)
        throws(JSONShapeError)
    {
        guard let problem = light.colorTemperatureProblem(settings: settings) else { return }
        throw JSONShapeError(path.appending("state").appending("colorTemperature"), problem)
    }

    func checkFaultWindows() throws(JSONShapeError) {
        var windows: [LightID: [(index: Int, fault: ScheduledFault)]] = [:]
        for (index, fault) in faultSchedule.enumerated() { windows[fault.light, default: []].append((index, fault)) }
        let path = JSONPath.root.appending("faultSchedule")
        // Reported in the order the schedule lists them, whichever light comes first in the dictionary.
        var overlaps: [(later: Int, earlier: Int, light: LightID)] = []
        for (light, list) in windows {
            let sorted = list.sorted { ($0.fault.fromMs, $0.index) < ($1.fault.fromMs, $1.index) }
            for (earlier, later) in zip(sorted, sorted.dropFirst()) where later.fault.fromMs < earlier.fault.untilMs {
                overlaps.append((max(earlier.index, later.index), min(earlier.index, later.index), light))
            }
        }
        guard let first = overlaps.min(by: { ($0.later, $0.earlier) < ($1.later, $1.earlier) }) else { return }
        let earlier = faultSchedule[first.earlier]
        throw JSONShapeError(
            path.appending(first.later),
            "this fault window for light '\(first.light)' overlaps faultSchedule[\(first.earlier)] "
                + "(\(JSONCursor.format(earlier.fromMs))–\(JSONCursor.format(earlier.untilMs)) ms); a light has one "
                + "fault at a time: merge them or move one")
    }
}

extension DeviceSettings {
    /// Why these settings' rate limit can never serve a patient client, if it cannot.
    public var rateProblem: String? {
        guard let rate = rateLimitPerSecond else { return nil }
        let timeout = timeoutMs ?? FaultModel.none.timeoutMs
        guard rate * timeout / 1_000 < 1 else { return nil }
        return
            "a rate limit of \(JSONCursor.format(rate)) command\(rate == 1 ? "" : "s") a second allows less than one command per "
            + "timeout (\(JSONCursor.format(timeout)) ms); raise rateLimitPerSecond to at least "
            + "\(JSONCursor.format(1_000 / timeout)) or timeoutMs to at least \(JSONCursor.format(1_000 / rate))"
    }

    /// What is wrong with a colour temperature of `mireds` for the light `id` of `model` under these settings
    /// (its own with its room's and the home's), if anything: a value outside what its family takes for its model
    /// (``DeviceFamily/colorTemperatureRange(of:)``), a LIFX Tile at 2,000 K. The caller says what to do.
    package func colorTemperatureProblem(light id: LightID, model: DeviceModel, mireds: Int) -> String? {
        guard model.kind.supports(.colorTemperature) else { return nil }
        let range = colorTemperatureRange(of: model)
        guard !range.contains(mireds) else { return nil }
        // Kelvin to the nearest hundred, as LIFX and Hue write them: 111 mireds is 9,000 K.
        func kelvin(_ mireds: Int) -> String {
            let hundreds = Int((10_000 / Double(mireds)).rounded())
            return hundreds >= 10 ? "\(hundreds / 10),\(hundreds % 10)00" : "\(hundreds * 100)"
        }
        return "light '\(id)' takes colour temperatures of \(range.lowerBound)–\(range.upperBound) mireds "
            + "(\(kelvin(range.upperBound))–\(kelvin(range.lowerBound)) K), not \(mireds)"
    }
}

extension DeviceSettings {
    /// The colour temperatures a light of `model` under these settings takes, in mireds: its family's range for
    /// its model (``DeviceFamily/colorTemperatureRange(of:)``).
    package func colorTemperatureRange(of model: DeviceModel) -> ClosedRange<Int> {
        effectiveFamily(manufacturer: model.manufacturer).colorTemperatureRange(of: model)
    }
}

extension LightFixture {
    /// What is wrong with the light's colour temperature under `settings`, if anything
    /// (``DeviceSettings/colorTemperatureProblem(light:model:mireds:)``), and what to do about it.
    package func colorTemperatureProblem(settings: DeviceSettings) -> String? {
        settings.colorTemperatureProblem(light: id, model: model, mireds: state.colorTemperature)
            .map { "\($0); give one within them" }
    }
}
