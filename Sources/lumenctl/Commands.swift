import Foundation
import LumenClient
import LumenCommandLine
import LumenProtocol

/// One lumenctl command: its declaration (name, synopsis, help, completion, argument check) and what it does.
struct Command: Sendable {
    let spec: CommandLineCommand
    let run: @Sendable (_ words: [String], _ options: CommonOptions) async throws -> Void
    /// What a command that talks to lumend does on a connection it is given (`lumenctl shell` keeps one).
    var session: (@Sendable (HomeReader, [String], CommonOptions) async throws -> Void)?

    /// A command that talks to lumend: it connects once its arguments have been checked. One that
    /// `waitsForTheClock` (a change, a scan) says why it waits when lumend's clock is virtual.
    static func connected(
        _ spec: CommandLineCommand, waitsForTheClock: Bool = false,
        _ body: @escaping @Sendable (HomeReader, [String], CommonOptions) async throws -> Void
    ) -> Command {
        var command = Command(spec: spec) { words, options in
            let client = try await options.connect()
            defer { client.disconnect() }
            let explanation = waitsForTheClock ? LumenCtl.explainWaiting(on: client, options) : nil
            defer { explanation?.cancel() }
            try await body(HomeReader(client: client), words, options)
        }
        command.session = body
        return command
    }
}

