import LumenProtocol

extension Fixture {
    /// Reads and validates a fixture (or snapshot) from JSON bytes.
    /// - Throws: ``FixtureError`` saying where the document is wrong and how.
    public init(json bytes: some Collection<UInt8>) throws(FixtureError) {
        let (fixture, problems) = Self.read(bytes as? [UInt8] ?? Array(bytes), collectingEveryProblem: false)
        if let problem = problems.first { throw problem }
        self = fixture!
    }

    /// Every problem a fixture has that can be told apart, in document order where it matters: a text that
    /// is not JSON stops at its syntax error; otherwise each light's first problem, the first problem outside
    /// the lights, and the first of the checks across the home (unique IDs, feasibility). Empty for a fixture
    /// lumend would load.
    public static func problems(json bytes: [UInt8]) -> [FixtureError] {
        read(bytes, collectingEveryProblem: true).problems
    }

    /// The problems a decoder finds after `first`: the value at each problem's path is replaced by the
    /// problem's stand-in (a value that passes there), or taken out when it has none, and the decoding tried
    /// again, until it passes or a problem lies where a value was already replaced or taken out (that one is
    /// of the check's making, not the document's). At most 32, so a document wrong everywhere still ends.
    /// The stand-in IDs read on with (``standInID(at:)``) are added to `standIns`.
    private static func laterProblems(
        after first: JSONShapeError, in value: JSONValue, at base: JSONPath, standIns: inout Set<String>,
        _ decode: (JSONCursor) throws(JSONShapeError) -> Void
    ) -> [JSONShapeError] {
        var problems: [JSONShapeError] = []
        var current = value
        var error = first
        var removed: Set<JSONPath> = []
        let depth = base.steps.count
        for _ in 0..<32 {
            let steps = error.path.steps.dropFirst(depth)
            guard error.path.steps.count > depth,
                let next = error.standIn.map({ current.setting(steps, to: $0) }) ?? current.removing(steps)
            else { break }
            current = next
            removed.insert(error.path)
            if let id = error.standIn?.stringValue, id == standInID(at: error.path) { standIns.insert(id) }
            do throws(JSONShapeError) {
                try decode(JSONCursor(current, path: base))
                break
            } catch let next {
                // A member replaced or taken out here and now wrong or missing is not a problem of the document's.
                guard next != error, !removed.contains(next.path) else { break }
                problems.append(next)
                error = next
            }
        }
        return problems
    }

    /// A light that is not of the plain shape: the document is read the ordinary way instead.
    private struct NotPlain: Error {}

    /// The document with its lights taken out, and its lights, when every light is of the plain shape
    /// (``LightFixture/read(plainBytes:)``) and the text is JSON around them; else `nil`.
    static func readPlainLights(_ bytes: [UInt8]) -> (JSONValue, [Int: [LightFixture]])? {
        var lights: [Int: [LightFixture]] = [:]
        let value = bytes.withUnsafeBufferPointer { buffer -> JSONValue? in
            try? JSONParser.parse(bytes, streamingRawArraysAt: [.key("rooms"), .anyIndex, .key("lights")]) {
                (indexes: [Int], range: Range<Int>) throws(NotPlain) in
                guard indexes.count == 2,
                    let light = LightFixture.read(plainBytes: UnsafeBufferPointer(rebasing: buffer[range]))
                else { throw NotPlain() }
                lights[indexes[0], default: []].append(light)
            }
        }
        return value.map { ($0, lights) }
    }

