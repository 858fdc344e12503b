import FoundationEssentials
import LumenClient
import LumenCommandLine
import LumenProtocol

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
            let explanation = waitsForTheClock ? LumenCtl.explainWaiting(options) : nil
            defer { explanation?.cancel() }
            try await body(HomeReader(client: client), words, options)
        }
        command.session = body
        return command
    }
}

/// `lumenctl`: look at and drive a running lumend.
public enum LumenCtl {
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
                    "Change a light, or every light of a room at once: on, off, brightness=N, ct=N|NK, xy=X,Y, color=#RRGGBB",
                details: """
                    CHANGE is on, off, brightness=N (1–100), ct=N (mireds: 153–500, 153–454 for a Hue White Ambiance light, 111–667 for a LIFX bulb, 111–400 for a LIFX Tile, 154–455 for a LIFX Candle White to Warm) or ct=NK (kelvin: 2000K–6500K, 2203K–6500K for a Hue White Ambiance light, 1500K–9000K for a LIFX bulb, 2500K–9000K for a LIFX Tile, 2200K–6500K for a LIFX Candle White to Warm; as mireds, a million over it), xy=X,Y (CIE 1931, 0–1 each), color=#RRGGBB or rgb=R,G,B (sRGB, as xy the way Hue converts it, clipped into the colour lights' gamut; a light of colour temperature only takes the temperature nearest it).
                    A light's changes go to it as one command (its setState), so 'on brightness=30' reaches a light that is off. Waits until the device confirms it. On a virtual-clock lumend, that is when the clock is advanced (lumenctl sim advance), which set says once it has waited a second.
                    Given a ROOM, sends one group command to all its lights (the room's setAll) and lists what each light applied, left out (a property it lacks) or missed (unreachable, lost, overloaded, off).
                    """,
                arguments: [
                    Completion.lightsAndRooms, .choices(["on", "off", "brightness=", "ct=", "xy=", "color=", "rgb="]),
                ],
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
                    "Prints one line per change, with the time of day; on a virtual-clock lumend, with the simulated "
                    + "wall clock's time of day (HH:MM:SS.mmm) when the change arrived, the end of the advance that "
                    + "made it. "
                    + "SCOPE is home, room:ID or light:ID; with none, everything is watched. Ctrl-C stops.",
                accepts: { _ in true })
        ) { reader, words, options in try await Watch.run(reader, words, options) },
        .connected(
            CommandLineCommand(
                "sim",
                synopsis: [
                    "sim clock | advance MS | settle [MAX-MS] | next | log [LIGHT|ROOM] | clear-log",
                    "sim reset | checkpoint NAME | restore NAME | drop-checkpoint NAME",
                    "sim reachable LIGHT yes|no | power-cycle LIGHT [MS] | device LIGHT | link-button",
                    "sim faults LIGHT KEY=VALUE… | add-room ID [NAME] | add-light ROOM ID KIND [NAME]",
                    "sim remove-room ROOM | remove-light LIGHT | snapshot",
                ],
                summary: "Drive the simulation: the clock, reachability, faults, rooms and lights",
                details:
                    "Drives the simulation scope (root or lumend's user only, unless lumend runs with "
                    + "--simulation-access any). sim faults takes dropProbability, timeoutMs, rateLimitPerSecond, "
                    + "latency, powerOn, whileOff, overload, family and network. sim device shows a light as it really is "
                    + "(reachable or not, its state, what is fading) beside what its controller reports. sim link-button "
                    + "presses the Hue bridge's link button: apps may pair for the next 30 s. sim settle advances the virtual clock until no "
                    + "command, fade or scan is pending (at most MAX-MS, two hours unless given); sim next, to the "
                    + "next scheduled event. sim log shows the command record: each command a light received, "
                    + "when, from whom, and what became of it; sim clear-log empties it. sim reset brings the home back to its fixture while "
                    + "lumend runs, sim checkpoint NAME keeps it as it is (at most 64 at once; NAME as an ID is), "
                    + "sim restore NAME brings that back and sim drop-checkpoint NAME forgets it; what changes is "
                    + "saved as any change is.",
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

    /// The exit status a failure gives: 2 for a usage mistake, lumend's refusal of a value as invalid
    /// included (as much a mistake as one lumenctl refuses itself), 1 for anything else.
    static func exitStatus(for error: any Error) -> Int32 {
        if error is UsageError { return 2 }
        if let error = error as? LumenClientError, error.code == .invalidParams { return 2 }
        return 1
    }

    static func command(named name: String) -> Command? { commands.first { $0.spec.name == name } }

    /// Runs a command, within `--timeout` when one is given: past it, lumenctl says so, and that what it sent is
    /// still pending, and exits 1 (a call waiting for lumend cannot be taken back, so nothing waits for it).
    static func run(_ command: Command, _ words: [String], _ options: CommonOptions) async throws {
        guard let seconds = options.timeoutSeconds else { return try await command.run(words, options) }
        let watchdog = Task {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1_000)))
            Output.error(
                "lumend did not finish '\(command.spec.name)' within \(JSONNumber(seconds)) s (--timeout); what it "
                    + "sent is still pending in lumend and may yet be made (on a virtual clock a change waits until "
                    + "the clock is advanced)")
            exit(1)
        }
        defer { watchdog.cancel() }
        try await command.run(words, options)
    }

    /// Once a command has waited a moment (a second, or half its `--timeout`), says why when lumend's clock is
    /// virtual: nothing is confirmed there until someone advances it, and a command left waiting looks hung.
    /// Said once, on stderr; nothing without the simulation scope (another user's lumend). Asked on a connection
    /// of its own: on the command's, the answer would come after the command's, in its request's place.
    static func explainWaiting(_ options: CommonOptions) -> Task<Void, Never> {
        let delay = min(1, (options.timeoutSeconds ?? 2) / 2)
        return Task {
            guard (try? await Task.sleep(for: .milliseconds(Int(delay * 1_000)))) != nil,
                let client = try? await options.connect()
            else { return }
            defer { client.disconnect() }
            guard let simulation = try? await client.open("simulation", in: .root),
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

    /// Runs lumenctl with `arguments` (its name left out) and returns its exit status.
    public static func main(_ arguments: [String]) async -> Int32 {
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
        } catch let failed as Shell.LinesFailed {
            return failed.status
        } catch let error as UsageError {
            Output.error(error.description)
            return exitStatus(for: error)
        } catch let error as LumenClientError {
            Output.error(inUsersWords(error.description))
            return exitStatus(for: error)
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

}