/// `lumenctl`: look at and drive a running lumend.
enum LumenCtl {
    /// Every command, declared once: dispatch, `--help`, each command's help, the manual page and shell
    /// completion all come from this list.
    static let commands: [Command] = [
        .connected(
            CommandLineCommand(
                "status", synopsis: ["status"],
                summary: "The home at a glance: rooms and lights, on/off, brightness, reachability",
                details:
                    "Shows every room and light: on/off, brightness, colour temperature, reachability, and a swatch "
                    + "of the light's colour on true-colour terminals.",
                accepts: { $0.isEmpty })
        ) { reader, _, options in try await status(reader, options) },
        .connected(
            CommandLineCommand(
                "rooms", synopsis: ["rooms"], summary: "List rooms",
                details: "Lists the rooms with their names and number of lights.", accepts: { $0.isEmpty })
        ) { reader, _, options in try await rooms(reader, options) },
        .connected(
            CommandLineCommand(
                "lights", synopsis: ["lights [ROOM]"], summary: "List lights, all or one room's",
                details: "Lists the lights of every room, or of ROOM.", arguments: [Completion.rooms],
                accepts: { $0.count <= 1 })
        ) { reader, words, options in try await lights(reader, words.first, options) },
        .connected(
            CommandLineCommand(
                "get", synopsis: ["get LIGHT [PROPERTY]"], summary: "Show a light, or one property of it",
                details:
                    "Shows a light's properties, or just PROPERTY (name, model, isOn, brightness, colorTemperature, "
                    + "color, isReachable; ct and xy as set takes them).",
                arguments: [
                    Completion.lights, .choices(HomeReader.lightConnections + HomeReader.propertyAliases.keys.sorted()),
                ],
                accepts: { (1...2).contains($0.count) })
        ) { reader, words, options in try await get(reader, words, options) },
        .connected(
            CommandLineCommand(
                "set", synopsis: ["set LIGHT|ROOM CHANGE… [--transition MS]"],
                summary:
                    "Change a light, or every light of a room at once: on, off, brightness=N, ct=N (mireds), xy=X,Y",
                details: """
                    CHANGE is on, off, brightness=N (1–100), ct=N (153–500 mireds) or xy=X,Y (0–1 each).
                    Waits until the device confirms each change. On a virtual-clock lumend, that is when the clock is advanced (lumenctl sim advance), which set says once it has waited a second.
                    Given a ROOM, sends one group command to all its lights (the room's setAll) and lists what each light applied, left out (a property it lacks) or missed (unreachable, lost, overloaded, off).
                    """,
                arguments: [Completion.lightsAndRooms, .choices(["on", "off", "brightness=", "ct=", "xy="])],
                repeatsLastArgument: true, accepts: { $0.count >= 2 }),
            waitsForTheClock: true
        ) { reader, words, options in try await set(reader, words, options) },
        .connected(
            CommandLineCommand(
                "rename", synopsis: ["rename home NAME", "rename room ROOM NAME", "rename light LIGHT NAME"],
                summary: "Rename the home, a room or a light", arguments: [.choices(["home", "room", "light"])],
                accepts: { words in
                    (words.first == "home" && words.count == 2)
                        || (["room", "light"].contains(words.first ?? "") && words.count == 3)
                })
        ) { reader, words, options in try await rename(reader, words, options) },
        .connected(
            CommandLineCommand(
                "discover", synopsis: ["discover ROOM"], summary: "Start a discovery scan and show its progress",
                details: "Starts a discovery scan in ROOM and shows time left and lights found until it ends.",
                arguments: [Completion.rooms], accepts: { $0.count == 1 }),
            waitsForTheClock: true
        ) { reader, words, options in try await Discover.run(reader, room: words[0], options) },
        .connected(
            CommandLineCommand(
                "watch", synopsis: ["watch [SCOPE…]"],
                summary: "Print changes as they happen (SCOPE: home, room:ID, light:ID; default all)",
                details:
                    "Prints one line per change. SCOPE is home, room:ID or light:ID; with none, everything is "
                    + "watched. Ctrl-C stops.",
                accepts: { _ in true })
        ) { reader, words, options in try await Watch.run(reader, words, options) },
        .connected(
            CommandLineCommand(
                "sim",
                synopsis: [
                    "sim clock | advance MS | reachable LIGHT yes|no | power-cycle LIGHT [MS]",
                    "sim faults LIGHT KEY=VALUE… | add-room ID [NAME] | add-light ROOM ID KIND [NAME]",
                    "sim remove-room ROOM | remove-light LIGHT | snapshot",
                ],
                summary: "Drive the simulation: the clock, reachability, faults, rooms and lights",
                details:
                    "Drives the simulation scope (root or lumend's user only, unless lumend runs with "
                    + "--simulation-access any). sim faults takes dropProbability, timeoutMs, rateLimitPerSecond, "
                    + "latency, powerOn, whileOff and overload.",
                arguments: [.choices(Sim.commands), Completion.lights], accepts: { !$0.isEmpty })
        ) { reader, words, options in try await Sim.run(reader, words, options) },
        .connected(
            CommandLineCommand(
                "describe", synopsis: ["describe [SCOPE-TYPE]"],
                summary: "List every scope type and its connections: kinds, value types, arguments",
                details:
                    "Shows what lumend serves, as describe answers it: for each scope type (home, room, light, simulation) its connections, their kinds (value, writable, action, scope) and types.",
                arguments: [.choices(["home", "room", "light", "simulation"])], accepts: { $0.count <= 1 })
        ) { reader, words, options in try await describe(reader.client, words.first, options) },
        .connected(
            CommandLineCommand(
                "call", synopsis: ["call METHOD [JSON]"],
                summary: "Send one raw JSON-RPC request and print the result",
                details: """
                    Sends one JSON-RPC request with JSON as its params and prints the result. Example:
                      lumenctl call get '{"scope":0,"connection":"name"}'
                    """,
                arguments: [.choices(WireMethod.allCases.map(\.rawValue))], accepts: { (1...2).contains($0.count) })
        ) { reader, words, options in try await call(reader.client, words, options) },
        Command(
            spec: CommandLineCommand(
                "shell", synopsis: ["shell"], summary: "Run commands one after another on one session, with history",
                details: """
                    Reads commands (any of the above, without 'lumenctl') and runs each on one connection, so the scopes \
                    'call open' makes stay open for the next lines. Line editing and history on a terminal; the history \
                    is kept in $XDG_STATE_HOME/lumenctl/history. 'exit' or end of input ends it.
                    """,
                accepts: { $0.isEmpty })
        ) { _, options in try await Shell.run(options) },
        Command(
            spec: CommandLineCommand(
                "completion", synopsis: ["completion bash|zsh|fish"], summary: "Print a shell completion script",
                details: """
                    Prints a completion script for the shell:
                      bash: source <(lumenctl completion bash)
                      zsh:  lumenctl completion zsh > "${fpath[1]}/_lumenctl"
                      fish: lumenctl completion fish > ~/.config/fish/completions/lumenctl.fish
                    """,
                arguments: [.choices(ShellCompletion.Shell.allCases.map(\.rawValue))],
                accepts: { $0.count == 1 && ShellCompletion.Shell(rawValue: $0[0]) != nil })
        ) { words, _ in
            Output.line(Completion.completion.script(for: ShellCompletion.Shell(rawValue: words[0])!), terminator: "")
        },
    ]