    /// Reads a fixture, stopping at its first problem, or collecting one of each kind.
    static func read(_ bytes: [UInt8], collectingEveryProblem: Bool) -> (Fixture?, problems: [FixtureError]) {
        // Each light is decoded as soon as the parser has it, and its tree dropped: a home of a hundred
        // thousand lights is never held as one tree as well as the fixture. Lights of the plain shape (every
        // light of a snapshot without settings of its own) are read straight from their bytes, with no tree
        // at all; a document with any other light, or any problem, is read the ordinary way.
        var lights: [Int: [LightFixture]] = [:]
        var lightErrors: [JSONShapeError] = []
        // The IDs read on with where a room's or light's was missing or wrong: no one's duplicates.
        var standIns: Set<String> = []
        let value: JSONValue
        if !collectingEveryProblem, let (plainValue, plainLights) = readPlainLights(bytes) {
            value = plainValue
            lights = plainLights
        } else {
            do {
                value = try JSONParser.parse(bytes, streamingArraysAt: [.key("rooms"), .anyIndex, .key("lights")]) {
                    indexes, element in
                    guard indexes.count == 2, collectingEveryProblem || lightErrors.isEmpty else { return }
                    let path = JSONPath.root.appending("rooms").appending(indexes[0]).appending("lights").appending(
                        indexes[1])
                    do throws(JSONShapeError) {
                        let light = try LightFixture(cursor: JSONCursor(element, path: path))
                        lights[indexes[0], default: []].append(light)
                    } catch {
                        lightErrors.append(error)
                        if collectingEveryProblem {
                            // Read on with stand-ins; the light so read still counts for IDs given twice.
                            var patched: LightFixture?
                            lightErrors += laterProblems(
                                after: error, in: element, at: path, standIns: &standIns
                            ) {
                                cursor throws(JSONShapeError) in
                                patched = try LightFixture(cursor: cursor)
                            }
                            if let patched { lights[indexes[0], default: []].append(patched) }
                        }
                    }
                }
            } catch {
                return (nil, [.syntax(error)])
            }
        }
        var fixture: Fixture
        var problems: [FixtureError] = []
        do throws(JSONShapeError) {
            // The document's own fields first (its schema above all), then its lights.
            fixture = try Fixture(cursor: JSONCursor(value))
        } catch {
            guard collectingEveryProblem else { return (nil, [.shape(error)]) }
            // Read on with stand-ins, so that the IDs of what was read can still be checked.
            var patched: Fixture?
            let rest = laterProblems(after: error, in: value, at: .root, standIns: &standIns) {
                cursor throws(JSONShapeError) in
                patched = try Fixture(cursor: cursor)
            }
            problems = ([error] + rest).map(FixtureError.shape)
            guard let patched else { return (nil, problems + lightErrors.map(FixtureError.shape)) }
            fixture = patched
        }
        for (room, roomLights) in lights where fixture.rooms.indices.contains(room) {
            fixture.rooms[room].lights = roomLights
        }
        problems += lightErrors.map(FixtureError.shape)
        if !collectingEveryProblem, !problems.isEmpty { return (nil, problems) }
        problems += fixture.consistencyProblems(standIns: standIns).map(FixtureError.shape)
        if !collectingEveryProblem, !problems.isEmpty { return (nil, problems) }
        // A state lumend wrote was checked when it was made.
        if fixture.generation == nil {
            problems += fixture.nameProblems().map(FixtureError.shape)
            do throws(JSONShapeError) { try fixture.validateFeasibility() } catch { problems.append(.shape(error)) }
        }
        return (problems.isEmpty ? fixture : nil, problems)
    }

    private static let keys = Set(
        [
            "$schema", "schema", "id", "name", "seed", "durability", "start", "defaults", "discovery", "bridge",
            "rooms", "faultSchedule", "generation", "origin", "checksum",
        ] + frontNames)

