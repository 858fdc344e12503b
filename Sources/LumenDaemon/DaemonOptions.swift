import LumenCommandLine
import LumenHue
import LumenModel
import LumenProtocol
import LumenServer
import LumenService
import LumenSimulation

/// `lumend`'s configuration: every command-line option in one place, with its default.
public struct DaemonOptions: Sendable, Hashable {
    /// The fixture to simulate; `nil` for the embedded demo home.
    public var fixturePath: String?
    /// Where state is kept.
    public var stateDirectory: String
    /// Where the socket is bound (ignored under socket activation).
    public var socketPath: String
    /// The clock.
    public var clock: ClockMode = .real
    /// Whether the virtual clock runs itself (`--clock auto`): it jumps to the next event whenever someone waits
    /// on the simulation.
    public var clockRunsItself = false
    /// Overrides the fixture's seed.
    public var seed: UInt64?
    /// Overrides the fixture's `start`: when the simulated wall clock starts.
    public var start: WallClock?
    /// Overrides the fixture's durability (default `full`).
    public var durability: Durability?
    /// Start from the fixture, moving existing state aside.
    public var reset = false
    /// Start although the state files show that acknowledged changes are gone, from what is left.
    public var acceptLoss = false
    /// The least important messages logged.
    public var logLevel: LogLevel = .info
    /// Shut down, as on SIGTERM, once the process that started lumend has exited.
    public var exitWithParent = false
    /// Who may open the `simulation` scope.
    public var simulationAccess: SimulationAccess = .owner
    /// The limits sessions are held to (the request timeout and sessions per user are options).
    public var limits = ServerLimits()
    /// Print help and exit.
    public var showHelp = false
    /// Print the version and exit.
    public var showVersion = false
    /// Print the socket path it would use and exit (for scripts and `make run`).
    public var printSocket = false
    /// Print a shell completion script and exit.
    public var printCompletion: ShellCompletion.Shell?
    /// Check these fixtures, report their problems, and exit.
    public var checkFixtures: [String] = []
    /// Print this embedded fixture and exit.
    public var printFixture: String?

    /// Defaults resolved from the environment (see ``LumenPaths``).
    public init(environment: [String: String]) {
        let paths = LumenPaths(environment: environment)
        stateDirectory = paths.stateDirectory
        socketPath = paths.socketPath
    }

    /// Where to listen for HTTP (the Hue API under `/api`), when anywhere.
    public var httpAddress: TCPAddress?
    /// Where to listen for HTTPS (the same as HTTP, inside TLS), when anywhere.
    public var httpsAddress: TCPAddress?
    /// The PEM certificate (then any chain) HTTPS presents, when given; else lumend makes its own.
    public var tlsCertificateFile: String?
    /// The PEM private key of ``tlsCertificateFile``.
    public var tlsKeyFile: String?
    /// The address of the LAN interface on which the Hue bridge is announced by multicast DNS, when it is.
    public var mdnsAddress: IPv4Address?
    /// Where the LIFX LAN bulbs listen (UDP), when anywhere.
    public var lifxAddress: TCPAddress?
    /// Whether an app may pair with the Hue bridge only while the link button is pressed.
    public var huePairing: HuePairing = .button
    /// Limits on HTTP clients.
    public var httpLimits = HTTPLimits()
    /// The file holding the token that opens the simulation scope over HTTP, when one is given; else lumend
    /// makes one at start.
    public var httpTokenFile: String?
    /// DNS names HTTP requests may give as `Host`, besides lumend's addresses, `localhost` and names under
    /// `.localhost`.
    public var httpHosts: Set<String> = []
    /// The most users the Hue bridge keeps before it forgets the one unused longest.
    public var hueUsers = HueBridge.defaultUserLimit

    /// How apps pair with the simulated Hue bridge.
    public enum HuePairing: String, Sendable, Hashable, CaseIterable {
        /// Only in the 30 s after the link button is pressed (`lumenctl sim link-button`), as on a bridge.
        case button
        /// Whenever they ask: for test rigs with no one to press the button.
        case open
    }

    /// Sessions one user may hold, when given (resolved against ``ServerLimits/maxSessions`` after parsing).
    var maxSessionsPerUser: Int?
    /// How many of the last commands the command record keeps.
    var commandRecordLimit = Home.defaultCommandRecordLimit

