import FoundationEssentials
import LumenClient
import LumenCommandLine

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failure to report: exit status 1.
struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The options every command takes, and the words left after them.
struct CommonOptions: Sendable {
    var socket: String?
    var json = false
    var legend = true
    var help = false
    var version = false
    var transitionMs: Double?
    var timeoutSeconds: Double?
    var words: [String] = []

    /// Colour and swatches only on a terminal, and never with `NO_COLOR` set.
    var color: Bool {
        isatty(1) != 0 && ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true
    }

    /// 24-bit colour swatches when the terminal says it can show them.
    var trueColor: Bool {
        let term = ProcessInfo.processInfo.environment["COLORTERM"] ?? ""
        return color && (term == "truecolor" || term == "24bit")
    }

    /// Every option lumenctl takes, declared once: parsing, `--help`, the manual page and shell completion
    /// come from this list. Options may come before or after the command.
    static let declarations: [CommandLineOption<CommonOptions>] = [
        .value(
            "--socket", valueName: "PATH",
            help:
                "lumend's socket. Default: $LUMEN_SOCKET, else your own lumend's ($XDG_RUNTIME_DIR/lumend/lumend.sock), "
                + "then the system's (/run/lumend/lumend.sock)",
            completion: .file
        ) { $0.socket = $1 },
        .flag("--json", help: "One JSON document per result, for scripts") { $0.json = true },
        .flag("--no-legend", help: "Leave out table headers") { $0.legend = false },
        .value(
            "--transition", valueName: "MS", help: "Take this long to reach a new brightness or colour (set)"
        ) { options, raw in
            guard let ms = Double(raw), ms >= 0 else {
                throw UsageError("--transition takes milliseconds, like --transition 500, not '\(raw)'")
            }
            options.transitionMs = ms
        },
        .value(
            "--timeout", valueName: "SECONDS",
            help:
                "Give up when lumend has not finished the command within this long (exit status 1); what was sent "
                + "stays pending in lumend"
        ) { options, raw in
            guard let seconds = Double(raw), seconds > 0, seconds <= 86_400 else {
                throw UsageError("--timeout takes seconds above 0, like --timeout 5, not '\(raw)'")
            }
            options.timeoutSeconds = seconds
        },
        .flag("-h", "--help", help: "Show help (also after any command)") { $0.help = true },
        .flag("--version", help: "Show the version") { $0.version = true },
    ]

    static let parser = CommandLineParser(program: "lumenctl", options: declarations)

    static func parse(_ arguments: [String]) throws(UsageError) -> CommonOptions {
        var options = CommonOptions()
        options.words = try parser.parse(arguments, into: &options)
        return options
    }

    func connect() async throws(LumenClientError) -> LumenClient {
        try await LumenClient.connect(to: socket)
    }
}