    init(cursor: JSONCursor) throws(JSONShapeError) {
        let object = try cursor.object(allowing: Self.keys)
        // A check goes on past a wrong schema as if it were this build's, and past a missing ID or name with
        // stand-ins, so that nothing after them is hidden.
        let current = JSONValue.int(Fixture.currentSchema)
        let schemaCursor = try object.required("schema", standIn: current)
        guard let schema = schemaCursor.value.intValue else {
            let got =
                if case .number = schemaCursor.value { schemaCursor.value.serialized() } else {
                    schemaCursor.value.typeName
                }
            throw schemaCursor.error("expected the number \(Fixture.currentSchema), got \(got)", standIn: current)
        }
        if schema > Fixture.currentSchema {
            throw schemaCursor.error(
                "schema \(schema) is newer than this lumend understands (\(Fixture.currentSchema)); upgrade lumend",
                standIn: current)
        }
        guard schema == Fixture.currentSchema else {
            throw schemaCursor.error(
                "schema \(schema) is not supported; expected \(Fixture.currentSchema)", standIn: current)
        }
        let id = try object.required("id", standIn: "x").string()
        try Self.checkID(id, at: object.path.appending("id"))
        self.init(id: id, name: try object.required("name", standIn: "x").string(), rooms: [])
        if let seed = object.optional("seed") {
            guard let value = seed.value.intValue, value >= 0 else {
                throw seed.error("expected a non-negative integer", standIn: .int(0))
            }
            self.seed = UInt64(value)
        }
        durability = try object.optional("durability")?.enumeration(Durability.self)
        if let start = object.optional("start") {
            let text = try start.string()
            do throws(LumenError) {
                self.start = try WallClock(parsing: text)
            } catch {
                throw start.error(error.message)
            }
        }
        if let defaults = object.optional("defaults") { self.defaults = try DeviceSettings(cursor: defaults) }
        if let discovery = object.optional("discovery") {
            let settings = try discovery.object(allowing: ["scanDurationMs", "maxLightsPerScan", "jitterMs"])
            if let duration = settings.optional("scanDurationMs") {
                self.discovery.scanDurationMs = try duration.double(in: 1_000...SimulatedDurations.longestMs)
            }
            if let max = settings.optional("maxLightsPerScan") {
                self.discovery.maxLightsPerScan = try max.int(in: 1...1_000)
            }
            if let jitter = settings.optional("jitterMs") {
                self.discovery.jitterMs = try jitter.double(in: 0...SimulatedDurations.longestMs)
            }
        }
        if let bridge = object.optional("bridge") {
            let settings = try bridge.object(allowing: ["lightCommandsPerSecond", "groupCommandsPerSecond"])
            if let rate = settings.optional("lightCommandsPerSecond") {
                self.bridge.lightCommandsPerSecond = try rate.double(in: 0.1...10_000)
            }
            if let rate = settings.optional("groupCommandsPerSecond") {
                self.bridge.groupCommandsPerSecond = try rate.double(in: 0.1...10_000)
            }
        }
        for name in Self.frontNames {
            // Only the front reads its record, when it starts.
            guard let record = object.optional(name) else { continue }
            guard case .object = record.value else {
                throw record.error("expected an object, got \(record.value.typeName)")
            }
            fronts[name] = record.value
        }
        rooms = try object.required("rooms", standIn: .array([])).array().map { cursor throws(JSONShapeError) in
            try RoomFixture(cursor: cursor)
        }
        faultSchedule =
            try object.optional("faultSchedule")?.array().map { cursor throws(JSONShapeError) in
                try ScheduledFault(cursor: cursor)
            } ?? []
        generation = try object.optional("generation")?.int(in: 0...Int.max)
        if let origin = object.optional("origin") {
            let fields = try origin.object(allowing: ["id", "digest"])
            self.origin = FixtureOrigin(
                id: try fields.required("id").string(), digest: try fields.required("digest").string())
        }
    }

    /// Checks what a single key cannot: unique IDs across the home, fault targets that exist.
    func validate() throws(JSONShapeError) {
        if let first = consistencyProblems().first { throw first }
    }