    /// A command-line mistake, with a message that says what to type instead.
    public typealias UsageError = LumenCommandLine.UsageError

    /// Every option lumend takes, declared once: parsing, `--help`, the manual page and shell completion all
    /// come from this list.
    public static let declarations: [CommandLineOption<DaemonOptions>] = [
        .value(
            "--fixture", valueName: "PATH",
            help:
                "Home to simulate (JSON fixture; see lumen-fixture(5)). A pipe is read once, and a reset goes back "
                + "to what it gave. Default: the demo home.",
            completion: .file
        ) { options, value in options.fixturePath = value },
        .value(
            "--state-dir", valueName: "DIR",
            help:
                "Where state is kept (state.json, the snapshot, state.journal, the changes since, and the generation "
                + "before each); one lumend per directory. Default: $STATE_DIRECTORY; else, as root, "
                + "/var/lib/lumend; else $XDG_STATE_HOME/lumend, else ~/.local/state/lumend, else /tmp/lumend-UID/state.",
            completion: .directory
        ) { options, value in options.stateDirectory = value },
        .value(
            "--socket", valueName: "PATH",
            help:
                "Socket to listen on (ignored when systemd passes one). Default: $RUNTIME_DIRECTORY/lumend.sock, "
                + "else, as root, /run/lumend/lumend.sock; else $XDG_RUNTIME_DIR/lumend/lumend.sock, else "
                + "/tmp/lumend-UID/lumend.sock.",
            completion: .file
        ) { options, value in options.socketPath = value },
        .choice(
            "--clock",
            help:
                "The simulation clock. 'virtual' moves only when a client calls simulation.advance, for "
                + "deterministic tests; 'auto' is a virtual clock that also jumps to the next event whenever a client "
                + "waits on the simulation (a command's answer, simulation.sleep) and no request comes for 5 ms, so "
                + "unchanged application code runs at full speed. Default: real."
        ) { (options, clock: ClockChoice) in
            options.clock = clock == .real ? .real : .virtual
            options.clockRunsItself = clock == .auto
        },
        .value("--seed", valueName: "N", help: "Seed for every random choice (overrides the fixture's).") {
            options, raw in
            guard let seed = UInt64(raw) else {
                throw UsageError("--seed must be a whole number from 0 to 2^64-1, not '\(raw)'")
            }
            options.seed = seed
        },
        .value(
            "--start", valueName: "TIME",
            help:
                "The date, time and UTC offset the simulated wall clock starts at, as 2026-12-04T23:00:00+01:00 "
                + "(overrides the fixture's start). The Hue bridge's time, the command record and watch show it. "
                + "Default: the real time on the real clock; 2026-01-01T00:00:00Z on the virtual one."
        ) { options, raw in
            do throws(LumenError) {
                options.start = try WallClock(parsing: raw)
            } catch {
                throw UsageError("--start: \(error.message)")
            }
        },
        .choice(
            "--durability",
            help:
                "'full': a write is confirmed once it is on disk. 'relaxed': once applied, on disk within 200 ms. "
                + "Default: the fixture's, else full."
        ) { (options, durability: Durability) in options.durability = durability },
        .flag(
            "--reset",
            help:
                "Start from the fixture, moving the existing state and journals aside (the state an earlier reset "
                + "moved aside is removed: only the last is kept)."
        ) { $0.reset = true },
        .flag(
            "--accept-loss",
            help:
                "Start although the state files show that acknowledged changes are gone (a journal deleted, "
                + "emptied or cut short), from what is left; the damaged files are kept and the log says what was "
                + "lost. Without it lumend refuses to start from such a state."
        ) { $0.acceptLoss = true },
        .choice(
            "--simulation-access",
            help:
                "Who may open the simulation scope: root and lumend's user (owner, the default), or everyone who "
                + "can reach the socket (any)."
        ) { (options, access: SimulationAccess) in options.simulationAccess = access },
        .value(
            "--request-timeout", valueName: "SECONDS",
            help:
                "Close a connection that sends no complete request within this long of connecting, or of starting "
                + "a line (a socket's) or a request (HTTP's, answered 408). Default: 10."
        ) { options, raw in
            guard let seconds = Double(raw), seconds > 0, seconds <= 86_400 else {
                throw UsageError("--request-timeout must be a number of seconds above 0 (at most 86400), not '\(raw)'")
            }
            options.limits.requestGrace = .milliseconds(Int((seconds * 1_000).rounded(.up)))
            options.httpLimits.requestSeconds = Int(seconds.rounded(.up))
        },
        .value(
            "--max-sessions", valueName: "N",
            help:
                "Sessions served at once. Each costs a file descriptor and a few KiB, not a thread; lumend raises "
                + "its descriptor limit to the hard limit. Default: 4096."
        ) { options, raw in
            options.limits.maxSessions = try OptionValue.count(raw, option: "--max-sessions", in: 2...1_000_000)
        },
        .value(
            "--max-sessions-per-user", valueName: "N",
            help:
                "Sessions one user (peer UID) may hold at once, fewer than --max-sessions so that one user cannot "
                + "lock out another. Default: three in four of them."
        ) { options, raw in
            options.maxSessionsPerUser = try OptionValue.count(
                raw, option: "--max-sessions-per-user", in: 1...1_000_000)
        },
        .value(
            "--command-record", valueName: "N",
            help:
                "How many of the last commands the simulation scope's command record keeps (0: none). Default: "
                + "\(Home.defaultCommandRecordLimit)."
        ) { options, raw in
            options.commandRecordLimit = try OptionValue.count(raw, option: "--command-record", in: 0...1_000_000)
        },
        .value(
            "--http", valueName: "ADDRESS:PORT",
            help:
                "Listen for HTTP there (127.0.0.1:8080, [::1]:8080; port 0 picks a free one), serving the "
                + "dashboard at /, the scope protocol at /rpc and the Hue bridge API under /api. Off unless given "
                + "(or passed by systemd, lumend-http.socket)."
        ) { options, raw in
            guard let address = TCPAddress(raw) else {
                throw UsageError("--http takes ADDRESS:PORT with a numeric address, like 127.0.0.1:8080; not '\(raw)'")
            }
            options.httpAddress = address
        },
        .value(
            "--https", valueName: "ADDRESS:PORT",
            help:
                "Listen for HTTPS there (0.0.0.0:443, 127.0.0.1:8443; port 0 picks a free one) and serve what --http "
                + "serves, inside TLS, as a Hue bridge does on 443. The certificate is lumend's own, self-signed, its "
                + "subject the bridge ID, made at first start and kept in the state directory, unless "
                + "--tls-certificate gives one. Off unless given (or passed by systemd, lumend-https.socket)."
        ) { options, raw in
            guard let address = TCPAddress(raw) else {
                throw UsageError(
                    "--https takes ADDRESS:PORT with a numeric address, like 127.0.0.1:8443; not '\(raw)'")
            }
            options.httpsAddress = address
        },
        .value(
            "--tls-certificate", valueName: "FILE",
            help:
                "The certificate HTTPS presents (PEM; the server's first, then any chain), with --tls-key, instead "
                + "of lumend's own.",
            completion: .file
        ) { options, raw in options.tlsCertificateFile = raw },
        .value(
            "--tls-key", valueName: "FILE",
            help:
                "The private key of --tls-certificate (PEM, unencrypted); lumend warns when its group or others "
                + "may read it.",
            completion: .file
        ) { options, raw in options.tlsKeyFile = raw },
        .value(
            "--mdns", valueName: "IPV4-ADDRESS",
            help:
                "Announce the Hue bridge by multicast DNS (_hue._tcp, as a bridge does) on the interface holding "
                + "this address of this machine, and answer apps on that link that look for it there: its address, "
                + "the HTTPS port (else the HTTP one) if reachable at that address (bound to it or to 0.0.0.0), its "
                + "bridge ID and model. Needs --http or --https. Off unless given."
        ) { options, raw in
            guard let address = IPv4Address(raw) else {
                throw UsageError(
                    "--mdns takes an IPv4 address of this machine's LAN interface, like 192.168.1.20; not '\(raw)'")
            }
            options.mdnsAddress = address
        },
        .value(
            "--http-token-file", valueName: "PATH",
            help:
                "Read the token that opens the simulation scope over HTTP from this file (its first line, 16 to "
                + "256 characters; no more than its first 4 KiB is read) instead of making one at start.",
            completion: .file
        ) { options, raw in options.httpTokenFile = raw },
        .value(
            "--http-host", valueName: "NAME",
            help:
                "Take HTTP requests that name lumend NAME (a DNS name of this host, as bridge.lan) besides its "
                + "addresses, localhost and names under .localhost; may be given more than once. A request by any "
                + "other name is refused, "
                + "so that no page elsewhere can reach lumend through DNS rebinding."
        ) { options, raw in
            let allowed = raw.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
            guard allowed, (1...253).contains(raw.count), raw.contains(where: \.isLetter) else {
                throw UsageError("--http-host takes a DNS name, like bridge.lan (no port, no address); not '\(raw)'")
            }
            options.httpHosts.insert(raw.lowercased())
        },
        .value(
            "--lifx", valueName: "ADDRESS:PORT",
            help:
                "Answer the LIFX LAN protocol on UDP for the bulbs on the LIFX LAN, each at its own address: the "
                + "first bulb at ADDRESS, the next at the address after it, and so on, unless the fixture gives a "
                + "bulb its own (lifx.address); broadcasts to PORT reach them all (127.0.0.10:56700; 56700 is where "
                + "clients broadcast; port 0 picks a free one). Off unless given."
        ) { options, raw in
            guard options.lifxAddress == nil else {
                throw UsageError(
                    "--lifx is given once: it names the first bulb's address, the others take the next ones (or "
                        + "the fixture's lifx.address); '\(raw)' would be a second")
            }
            guard let address = TCPAddress(raw), let first = IPv4Address(address.host) else {
                throw UsageError("--lifx takes the first bulb's IPV4-ADDRESS:PORT, like 127.0.0.10:56700; not '\(raw)'")
            }
            if let problem = first.problemAsDeviceAddress {
                throw UsageError(
                    "--lifx takes the first bulb's address, like 127.0.0.10:56700 or 192.168.1.50:56700 (each bulb "
                        + "answers at its own address, and broadcasts reach them all): \(problem)")
            }
            options.lifxAddress = address
        },
        .choice(
            "--hue-pairing",
            help:
                "When apps may pair with the Hue bridge: while its link button is pressed (button, the default: "
                + "lumenctl sim link-button), or always (open)."
        ) { (options, pairing: HuePairing) in options.huePairing = pairing },
        .value(
            "--hue-users", valueName: "N",
            help:
                "The most users the Hue bridge keeps (default 64); pairing another forgets the one unused "
                + "longest, and says so in the log."
        ) { options, raw in options.hueUsers = try OptionValue.count(raw, option: "--hue-users", in: 1...10_000) },
        .value("--event-loops", valueName: "N", help: "Threads serving the connections. Default: one per core.") {
            options, raw in
            options.limits.eventLoops = try OptionValue.count(raw, option: "--event-loops", in: 1...256)
        },
        .value(
            "--log-level", valueName: "LEVEL",
            help: "critical, error, warning, notice, info (default) or debug.",
            completion: .choices(LogLevel.allCases.map(\.name))
        ) { options, raw in
            guard let level = LogLevel(name: raw) else {
                let names = LogLevel.allCases.map(\.name).joined(separator: ", ")
                throw UsageError("--log-level must be one of \(names), not '\(raw)'")
            }
            options.logLevel = level
        },
        .flag(
            "--exit-with-parent",
            help:
                "Shut down cleanly, as on SIGTERM, once the process that started lumend has exited: for test "
                + "harnesses, which may be killed before they can stop it. It also ends a wait at start for a pipe "
                + "an option names to be written."
        ) { $0.exitWithParent = true },
        .flag("-h", "--help", help: "Show this help.") { $0.showHelp = true },
        .flag("--version", help: "Show the version.") { $0.showVersion = true },
        .flag("--print-socket", help: "Print the socket path these options resolve to, and exit.") {
            $0.printSocket = true
        },
        .value(
            "--check", valueName: "FIXTURE",
            help:
                "Check a fixture without starting: print each problem with its line, column and JSON path, and exit "
                + "1 if there is any (0 if lumend would load it). Files named after it are checked too "
                + "(--check *.json); it may also be given more than once.",
            completion: .file
        ) { options, path in options.checkFixtures.append(path) },
        .value(
            "--print-fixture", valueName: "NAME",
            help: "Print an embedded fixture (demo-home), to start a fixture of one's own from, and exit.",
            completion: .choices(Fixture.embedded.map(\.name))
        ) { options, name in
            guard Fixture.embedded.contains(where: { $0.name == name }) else {
                let names = Fixture.embedded.map(\.name).joined(separator: ", ")
                throw UsageError("--print-fixture takes one of: \(names); not '\(name)'")
            }
            options.printFixture = name
        },
        .choice("--completion", help: "Print a completion script for this shell, and exit.") {
            (options, shell: ShellCompletion.Shell) in options.printCompletion = shell
        },
    ]