    static func command(named name: String) -> Command? { commands.first { $0.spec.name == name } }

    /// Runs a command, within `--timeout` when one is given: past it, lumenctl says so and exits 1 (a call
    /// waiting for lumend cannot be taken back, so nothing waits for it to finish).
    static func run(_ command: Command, _ words: [String], _ options: CommonOptions) async throws {
        guard let seconds = options.timeoutSeconds else { return try await command.run(words, options) }
        let watchdog = Task {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1_000)))
            Output.error(
                "lumend did not finish '\(command.spec.name)' within \(JSONNumber(seconds)) s (--timeout); on a virtual "
                    + "clock a change waits until the clock is advanced")
            exit(1)
        }
        defer { watchdog.cancel() }
        try await command.run(words, options)
    }

    /// Once a command has waited a moment (a second, or half its `--timeout`), says why when lumend's clock is
    /// virtual: nothing is confirmed there until someone advances it, and a command left waiting looks hung.
    /// Said once, on stderr; nothing without the simulation scope (another user's lumend).
    static func explainWaiting(on client: LumenClient, _ options: CommonOptions) -> Task<Void, Never> {
        let delay = min(1, (options.timeoutSeconds ?? 2) / 2)
        return Task {
            guard (try? await Task.sleep(for: .milliseconds(Int(delay * 1_000)))) != nil,
                let simulation = try? await client.open("simulation", in: .root),
                (try? await client.get("clock", in: simulation))?["mode"] == "virtual", !Task.isCancelled
            else { return }
            Output.error(
                "still waiting: lumend's clock is virtual, so a change is confirmed once the clock is advanced "
                    + "('lumenctl sim advance MS', from another shell)")
        }
    }

    /// A message from lumend in the words a lumenctl user typed: without the protocol's request paths
    /// (`params.arguments.timeoutMs` is the `timeoutMs=` they wrote).
    static func inUsersWords(_ message: String) -> String {
        message.replacing("params.arguments.", with: "").replacing("params.", with: "")
    }

    /// `lumenctl --help`, made from the declarations.
    static var help: String {
        """
        Usage: lumenctl [OPTIONS] COMMAND [ARGS…]

        Look at and drive a running lumend, the smart-light simulator.

        Commands:
        \(commands.map { command in
            HelpText.entry(label: command.spec.synopsis.count == 1 ? command.spec.synopsis[0] : command.spec.name + " …", text: command.spec.summary)
        }.joined(separator: "\n"))

        Options:
        \(CommonOptions.parser.optionsHelp())

        'lumenctl COMMAND --help' shows a command's forms. Colour is used only on a terminal and never when
        NO_COLOR is set.
        Exit status: 0 on success, 1 on failure, 2 on a usage mistake.
        """
    }

    static func main(_ arguments: [String]) async -> Int32 {
        do {
            let options = try CommonOptions.parse(arguments)
            if options.version {
                Output.line("lumenctl \(LumenVersion.string) (wire protocol \(LumenVersion.wireProtocol))")
                return 0
            }
            guard let name = options.words.first else {
                if options.help {
                    Output.line(help)
                    return 0
                }
                throw UsageError("no command given; try 'lumenctl status' or 'lumenctl --help'")
            }
            guard let command = command(named: name) else {
                throw UsageError("unknown command '\(name)'; see 'lumenctl --help'")
            }
            if options.help {
                Output.line(command.spec.help(program: "lumenctl"))
                return 0
            }
            let words = Array(options.words.dropFirst())
            // Argument counts are checked before connecting, so that usage mistakes are reported as such.
            guard command.spec.accepts(words) else {
                throw UsageError("wrong arguments for '\(name)'\n" + command.spec.help(program: "lumenctl"))
            }
            try await run(command, words, options)
            return 0
        } catch let error as UsageError {
            Output.error(error.description)
            return 2
        } catch let error as LumenClientError {
            Output.error(inUsersWords(error.description))
            return 1
        } catch {
            Output.error("\(error)")
            return 1
        }
    }

    static func onOff(_ value: JSONValue?, _ options: CommonOptions) -> String {
        guard let on = value?.boolValue else { return "-" }
        guard options.color else { return on ? "on" : "off" }
        return on ? "\u{1B}[32mon\u{1B}[0m" : "\u{1B}[2moff\u{1B}[0m"
    }

    static func number(_ value: JSONValue?) -> String {
        guard case .number(let number)? = value else { return "-" }
        return number.text
    }

    static func status(_ reader: HomeReader, _ options: CommonOptions) async throws {
        let name = try await reader.client.get("name", in: .root).stringValue ?? ""
        let rooms = try await reader.lights()
        if options.json {
            Output.json([
                "name": .string(name),
                "rooms": .array(
                    rooms.map { room in
                        [
                            "id": .string(room.room), "name": .string(room.name),
                            "lights": .array(room.lights.map(\.json)),
                        ]
                    }),
            ])
            return
        }
        let total = rooms.reduce(0) { $0 + $1.lights.count }
        let on = rooms.reduce(0) { $0 + $1.lights.filter { $0.values["isOn"]?.boolValue == true }.count }
        let unreachable = rooms.reduce(0) {
            $0 + $1.lights.filter { $0.values["isReachable"]?.boolValue == false }.count
        }
        if options.legend {
            Output.line("\(name): \(rooms.count) rooms, \(total) lights, \(on) on, \(unreachable) unreachable")
        }
        for room in rooms {
            if options.legend {
                Output.line(
                    "\n\(options.color ? "\u{1B}[1m" : "")\(room.name)\(options.color ? "\u{1B}[0m" : "") (\(room.room))"
                )
            }
            let rows = room.lights.map { light -> [String] in
                var cells: [String] = []
                if options.trueColor {
                    let state: JSONValue = .object(light.values)
                    cells.append(Swatch.block(state: state, kind: light.kind))
                }
                cells += [
                    light.id, light.values["name"]?.stringValue ?? "", light.kind, onOff(light.values["isOn"], options),
                    number(light.values["brightness"]), number(light.values["colorTemperature"]),
                    light.values["isReachable"]?.boolValue == false ? "no" : "yes",
                ]
                return cells
            }
            let header =
                (options.trueColor ? [""] : []) + ["LIGHT", "NAME", "KIND", "POWER", "BRIGHTNESS", "CT", "REACHABLE"]
            Output.table(header, rows, legend: options.legend, color: options.color)
        }
    }

    static func rooms(_ reader: HomeReader, _ options: CommonOptions) async throws {
        var rows: [[String]] = []
        var json: [JSONValue] = []
        for room in try await reader.roomIDs() {
            let scope = try await reader.openRoom(room)
            let name = try await reader.client.get("name", in: scope).stringValue ?? ""
            let lights = try await reader.client.get("lightIDs", in: scope).arrayValue?.count ?? 0
            let scanning = try await reader.client.get("isScanning", in: scope).boolValue ?? false
            try await reader.client.close(scope)
            rows.append([room, name, String(lights), scanning ? "scanning" : "-"])
            json.append([
                "id": .string(room), "name": .string(name), "lights": .int(lights), "isScanning": .bool(scanning),
            ])
        }
        if options.json { Output.json(.array(json)); return }
        Output.table(["ROOM", "NAME", "LIGHTS", "DISCOVERY"], rows, legend: options.legend, color: options.color)
    }

    static func lights(_ reader: HomeReader, _ room: String?, _ options: CommonOptions) async throws {
        if let room, try await !reader.roomIDs().contains(room) {
            throw Failure("no room '\(room)'; list rooms with 'lumenctl rooms'")
        }
        let rooms = try await reader.lights(inRooms: room.map { [$0] })
        let all = rooms.flatMap(\.lights)
        if options.json { Output.json(.array(all.map(\.json))); return }
        let rows = all.map { light in
            [
                light.id, light.room, light.values["name"]?.stringValue ?? "", light.kind,
                onOff(light.values["isOn"], options),
                number(light.values["brightness"]), light.values["isReachable"]?.boolValue == false ? "no" : "yes",
            ]
        }
        Output.table(
            ["LIGHT", "ROOM", "NAME", "KIND", "POWER", "BRIGHTNESS", "REACHABLE"], rows, legend: options.legend,
            color: options.color)
    }

    static func get(_ reader: HomeReader, _ words: [String], _ options: CommonOptions) async throws {
        let (room, scope) = try await reader.openLight(words[0])
        if words.count == 2 {
            // The words `set` takes name the same properties here: `get lab.dim ct`.
            let property = HomeReader.propertyAliases[words[1]] ?? words[1]
            let value = try await reader.client.get(property, in: scope)
            Output.line(options.json ? JSONValue.object(["value": value]).serialized() : display(value))
            return
        }
        let light = try await reader.read(words[0], room: room, scope: scope)
        if options.json { Output.json(light.json); return }
        var rows = [["id", light.id], ["room", room]]
        for connection in HomeReader.lightConnections {
            if let value = light.values[connection] { rows.append([connection, display(value)]) }
        }
        Output.table(["PROPERTY", "VALUE"], rows, legend: options.legend, color: options.color)
    }

    static func display(_ value: JSONValue) -> String {
        if case .string(let text) = value { return text }
        if let object = value.objectValue {
            return object.map { "\($0.key)=\(display($0.value))" }.joined(separator: " ")
        }
        return value.serialized()
    }

    /// Parses `on`, `off`, `brightness=N`, `ct=N`, `xy=X,Y` into (connection, value) pairs.
    static func changes(_ words: ArraySlice<String>) throws(UsageError) -> [(String, JSONValue)] {
        var result: [(String, JSONValue)] = []
        for word in words {
            let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
            switch (parts.first ?? "", parts.count) {
            case ("on", 1): result.append(("isOn", true))
            case ("off", 1): result.append(("isOn", false))
            case ("brightness", 2):
                guard let value = Double(parts[1]) else {
                    throw UsageError("brightness takes a number 1–100, like brightness=40")
                }
                result.append(("brightness", .double(value)))
            case ("ct", 2):
                guard let value = Int(parts[1]) else { throw UsageError("ct takes mireds 153–500, like ct=366") }
                result.append(("colorTemperature", .int(value)))
            case ("xy", 2):
                let xy = parts[1].split(separator: ",").compactMap { Double($0) }
                guard xy.count == 2 else { throw UsageError("xy takes two numbers, like xy=0.31,0.33") }
                guard xy.allSatisfy({ (0...1).contains($0) }) else {
                    throw UsageError("xy takes two numbers from 0 to 1 (CIE 1931), like xy=0.31,0.33, not '\(word)'")
                }
                result.append(("color", ["x": .double(xy[0]), "y": .double(xy[1])]))
            default:
                throw UsageError("'\(word)' is not a change; use on, off, brightness=N, ct=N or xy=X,Y")
            }
        }
        return result
    }

    static func set(_ reader: HomeReader, _ words: [String], _ options: CommonOptions) async throws {
        let changes = try changes(words.dropFirst())
        if try await reader.roomIDs().contains(words[0]) {
            try await setAll(reader, room: words[0], changes, options)
            return
        }
        let (_, scope) = try await reader.openLight(words[0])
        var confirmed = JSONObject()
        for (connection, value) in changes {
            confirmed[connection] = try await reader.client.set(
                connection, in: scope, to: value, transitionMs: options.transitionMs)
        }
        if options.json { Output.json(.object(confirmed)); return }
        Output.line("\(words[0]): " + confirmed.map { "\($0.key)=\(display($0.value))" }.joined(separator: " "))
    }

    /// `set ROOM …`: one group command to the room's lights, then what each light did with it.
    static func setAll(
        _ reader: HomeReader, room: String, _ changes: [(String, JSONValue)], _ options: CommonOptions
    ) async throws {
        var arguments = JSONObject(changes.map { (key: $0.0, value: $0.1) })
        if let transition = options.transitionMs { arguments["transitionMs"] = .double(transition) }
        let scope = try await reader.openRoom(room)
        let result = try await reader.client.call("setAll", in: scope, arguments: .object(arguments))
        if options.json { Output.json(result); return }
        let rows = (result["lights"]?.arrayValue ?? []).map { delivery -> [String] in
            let applied = delivery["applied"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let ignored = delivery["ignored"]?.arrayValue?.compactMap(\.stringValue) ?? []
            return [
                delivery["light"]?.stringValue ?? "",
                delivery["missed"]?.stringValue.map { "missed (\($0))" } ?? "applied",
                applied.joined(separator: " "), ignored.isEmpty ? "-" : ignored.joined(separator: " "),
            ]
        }
        Output.table(["LIGHT", "OUTCOME", "APPLIED", "IGNORED"], rows, legend: options.legend, color: options.color)
    }

    static func rename(_ reader: HomeReader, _ words: [String], _ options: CommonOptions) async throws {
        let scope: ScopeID
        switch words[0] {
        case "home": scope = .root
        case "room":
            guard try await reader.roomIDs().contains(words[1]) else {
                throw Failure("no room '\(words[1])'; list rooms with 'lumenctl rooms'")
            }
            scope = try await reader.openRoom(words[1])
        default: scope = try await reader.openLight(words[1]).scope
        }
        let name = try await reader.client.set("name", in: scope, to: .string(words.last!))
        if options.json { Output.json(["name": name]) } else { Output.line("renamed to \(display(name))") }
    }

    static func describe(_ client: LumenClient, _ only: String?, _ options: CommonOptions) async throws {
        let scopes = try await client.request("describe")["scopes"]?.objectValue ?? [:]
        if let only, scopes[only] == nil {
            throw Failure("no scope type '\(only)'; they are \(scopes.keys.joined(separator: ", "))")
        }
        let chosen = scopes.members.filter { only == nil || $0.key == only }
        if options.json {
            Output.json(.object(JSONObject(chosen.map { (key: $0.key, value: $0.value) })))
            return
        }
        var rows: [[String]] = []
        for (type, description) in chosen {
            for connection in description["connections"]?.arrayValue ?? [] {
                let kind = connection["kind"]?.stringValue ?? ""
                let detail: String
                switch kind {
                case "action":
                    detail =
                        "\(connection["arguments"]?.stringValue ?? "none") → \(connection["result"]?.stringValue ?? "")"
                case "scope":
                    detail =
                        "→ \(connection["scope"]?.stringValue ?? "") (\(connection["configuration"]?.stringValue ?? "none"))"
                default:
                    detail = connection["type"]?.stringValue ?? ""
                }
                rows.append([type, connection["name"]?.stringValue ?? "", kind, detail])
            }
        }
        Output.table(["SCOPE", "CONNECTION", "KIND", "TYPE"], rows, legend: options.legend, color: options.color)
    }

    static func call(_ client: LumenClient, _ words: [String], _ options: CommonOptions) async throws {
        var params = JSONObject()
        if words.count == 2 {
            guard let value = try? JSONParser.parse(words[1]), let object = value.objectValue else {
                throw UsageError("the params must be one JSON object, like '{\"scope\":0,\"connection\":\"name\"}'")
            }
            params = object
        }
        let result = try await client.request(words[0], params)
        Output.line(options.json ? result.serialized() : result.prettySerialized().trimmingCharacters(in: .newlines))
    }
}