    /// The ID a check reads on with where a room's or light's ID at `path` is missing or not a string: unique to
    /// its place (`rooms[1].lights[0].id` has `stand-in.rooms.1.lights.0.id`), so that two are not taken for one
    /// ID given twice, and written as IDs are, so that it passes where it stands in.
    static func standInID(at path: JSONPath) -> String {
        let steps = path.steps.map { step in
            switch step {
            case .key(let key): key
            case .index(let index): String(index)
            }
        }
        return String(("stand-in." + steps.joined(separator: ".")).prefix(EntityID.maxLength))
    }

    /// Every problem a single key cannot show: IDs given twice across the home, fault targets that do not
    /// exist. The `standIns` (``standInID(at:)``) a check read on with are left out: the ID each stands for is
    /// reported missing or wrong already.
    func consistencyProblems(standIns: Set<String> = []) -> [JSONShapeError] {
        var problems: [JSONShapeError] = []
        var roomIndexes: [RoomID: Int] = [:]
        var lightRooms: [LightID: RoomID] = [:]
        lightRooms.reserveCapacity(rooms.reduce(0) { $0 + $1.lights.count + $1.undiscovered.count })
        // Paths are worked out only for an error: a large home has a hundred thousand lights to check.
        func roomPath(_ index: Int) -> JSONPath { JSONPath.root.appending("rooms").appending(index) }
        func place(_ light: LightID, in room: RoomID, at path: () -> JSONPath) {
            if !standIns.isEmpty, standIns.contains(light.rawValue) { return }
            guard let other = lightRooms[light] else {
                lightRooms[light] = room
                return
            }
            let message =
                other == room
                ? "duplicate light ID '\(light)' in room '\(room)'"
                : "light '\(light)' is already in room '\(other)'; a light can be in one room only"
            problems.append(JSONShapeError(path().appending("id"), message))
        }
        for (roomIndex, room) in rooms.enumerated() {
            if !standIns.isEmpty, standIns.contains(room.id.rawValue) {
                // Not a duplicate of anything, nor anything's first.
            } else if let first = roomIndexes[room.id] {
                problems.append(
                    JSONShapeError(
                        roomPath(roomIndex).appending("id"),
                        "duplicate room ID '\(room.id)' (first at \(roomPath(first)))"))
            } else {
                roomIndexes[room.id] = roomIndex
            }
            for (index, light) in room.lights.enumerated() {
                place(light.id, in: room.id) { roomPath(roomIndex).appending("lights").appending(index) }
            }
            for (index, pending) in room.undiscovered.enumerated() {
                place(pending.light.id, in: room.id) {
                    roomPath(roomIndex).appending("undiscovered").appending(index).appending("light")
                }
            }
        }
        problems += lifxAddressProblems()
        for (index, fault) in faultSchedule.enumerated() where lightRooms[fault.light] == nil {
            problems.append(
                JSONShapeError(
                    JSONPath.root.appending("faultSchedule").appending(index).appending("light"),
                    "no light '\(fault.light)' in this fixture"))
        }
        return problems
    }

    /// Every name that breaks the rules (``EntityName``). Asked of a fixture, not of saved state, which holds only names a
    /// fixture or a rename gave and is never refused for one.
    func nameProblems() -> [JSONShapeError] {
        var problems: [JSONShapeError] = []
        func check(_ name: String, at path: @autoclosure () -> JSONPath) {
            do throws(JSONShapeError) { try Self.checkName(name, at: path()) } catch { problems.append(error) }
        }
        check(name, at: .root.appending("name"))
        for (roomIndex, room) in rooms.enumerated() {
            let roomPath = JSONPath.root.appending("rooms").appending(roomIndex)
            check(room.name, at: roomPath.appending("name"))
            for (index, light) in room.lights.enumerated() {
                check(light.name, at: roomPath.appending("lights").appending(index).appending("name"))
            }
            for (index, pending) in room.undiscovered.enumerated() {
                check(
                    pending.light.name,
                    at: roomPath.appending("undiscovered").appending(index).appending("light").appending("name"))
            }
        }
        return problems
    }

