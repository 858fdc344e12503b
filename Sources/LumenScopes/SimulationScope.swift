import LumenModel
import LumenProtocol
import LumenSimulation

/// The simulation's controls, for test harnesses: the clock, faults and topology changes.
///
/// A server may restrict who can open it (see the server's access rules).
public struct SimulationScope: Scope {
    public static let typeName = "simulation"
    let scopeContext: ScopeContext
    public var entity: Entity? { nil }

    public static let connections: [ConnectionEntry<SimulationScope>] = [
        .value("clock") { $0.clock },
        .action(
            "advance", arguments: "{ms} | {untilIdle: true, maxMs?} | {toNextEvent: true}",
            result: "{mode, runsItself, nowMs, wallTime, advancedMs, idle?}"
        ) { $0.advance },
        .action("sleep", arguments: "{ms}", result: "{mode, runsItself, nowMs, wallTime}") { $0.sleep },
        .action("setReachable", arguments: "{light, reachable}", result: "{}") { $0.setReachable },
        .action(
            "device", arguments: "{light}",
            result: "{light, family, reachable, reportedReachable, state, fading}"
        ) { $0.device },
        .action("powerCycle", arguments: "{light, durationMs?}", result: "{}") { $0.powerCycle },
        .action("pressLinkButton", arguments: "none", result: "{}") { $0.pressLinkButton },
        .action("pairHueUser", arguments: "{username, devicetype?}", result: "{username}") { $0.pairHueUser },
        .action(
            "setFaults",
            arguments:
                "{light, latency?, dropProbability?, timeoutMs?, rateLimitPerSecond?, powerOn?, whileOff?, overload?, "
                + "family?, network?}",
            result: "{}"
        ) { $0.setFaults },
        .action("addRoom", arguments: "{id, name?}", result: "{}") { $0.addRoom },
        .action("removeRoom", arguments: "{room}", result: "{}") { $0.removeRoom },
        .action("addLight", arguments: "{room, light: fixture light}", result: "{}") { $0.addLight },
        .action("removeLight", arguments: "{light}", result: "{}") { $0.removeLight },
        .action("snapshot", arguments: "none", result: "fixture") { $0.snapshot },
        .action(
            "commands", arguments: "{light?, room?, sinceMs?}",
            result: "{commands: [{number, atMs, source, light, room?, change, transitionMs, outcome, code?}]}"
        ) { $0.commands },
        .action("clearCommands", arguments: "none", result: "{cleared}") { $0.clearCommands },
        .value("lastCommand") { $0.lastCommand },
        .action("reset", arguments: "none", result: "{}") { $0.reset },
        .action("checkpoint", arguments: "{name}", result: "{}") { $0.checkpoint },
        .action("restore", arguments: "{name}", result: "{}") { $0.restore },
        .action("dropCheckpoint", arguments: "{name}", result: "{}") { $0.dropCheckpoint },
    ]

    var clock: Connection<JSONValue> {
        let home = scopeContext.home
        return Connection(computing: { await home.clockValue })
    }

    /// `advance`: by `ms`; or event by event until no command, fade or scan is pending, at most `maxMs` (two
    /// hours, the longest fade a client asks for, unless given); or to the next event. Neither `ms` nor `maxMs` goes beyond a day
    /// (``SimulatedDurations/longestAdvanceMs``). Answered with the clock, how far it went and, settling,
    /// whether it is idle.
    /// `commands`: the command record, oldest first, for a light, a room or since a time when asked.
    var commands: Action {
        action(["light", "room", "sinceMs"]) { home, args throws(JSONShapeError) in
            let light: LightID? = try args.optional("light").map { cursor throws(JSONShapeError) in
                LightID(try cursor.string())
            }
            let room: RoomID? = try args.optional("room").map { cursor throws(JSONShapeError) in
                RoomID(try cursor.string())
            }
            let since = try args.optional("sinceMs")?.double(in: 0...1e12)
            return { () async throws(LumenError) in
                let records = await home.commandRecords(light: light, room: room, sinceMs: since)
                return .object(["commands": .array(records.map(\.jsonValue))])
            }
        }
    }

    /// `clearCommands`: the command record emptied (``Home/clearCommandRecords()``); answered with how many
    /// records it held.
    var clearCommands: Action {
        action([]) { home, _ throws(JSONShapeError) in
            return { () async throws(LumenError) in
                .object(["cleared": .int(await home.clearCommandRecords())])
            }
        }
    }

