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
    /// Overrides the fixture's seed.
    public var seed: UInt64?
    /// Overrides the fixture's durability (default `full`).
    public var durability: Durability?
    /// Start from the fixture, moving existing state aside.
    public var reset = false
    /// The least important messages logged.
    public var logLevel: LogLevel = .info
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

    /// Defaults resolved from the environment (see ``LumenPaths``).
    public init(environment: [String: String]) {
        let paths = LumenPaths(environment: environment)
        stateDirectory = paths.stateDirectory
        socketPath = paths.socketPath
    }

    /// A command-line mistake, with a message that says what to type instead.
    public struct UsageError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Parses `arguments` (without the program name). Accepts `--name value` and `--name=value`.
    /// - Throws: ``UsageError`` for an unknown option, a missing value or a bad one.
    public static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError)
        -> DaemonOptions
    {
        var options = DaemonOptions(environment: environment)
        var perUser: Int?
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            func count(from low: Int, to high: Int = 1_000_000) throws(UsageError) -> Int {
                let raw = try value()
                guard let count = Int(raw), (low...high).contains(count) else {
                    throw UsageError(description: "\(name) must be a whole number from \(low) to \(high), not '\(raw)'")
                }
                return count
            }
            func value() throws(UsageError) -> String {
                if let inlineValue { return inlineValue }
                guard let next = remaining.popFirst(), !next.hasPrefix("--") else {
                    throw UsageError(description: "\(name) needs a value; see 'lumend --help'")
                }
                return next
            }
            func choice<T: RawRepresentable & CaseIterable>(_ type: T.Type) throws(UsageError) -> T
            where T.RawValue == String {
                let raw = try value()
                guard let result = T(rawValue: raw) else {
                    let choices = T.allCases.map { "'\($0.rawValue)'" }.joined(separator: " or ")
                    throw UsageError(description: "\(name) must be \(choices), not '\(raw)'")
                }
                return result
            }
            func flag() throws(UsageError) {
                if inlineValue != nil { throw UsageError(description: "\(name) takes no value") }
            }
            switch name {
            case "--fixture": options.fixturePath = try value()
            case "--state-dir": options.stateDirectory = try value()
            case "--socket": options.socketPath = try value()
            case "--clock": options.clock = try choice(ClockMode.self)
            case "--durability": options.durability = try choice(Durability.self)
            case "--simulation-access": options.simulationAccess = try choice(SimulationAccess.self)
            case "--seed":
                let raw = try value()
                guard let seed = UInt64(raw) else {
                    throw UsageError(description: "--seed must be a whole number from 0 to 2^64-1, not '\(raw)'")
                }
                options.seed = seed
            case "--request-timeout":
                let raw = try value()
                guard let seconds = Double(raw), seconds > 0, seconds <= 86_400 else {
                    throw UsageError(
                        description:
                            "--request-timeout must be a number of seconds above 0 (at most 86400), not '\(raw)'")
                }
                options.limits.requestGrace = .milliseconds(Int((seconds * 1_000).rounded(.up)))
            case "--max-sessions-per-user":
                perUser = try count(from: 1)
            case "--max-sessions":
                options.limits.maxSessions = try count(from: 2)
            case "--event-loops":
                options.limits.eventLoops = try count(from: 1, to: 256)
            case "--log-level":
                let raw = try value()
                guard let level = LogLevel(name: raw) else {
                    let names = LogLevel.allCases.map(\.name).joined(separator: ", ")
                    throw UsageError(description: "--log-level must be one of \(names), not '\(raw)'")
                }
                options.logLevel = level
            case "--reset":
                try flag()
                options.reset = true
            case "--help", "-h":
                try flag()
                options.showHelp = true
            case "--version":
                try flag()
                options.showVersion = true
            case "--print-socket":
                try flag()
                options.printSocket = true
            default:
                if argument.hasPrefix("-") {
                    throw UsageError(description: "unknown option '\(name)'; see 'lumend --help'")
                }
                throw UsageError(
                    description: "unexpected argument '\(argument)'; to simulate a fixture, use --fixture \(argument)")
            }
        }
        // One user may hold three sessions in four unless told otherwise, and always fewer than all of them.
        let sessions = options.limits.maxSessions
        if let perUser {
            guard perUser < sessions else {
                throw UsageError(
                    description:
                        "--max-sessions-per-user (\(perUser)) must be below --max-sessions (\(sessions)), so that one "
                        + "user cannot lock out another")
            }
            options.limits.maxSessionsPerUser = perUser
        } else {
            options.limits.maxSessionsPerUser = max(1, sessions * 3 / 4)
        }
        for (option, path) in [("--state-dir", options.stateDirectory), ("--socket", options.socketPath)]
        where path.isEmpty {
            throw UsageError(description: "\(option) must not be empty")
        }
        return options
    }

    /// `lumend --help`.
    public static let help = """
        Usage: lumend [OPTIONS]

        Simulates a home of smart lights and serves it over a Unix socket (JSON-RPC 2.0, one message per line).
        With no options it runs the embedded demo home on the real clock.

        Options:
          --fixture PATH           Home to simulate (JSON fixture; see docs/fixtures.md). Default: the demo home.
          --state-dir DIR          Where state is kept (state.json, the snapshot, state.journal, the changes
                                   since, and the generation before each); one lumend per directory.
                                   Default: $STATE_DIRECTORY, else $XDG_STATE_HOME/lumend,
                                   else ~/.local/state/lumend.
          --socket PATH            Socket to listen on (ignored when systemd passes one). Default:
                                   $RUNTIME_DIRECTORY/lumend.sock, else $XDG_RUNTIME_DIR/lumend/lumend.sock,
                                   else /tmp/lumend-UID/lumend.sock.
          --clock real|virtual     The simulation clock. 'virtual' moves only when a client calls
                                   simulation.advance, for deterministic tests. Default: real.
          --seed N                 Seed for every random choice (overrides the fixture's).
          --durability full|relaxed
                                   'full': a write is confirmed once it is on disk. 'relaxed': once applied,
                                   on disk within 200 ms. Default: the fixture's, else full.
          --reset                  Start from the fixture, moving the existing state and journals aside
                                   (never deleted).
          --simulation-access owner|any
                                   Who may open the simulation scope: root and lumend's user (default), or
                                   everyone who can reach the socket.
          --request-timeout SECONDS
                                   Close a connection that sends no complete request within this long of
                                   connecting, or of starting a line. Default: 10.
          --max-sessions N         Sessions served at once. Each costs a file descriptor and a few KiB, not a
                                   thread; lumend raises its descriptor limit to the hard limit. Default: 4096.
          --max-sessions-per-user N
                                   Sessions one user (peer UID) may hold at once, fewer than --max-sessions so
                                   that one user cannot lock out another. Default: three in four of them.
          --event-loops N          Threads serving the connections. Default: one per core.
          --log-level LEVEL        critical, error, warning, notice, info (default) or debug.
          -h, --help               Show this help.
          --version                Show the version.
          --print-socket           Print the socket path these options resolve to, and exit.

        Signals: SIGTERM or SIGINT stop it cleanly (state is saved); a second one exits at once. SIGHUP is
        logged and otherwise ignored (there is nothing to reload: options are read at start).
        Exit status: 0 on a clean stop, 1 on failure, 2 on a command-line mistake.
        """
}