    static func checkID(_ id: String, at path: @autoclosure () -> JSONPath) throws(JSONShapeError) {
        if let problem = EntityID.validate(id) { throw JSONShapeError(path(), problem) }
    }

    static func checkName(_ name: String, at path: @autoclosure () -> JSONPath) throws(JSONShapeError) {
        if let problem = EntityName.validate(name) { throw JSONShapeError(path(), problem) }
    }
}

/// Why a fixture or state file cannot be used.
public enum FixtureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not JSON.
    case syntax(JSONParseError)
    /// The JSON does not describe a valid home.
    case shape(JSONShapeError)

    public var description: String {
        switch self {
        case .syntax(let error): "not valid JSON: \(error)"
        case .shape(let error): error.description
        }
    }
}

extension DeviceSettings {
    /// The keys of device settings, as a fixture, a room or a light writes them.
    public static let keys: Set<String> = [
        "latency", "dropProbability", "timeoutMs", "rateLimitPerSecond", "powerOn", "whileOff", "overload",
        "family", "network",
    ]

    /// Reads device settings (`latency`, `dropProbability`, `timeoutMs`, `rateLimitPerSecond`, `powerOn`,
    /// `whileOff`, `overload`, `family`, `network`).
    public init(cursor: JSONCursor) throws(JSONShapeError) {
        try self.init(object: cursor.object(allowing: Self.keys))
    }

    /// Reads the settings keys of an object that may hold other keys too (a light or a room).
    init(object: ObjectCursor) throws(JSONShapeError) {
        self.init()
        latency = try object.optional("latency").map { cursor throws(JSONShapeError) in
            try LatencyModel(cursor: cursor)
        }
        dropProbability = try object.optional("dropProbability")?.double(in: 0...1)
        timeoutMs = try object.optional("timeoutMs")?.double(in: 1...600_000)
        rateLimitPerSecond = try object.optional("rateLimitPerSecond")?.double(in: 0.1...10_000)
        powerOn = try object.optional("powerOn")?.enumeration(PowerOnBehavior.self)
        whileOff = try object.optional("whileOff")?.enumeration(OffBehavior.self)
        overload = try object.optional("overload")?.enumeration(OverloadBehavior.self)
        family = try object.optional("family")?.enumeration(DeviceFamily.self)
        network = try object.optional("network")?.enumeration(LightNetwork.self)
    }
}

