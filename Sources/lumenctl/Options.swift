import Foundation
import LumenClient

/// A command-line mistake: exit status 2, with a message that says what to type.
struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A failure to report: exit status 1.
struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The options every command takes, and the words left after them.
struct CommonOptions {
    var socket: String?
    var json = false
    var legend = true
    var help = false
    var transitionMs: Double?
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

    static func parse(_ arguments: [String]) throws(UsageError) -> CommonOptions {
        var options = CommonOptions()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            func value() throws(UsageError) -> String {
                if let inline { return inline }
                guard let next = remaining.popFirst() else { throw UsageError("\(name) needs a value") }
                return next
            }
            switch name {
            case "--socket": options.socket = try value()
            case "--json": options.json = true
            case "--no-legend": options.legend = false
            case "--help", "-h": options.help = true
            case "--transition":
                let raw = try value()
                guard let ms = Double(raw), ms >= 0 else {
                    throw UsageError("--transition takes milliseconds, like --transition 500, not '\(raw)'")
                }
                options.transitionMs = ms
            case "--":
                options.words += remaining
                remaining = []
            default:
                if argument.hasPrefix("--") { throw UsageError("unknown option '\(name)'; see 'lumenctl --help'") }
                options.words.append(argument)
            }
        }
        return options
    }

    func connect() async throws(LumenClientError) -> LumenClient {
        try await LumenClient.connect(to: socket)
    }
}
