/// Parses arguments by a list of ``CommandLineOption`` declarations, with one set of rules for every Lumen
/// program:
///
/// - `--name VALUE` and `--name=VALUE`; a value may not start with `--` (`--socket --json` is a mistake, not a
///   socket called `--json`).
/// - A flag given a value (`--json=yes`) is a mistake.
/// - Options and operands may come in any order; `--` makes every word after it an operand.
/// - A word that starts with `-` and is not an option is a mistake, unless it is a number (`-5`).
public struct CommandLineParser<Target>: Sendable {
    /// The program's name, for messages (`lumend`).
    public let program: String
    /// The options it takes.
    public let options: [CommandLineOption<Target>]

    /// A parser for `program`'s `options`.
    public init(program: String, options: [CommandLineOption<Target>]) {
        self.program = program
        self.options = options
    }

    /// Applies each option in `arguments` (without the program name) to `target` and returns the operands, in
    /// order.
    public func parse(_ arguments: [String], into target: inout Target) throws(UsageError) -> [String] {
        var operands: [String] = []
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--" {
                operands += remaining
                break
            }
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            guard let option = options.first(where: { $0.names.contains(name) }) else {
                if argument.hasPrefix("-"), argument.count > 1, Double(argument) == nil {
                    throw UsageError("unknown option '\(name)'; see '\(program) --help'")
                }
                operands.append(argument)
                continue
            }
            if option.valueName == nil {
                if inline != nil { throw UsageError("\(name) takes no value") }
                try apply(option, nil, to: &target)
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else if let next = remaining.first, !next.hasPrefix("--") {
                value = next
                remaining.removeFirst()
            } else {
                throw UsageError("\(name) needs a value (\(option.valueName ?? "")); see '\(program) --help'")
            }
            try apply(option, value, to: &target)
        }
        return operands
    }

    private func apply(_ option: CommandLineOption<Target>, _ value: String?, to target: inout Target)
        throws(UsageError)
    {
        do {
            try option.apply(&target, value)
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError("\(option.name): \(error)")
        }
    }

    /// The "Options:" section of `--help`: each option's names and value, and its help wrapped beside them.
    public func optionsHelp(width: Int = 106) -> String {
        options.filter { !$0.hidden }.map { option in
            HelpText.entry(label: option.label, text: option.help, width: width)
        }.joined(separator: "\n")
    }
}

extension CommandLineOption {
    /// How help shows it: `-h, --help` or `--socket PATH`.
    public var label: String {
        names.joined(separator: ", ") + (valueName.map { " \($0)" } ?? "")
    }
}

/// Lays out help text the way every Lumen program prints it.
public enum HelpText {
    /// The column an entry's text starts at.
    public static let textColumn = 27

    /// `  LABEL   text…`, the text wrapped at `width` and indented to ``textColumn``; a label too long to
    /// leave room has its text start on the next line.
    public static func entry(label: String, text: String, width: Int = 106) -> String {
        let indent = String(repeating: " ", count: textColumn)
        let lines = wrap(text, width: width - textColumn)
        var result = "  " + label
        if result.count + 2 > textColumn {
            result += "\n" + indent
        } else {
            result += String(repeating: " ", count: textColumn - result.count)
        }
        result += lines.joined(separator: "\n" + indent)
        return result
    }

    /// Splits `text` into lines of at most `width` characters, at spaces; a word longer than that gets a line
    /// of its own. Newlines in `text` are kept.
    public static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ") {
                if line.isEmpty {
                    line = String(word)
                } else if line.count + 1 + word.count <= width {
                    line += " " + word
                } else {
                    lines.append(line)
                    line = String(word)
                }
            }
            lines.append(line)
        }
        return lines
    }
}