    /// `reset`: the home back to its fixture, read afresh, while it runs (``Home/restore(to:)``).
    var reset: Action {
        let fixture = scopeContext.fixture
        return action([]) { home, _ throws(JSONShapeError) in
            return { () async throws(LumenError) in
                guard let fixture else {
                    throw LumenError(.notSupported, "this home has no fixture to reset to")
                }
                try await home.restore(to: try fixture())
                return .object([:])
            }
        }
    }

    /// `checkpoint {name}`: the home as it is now, kept under a name to restore later (at most
    /// ``Home/maxCheckpoints``).
    var checkpoint: Action {
        action(["name"]) { home, args throws(JSONShapeError) in
            let name = try args.required("name").string()
            return { () async throws(LumenError) in
                try await home.checkpoint(name)
                return .object([:])
            }
        }
    }

    /// `restore {name}`: the home back to a checkpoint.
    var restore: Action {
        action(["name"]) { home, args throws(JSONShapeError) in
            let name = try args.required("name").string()
            return { () async throws(LumenError) in
                try await home.restore(checkpoint: name)
                return .object([:])
            }
        }
    }

    /// `dropCheckpoint {name}`: a checkpoint forgotten, making room for another.
    var dropCheckpoint: Action {
        action(["name"]) { home, args throws(JSONShapeError) in
            let name = try args.required("name").string()
            return { () async throws(LumenError) in
                try await home.dropCheckpoint(name)
                return .object([:])
            }
        }
    }

    /// The last command whose outcome became known, as the record has it; `null` before the first.
    var lastCommand: Connection<JSONValue> { Connection(.home(.lastCommand), of: scopeContext.home) }

    var advance: Action {
        action(["ms", "untilIdle", "maxMs", "toNextEvent"]) { home, args throws(JSONShapeError) in
            let modes = ["ms", "untilIdle", "toNextEvent"].filter { args.optional($0) != nil }
            guard modes.count == 1 else {
                throw JSONShapeError(args.path, "give one of ms, untilIdle: true and toNextEvent: true")
            }
            if args.optional("maxMs") != nil, modes != ["untilIdle"] {
                throw JSONShapeError(args.path.appending("maxMs"), "maxMs bounds untilIdle only")
            }
            // Any number here: how far the clock may go is the home's to say (SimulatedDurations).
            let ms = try args.optional("ms")?.double()
            let maxMs = try args.optional("maxMs")?.double() ?? SimulatedDurations.longestTransitionMs
            for mode in ["untilIdle", "toNextEvent"] {
                if let flag = args.optional(mode), try !flag.bool() { throw flag.error("only true is taken") }
            }
            return { () async throws(LumenError) in
                let advanced: Double
                var idle: Bool?
                if let ms {
                    try await home.advance(byMilliseconds: ms)
                    advanced = ms
                } else if modes == ["untilIdle"] {
                    (advanced, idle) = try await home.advanceUntilIdle(maxMs: maxMs)
                } else {
                    advanced = try await home.advanceToNextEvent()
                }
                var clock = await home.clockValue.objectValue ?? [:]
                clock["advancedMs"] = .double(advanced)
                if let idle { clock["idle"] = .bool(idle) }
                return .object(clock)
            }
        }
    }

    /// `sleep`: answered once the clock has moved `ms` on, with the clock then; on a clock that runs itself,
    /// what a test harness puts in place of the application's own sleep.
    var sleep: Action {
        action(["ms"]) { home, args throws(JSONShapeError) in
            let ms = try args.required("ms").double()
            return { () async throws(LumenError) in
                try await home.sleep(milliseconds: ms)
                return await home.clockValue
            }
        }
    }

    var setReachable: Action {
        action(["light", "reachable"]) { home, args throws(JSONShapeError) in
            let light = LightID(try args.required("light").string())
            let reachable = try args.required("reachable").bool()
            return { () async throws(LumenError) in
                try await home.setReachable(reachable, light: light); return [:]
            }
        }
    }

    /// `device {light}`: the ground truth of a light (whether it can really be reached, its state, its
    /// fades) beside what its controller reports.
    var device: Action {
        action(["light"]) { home, args throws(JSONShapeError) in
            let light = LightID(try args.required("light").string())
            return { () async throws(LumenError) in
                let (truth, kind) = try await home.groundTruth(of: light)
                return truth.jsonValue(kind: kind)
            }
        }
    }