extension LatencyModel {
    /// Reads a latency model as a fixture writes it: a preset's name or a model object.
    public init(cursor: JSONCursor) throws(JSONShapeError) {
        let presets = Preset.allCases.map(\.rawValue).joined(separator: ", ")
        let standIn = JSONValue.string(Preset.allCases[0].rawValue)
        switch cursor.value {
        case .string(let name):
            guard let preset = Preset(rawValue: name) else {
                throw cursor.error("unknown latency preset '\(name)'; expected one of: \(presets)", standIn: standIn)
            }
            self = preset.model
            return
        case .object:
            break
        default:
            throw cursor.error(
                "expected a preset name (\(presets)) or a model object, got \(cursor.value.typeName)", standIn: standIn)
        }
        let object = try cursor.object(allowing: [
            "preset", "kind", "ms", "minMs", "maxMs", "meanMs", "stddevMs", "medianMs", "sigma", "components",
        ])
        if let preset = object.optional("preset") {
            guard object.object.count == 1 else { throw cursor.error("'preset' stands alone; remove the other keys") }
            self = try preset.enumeration(Preset.self).model
            return
        }
        let kind = try object.required("kind")
        let ms: ClosedRange<Double> = 0...600_000
        func need(_ key: String, _ allowed: Set<String>) throws(JSONShapeError) {
            for key in object.object.keys where !allowed.contains(key) && key != "kind" {
                throw JSONShapeError(
                    object.path.appending(key), "not used by a '\(try kind.string())' latency model")
            }
        }
        switch try kind.string() {
        case "fixed":
            try need("ms", ["ms"])
            self = .fixed(ms: try object.required("ms").double(in: ms))
        case "uniform":
            try need("", ["minMs", "maxMs"])
            let low = try object.required("minMs").double(in: ms)
            let high = try object.required("maxMs").double(in: ms)
            guard low <= high else { throw JSONShapeError(object.path.appending("maxMs"), "must be at least minMs") }
            self = .uniform(minMs: low, maxMs: high)
        case "normal":
            try need("", ["meanMs", "stddevMs", "maxMs"])
            self = .normal(
                meanMs: try object.required("meanMs").double(in: ms),
                stddevMs: try object.required("stddevMs").double(in: ms),
                maxMs: try object.optional("maxMs")?.double(in: ms))
        case "logNormal":
            try need("", ["medianMs", "sigma", "maxMs"])
            self = .logNormal(
                medianMs: try object.required("medianMs").double(in: 0.001...600_000),
                sigma: try object.required("sigma").double(in: 0...5),
                maxMs: try object.optional("maxMs")?.double(in: ms))
        case "mixture":
            try need("", ["components"])
            let list = try object.required("components")
            let components = try list.array().map { cursor throws(JSONShapeError) in
                let component = try cursor.object(allowing: ["weight", "model"])
                return Component(
                    weight: try component.required("weight").double(in: 0...1e9),
                    model: try LatencyModel(cursor: try component.required("model")))
            }
            guard !components.isEmpty else { throw list.error("a mixture needs at least one component") }
            guard components.contains(where: { $0.weight > 0 }) else {
                throw list.error("at least one component needs a weight above 0")
            }
            self = .mixture(components)
        case let other:
            throw kind.error(
                "unknown latency kind '\(other)'; expected one of: fixed, uniform, normal, logNormal, mixture")
        }
    }
}

extension RoomFixture {
    /// The keys a room may have.
    static let keys = DeviceSettings.keys.union(["id", "name", "lights", "undiscovered"])

    init(cursor: JSONCursor) throws(JSONShapeError) {
        let object = try cursor.object(allowing: Self.keys)
        let id = try object.entityID()
        try Fixture.checkID(id, at: object.path.appending("id"))
        self.init(
            id: RoomID(id), name: try object.required("name", standIn: "x").string(),
            lights: try object.optional("lights")?.array().map { cursor throws(JSONShapeError) in
                try LightFixture(cursor: cursor)
            } ?? [])
        defaults = try DeviceSettings(object: object)
        undiscovered =
            try object.optional("undiscovered")?.array().map { cursor throws(JSONShapeError) in
                let pending = try cursor.object(allowing: ["delayMs", "light"])
                return PendingLight(
                    delayMs: try pending.required("delayMs").double(in: SimulatedDurations.milliseconds),
                    light: try LightFixture(cursor: try pending.required("light")))
            } ?? []
    }
}

extension LightFixture {
    /// The keys a light may have. Made once: a large home has a hundred thousand lights to check.
    static let keys = DeviceSettings.keys.union([
        "id", "name", "kind", "manufacturer", "product", "state", "reachable", "lifx",
    ])

    /// Reads a light as a fixture writes it (also used by the `simulation` scope's `addLight`).
    public init(cursor: JSONCursor) throws(JSONShapeError) {
        let object = try cursor.object(allowing: Self.keys)
        let id = try object.entityID()
        try Fixture.checkID(id, at: object.path.appending("id"))
        // A light of the kind that has every property stands in for one whose kind is wrong: its state's
        // problems are then its own, not the stand-in's.
        let kind = try object.required("kind", standIn: .string(LightKind.color.rawValue)).enumeration(
            LightKind.self, standIn: .color)
        let model = DeviceModel(
            kind: kind,
            manufacturer: try object.optional("manufacturer")?.string() ?? "Lumen",
            product: try object.optional("product")?.string() ?? "Simulated \(kind.rawValue) light")
        self.init(id: LightID(id), name: try object.required("name", standIn: "x").string(), model: model)
        if let state = object.optional("state") { self.state = try LightState(cursor: state, kind: kind) }
        isReachable = try object.optional("reachable")?.bool() ?? true
        settings = try DeviceSettings(object: object)
        if let lifx = object.optional("lifx") {
            let lifxObject = try lifx.object(allowing: ["address"])
            if let cursor = lifxObject.optional("address") {
                let text = try cursor.string()
                guard let address = IPv4Address(text) else {
                    throw cursor.error("expected the bulb's IPv4 address, like 192.168.1.50; not '\(text)'")
                }
                if let problem = address.problemAsDeviceAddress { throw cursor.error(problem) }
                lifxAddress = address
            }
        }
    }
}