    /// The parser for ``declarations``.
    public static let parser = CommandLineParser(program: "lumend", options: declarations)

    /// Parses `arguments` (without the program name), by the rules of ``CommandLineParser``.
    /// - Throws: ``UsageError`` for an unknown option, a missing value or a bad one.
    public static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError)
        -> DaemonOptions
    {
        var options = DaemonOptions(environment: environment)
        let operands = try parser.parse(arguments, into: &options)
        // `--check a.json b.json`, as a shell's glob gives them: the files after it are checked too.
        if !options.checkFixtures.isEmpty {
            options.checkFixtures += operands
        } else if let operand = operands.first {
            throw UsageError("unexpected argument '\(operand)'; to simulate a fixture, use --fixture \(operand)")
        }
        // One user may hold three sessions in four unless told otherwise, and always fewer than all of them.
        let sessions = options.limits.maxSessions
        if let perUser = options.maxSessionsPerUser {
            guard perUser < sessions else {
                throw UsageError(
                    "--max-sessions-per-user (\(perUser)) must be below --max-sessions (\(sessions)), so that one "
                        + "user cannot lock out another")
            }
            options.limits.maxSessionsPerUser = perUser
        } else {
            options.limits.maxSessionsPerUser = max(1, sessions * 3 / 4)
        }
        switch (options.tlsCertificateFile, options.tlsKeyFile) {
        case (_?, nil): throw UsageError("--tls-certificate needs --tls-key, the certificate's private key")
        case (nil, _?): throw UsageError("--tls-key needs --tls-certificate, the certificate the key is for")
        default: break
        }
        for (option, path) in [("--state-dir", options.stateDirectory), ("--socket", options.socketPath)]
        where path.isEmpty {
            throw UsageError("\(option) must not be empty")
        }
        // Every check and every message speaks of the path as the kernel resolves it, from `/`.
        options.stateDirectory = TrustedDirectory.absolute(options.stateDirectory)
        options.socketPath = TrustedDirectory.absolute(options.socketPath)
        return options
    }

    /// `lumend --help`, made from ``declarations``.
    public static var help: String {
        """
        Usage: lumend [OPTIONS]

        Simulates a home of smart lights and serves it over a Unix socket (JSON-RPC 2.0, one message per line).
        With no options it runs the embedded demo home on the real clock.

        Options:
        \(parser.optionsHelp())

        Signals: SIGTERM or SIGINT stop it cleanly (state is saved), during start-up too, even while it waits
        for a pipe or FIFO it was given to be written; a second one exits at once, whatever lumend is doing.
        SIGHUP is logged and otherwise ignored (there is nothing to reload: options are read at start).
        Exit status: 0 on a clean stop, 1 on failure, 2 on a command-line mistake, 128 + the signal's number
        when a second SIGTERM or SIGINT cuts the stop short (143, 130), or when one ends --check while it
        waits for a pipe.
        """
    }

    /// Shell completion for lumend, made from ``declarations``.
    public static var completion: ShellCompletion { ShellCompletion(program: "lumend", options: declarations) }
}

/// What `--clock` takes: the simulation's clock modes, and the virtual clock that runs itself.
enum ClockChoice: String, CaseIterable, Sendable {
    case real, virtual, auto
}