    /// `pressLinkButton`: the Hue bridge's link button, pressed; apps may pair for the next 30 s.
    var pressLinkButton: Action {
        let pairing = scopeContext.pairing
        return action([]) { _, _ throws(JSONShapeError) in
            return { () async throws(LumenError) in
                try await Self.required(pairing).pressLinkButton()
                return [:]
            }
        }
    }

    /// `pairHueUser {username, devicetype?}`: a user of the Hue bridge with the name given, paired without the
    /// link button, for a test that needs a fixed user.
    var pairHueUser: Action {
        let pairing = scopeContext.pairing
        return action(["username", "devicetype"]) { _, args throws(JSONShapeError) in
            let username = try args.required("username").string()
            let deviceType = try args.optional("devicetype")?.string() ?? "lumen#simulation"
            return { () async throws(LumenError) in
                try await Self.required(pairing).pairUser(username, deviceType: deviceType)
                return ["username": .string(username)]
            }
        }
    }

    /// The front apps pair with, `pairing`.
    /// - Throws: ``LumenError`` `notSupported` when there is none.
    static func required(_ pairing: (any PairingControls)?) throws(LumenError) -> any PairingControls {
        guard let pairing else {
            throw LumenError(.notSupported, "this lumend has no Hue bridge to pair with")
        }
        return pairing
    }

    var powerCycle: Action {
        action(["light", "durationMs"]) { home, args throws(JSONShapeError) in
            let light = LightID(try args.required("light").string())
            let duration = try args.optional("durationMs")?.double(in: SimulatedDurations.milliseconds) ?? 1_000
            return { () async throws(LumenError) in
                try await home.powerCycle(light: light, durationMs: duration)
                return [:]
            }
        }
    }

    var setFaults: Action {
        action(DeviceSettings.keys.union(["light"])) {
            home, args throws(JSONShapeError) in
            let light = LightID(try args.required("light").string())
            var object = args.object
            object["light"] = nil
            let settings = try DeviceSettings(cursor: JSONCursor(.object(object), path: args.path))
            return { () async throws(LumenError) in
                try await home.updateSettings(settings, light: light); return [:]
            }
        }
    }

    var addRoom: Action {
        action(["id", "name"]) { home, args throws(JSONShapeError) in
            let id = RoomID(try args.required("id").string())
            let name = try args.optional("name")?.string() ?? id.rawValue
            return { () async throws(LumenError) in
                try await home.addRoom(id: id, name: name); return [:]
            }
        }
    }

    var removeRoom: Action {
        action(["room"]) { home, args throws(JSONShapeError) in
            let id = RoomID(try args.required("room").string())
            return { () async throws(LumenError) in
                try await home.removeRoom(id); return [:]
            }
        }
    }

    var addLight: Action {
        action(["room", "light"]) { home, args throws(JSONShapeError) in
            let room = RoomID(try args.required("room").string())
            let light = try LightFixture(cursor: try args.required("light"))
            return { () async throws(LumenError) in
                try await home.addLight(light, to: room); return [:]
            }
        }
    }

    var removeLight: Action {
        action(["light"]) { home, args throws(JSONShapeError) in
            let light = LightID(try args.required("light").string())
            return { () async throws(LumenError) in
                try await home.removeLight(light); return [:]
            }
        }
    }

    var snapshot: Action {
        action([]) { home, _ throws(JSONShapeError) in
            { () async throws(LumenError) in await home.snapshot().jsonValue }
        }
    }

    /// An action whose arguments are an object with `keys`: parsing errors become `invalidParams` naming the
    /// path.
    func action(
        _ keys: Set<String>,
        _ parse:
            @escaping @Sendable (Home, ObjectCursor) throws(JSONShapeError) ->
            @Sendable () async throws(LumenError) -> JSONValue
    ) -> Action {
        let scopeContext = scopeContext
        return Action { arguments async throws(LumenError) in
            let work: @Sendable () async throws(LumenError) -> JSONValue
            do throws(JSONShapeError) {
                let object =
                    arguments.value.isNull
                    ? ObjectCursor(object: [:], path: arguments.path) : try arguments.object(allowing: keys)
                work = try parse(scopeContext.home, object)
            } catch {
                throw LumenError(.invalidParams, error.description)
            }
            return try await work()
        }
    }
}