extension LightState {
    /// The keys a light's state may have.
    static let keys: Set<String> = ["isOn", "brightness", "colorTemperature", "color"]
    /// The state keys that only some kinds of light have. Made once: a large home has many lights to read.
    static let kindChecks: [(String, LightProperty)] = [
        ("brightness", .brightness), ("colorTemperature", .colorTemperature), ("color", .color),
    ]

    init(cursor: JSONCursor, kind: LightKind) throws(JSONShapeError) {
        let object = try cursor.object(allowing: Self.keys)
        var state = LightState.factoryDefault
        state.isOn = try object.optional("isOn")?.bool() ?? state.isOn
        for (key, property) in Self.kindChecks where object.optional(key) != nil && !property.isSupported(by: kind) {
            throw JSONShapeError(object.path.appending(key), "a '\(kind.rawValue)' light has no \(key)")
        }
        if let brightness = object.optional("brightness") {
            state.brightness = try brightness.double(in: LightState.brightnessRange)
        }
        if let ct = object.optional("colorTemperature") {
            state.colorTemperature = try ct.int(in: LightState.colorTemperatureRange)
        }
        if let color = object.optional("color") {
            state.color = try CIEColor(cursor: color)
        } else {
            // A colour light given only a colour temperature shows that white.
            state.color = CIEColor(mireds: state.colorTemperature)
        }
        self = state
    }
}

extension CIEColor {
    /// The keys of a colour.
    static let keys: Set<String> = ["x", "y"]

    /// Reads `{"x": …, "y": …}`, each 0–1.
    public init(cursor: JSONCursor) throws(JSONShapeError) {
        let object = try cursor.object(allowing: Self.keys)
        self.init(
            x: try object.required("x", standIn: .int(0)).double(in: LightState.colorCoordinateRange),
            y: try object.required("y", standIn: .int(0)).double(in: LightState.colorCoordinateRange))
    }
}

extension ScheduledFault {
    init(cursor: JSONCursor) throws(JSONShapeError) {
        let object = try cursor.object(allowing: ["light", "fault", "fromMs", "untilMs"])
        let from = try object.required("fromMs").double(in: 0...1e12)
        let untilCursor = try object.required("untilMs")
        let until = try untilCursor.double(in: 0...1e12)
        guard until > from else {
            // The stand-in, a window a millisecond long, lets a check read on to the schedule's other problems.
            throw untilCursor.error(
                "must be later than fromMs (\(JSONCursor.format(from)))", standIn: .double(from + 1))
        }
        self.init(
            light: LightID(try object.required("light").string()),
            kind: try object.required("fault").enumeration(Kind.self), fromMs: from, untilMs: until)
    }
}

extension ObjectCursor {
    /// The `id` of a room or light. Missing or not a string, it is an error whose stand-in is unique to its place
    /// (``Fixture/standInID(at:)``).
    func entityID() throws(JSONShapeError) -> String {
        let standIn = JSONValue.string(Fixture.standInID(at: path.appending("id")))
        let cursor = try required("id", standIn: standIn)
        do throws(JSONShapeError) {
            return try cursor.string()
        } catch {
            throw cursor.error(error.message, standIn: standIn)
        }
    }
}
