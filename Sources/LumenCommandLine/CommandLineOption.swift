/// A command-line mistake, with a message that says what to type instead.
public struct UsageError: Error, Sendable, CustomStringConvertible {
    /// The message, for people.
    public var description: String

    /// A mistake described by `description`.
    public init(_ description: String) { self.description = description }
}

/// What a shell offers when completing an option's value or a command's argument.
public enum CompletionKind: Sendable, Hashable {
    /// Nothing in particular.
    case none
    /// A file path.
    case file
    /// A directory path.
    case directory
    /// One of these words.
    case choices([String])
    /// Words a command prints, one per line: the shell runs `command` (a pipeline every shell reads alike,
    /// quieting its own errors) and offers each line (light IDs, for example, from `lumenctl lights`).
    case command(String)
}

/// One command-line option, declared once: its names, its value, its help, how a shell completes it, and what
/// it does to the options being parsed. Help text, manual pages and shell completions are all made from
/// these declarations, so they cannot disagree with the parser.
public struct CommandLineOption<Target>: Sendable {
    /// Every spelling, the long one last: `["-h", "--help"]`.
    public let names: [String]
    /// The value's placeholder in help (`PATH`), or `nil` for a flag.
    public let valueName: String?
    /// What it does, for people: one paragraph, wrapped when printed.
    public let help: String
    /// How a shell completes its value.
    public let completion: CompletionKind
    /// Whether help leaves it out (kept for compatibility, or for scripts only).
    public let hidden: Bool
    let apply: @Sendable (inout Target, String?) throws -> Void

    /// An option that takes a value: `--name VALUE` or `--name=VALUE`.
    public static func value(
        _ names: String..., valueName: String, help: String, completion: CompletionKind = .none,
        hidden: Bool = false, apply: @escaping @Sendable (inout Target, String) throws -> Void
    ) -> CommandLineOption {
        CommandLineOption(
            names: names, valueName: valueName, help: help, completion: completion, hidden: hidden
        ) { target, value in try apply(&target, value ?? "") }
    }

    /// An option that takes one of a set of words, each an enum case's raw value.
    public static func choice<Choice: RawRepresentable & CaseIterable & Sendable>(
        _ names: String..., help: String, hidden: Bool = false,
        apply: @escaping @Sendable (inout Target, Choice) -> Void
    ) -> CommandLineOption where Choice.RawValue == String {
        let words = Choice.allCases.map(\.rawValue)
        let name = names.last ?? ""
        return CommandLineOption(
            names: names, valueName: words.joined(separator: "|"), help: help, completion: .choices(words),
            hidden: hidden
        ) { target, value in
            let raw = value ?? ""
            guard let choice = Choice(rawValue: raw) else {
                let quoted = words.map { "'\($0)'" }
                let choices =
                    quoted.count > 2
                    ? quoted.dropLast().joined(separator: ", ") + " or " + (quoted.last ?? "")
                    : quoted.joined(separator: " or ")
                throw UsageError("\(name) must be \(choices), not '\(raw)'")
            }
            apply(&target, choice)
        }
    }

    /// A flag: `--name`, taking no value.
    public static func flag(
        _ names: String..., help: String, hidden: Bool = false,
        apply: @escaping @Sendable (inout Target) -> Void
    ) -> CommandLineOption {
        CommandLineOption(
            names: names, valueName: nil, help: help, completion: .none, hidden: hidden
        ) { target, _ in apply(&target) }
    }

    /// The long name (the last spelling).
    public var name: String { names.last ?? "" }
}

/// Reading option values that many options share.
public enum OptionValue {
    /// Parses a whole number in `range`, or says what is wrong with it.
    public static func count(_ raw: String, option: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let count = Int(raw), range.contains(count) else {
            throw UsageError(
                "\(option) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(raw)'")
        }
        return count
    }
}
