/// Shell completion scripts made from a program's option and command declarations, so that what a shell
/// offers is what the parser takes.
public struct ShellCompletion: Sendable {
    /// The shells a script can be made for.
    public enum Shell: String, Sendable, CaseIterable {
        case bash, zsh, fish
    }

    /// One option as completion needs it.
    public struct Option: Sendable {
        /// Every spelling.
        public var names: [String]
        /// Whether it takes a value.
        public var takesValue: Bool
        /// How its value is completed.
        public var completion: CompletionKind
        /// One line for shells that show descriptions.
        public var summary: String
    }

    /// The program's name.
    public let program: String
    /// Its options.
    public let options: [Option]
    /// Its commands, if it has any.
    public let commands: [CommandLineCommand]

    /// Completion for `program`, from its declarations.
    public init<Target>(program: String, options: [CommandLineOption<Target>], commands: [CommandLineCommand] = []) {
        self.program = program
        self.options = options.filter { !$0.hidden }.map {
            Option(
                names: $0.names, takesValue: $0.valueName != nil, completion: $0.completion,
                summary: Self.firstSentence($0.help))
        }
        self.commands = commands
    }

    /// The script for `shell`.
    public func script(for shell: Shell) -> String {
        switch shell {
        case .bash: bash
        case .zsh: zsh
        case .fish: fish
        }
    }

    private var function: String { "_" + program.replacing("-", with: "_") }

    private static func firstSentence(_ text: String) -> String {
        let line = text.split(separator: "\n").first.map(String.init) ?? ""
        // A sentence ends at a full stop and a space, or at the line's end: a dot inside a word (state.json,
        // 127.0.0.1, _hue._tcp) ends none.
        let sentence = line.firstRange(of: ". ").map { String(line[..<$0.lowerBound]) } ?? line
        let trimmed = sentence.hasSuffix(".") ? String(sentence.dropLast()) : sentence
        return trimmed.count <= 60 ? trimmed : String(trimmed.prefix(57)) + "..."
    }

    /// Single-quoted for sh-like shells.
    private static func quoted(_ text: String) -> String { "'" + text.replacing("'", with: "'\\''") + "'" }

    // MARK: - bash

    private func bashWords(_ kind: CompletionKind) -> String {
        switch kind {
        case .none: "COMPREPLY=()"
        case .file: "COMPREPLY=($(compgen -f -- \"$cur\"))"
        case .directory: "COMPREPLY=($(compgen -d -- \"$cur\"))"
        case .choices(let words): "COMPREPLY=($(compgen -W \(Self.quoted(words.joined(separator: " "))) -- \"$cur\"))"
        case .command(let command): "COMPREPLY=($(compgen -W \"$(\(command))\" -- \"$cur\"))"
        }
    }

    private var valueOptions: [Option] { options.filter(\.takesValue) }

    var bash: String {
        var lines = ["# bash completion for \(program), made from its option declarations", "\(function)() {"]
        lines.append("    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}")
        lines.append("    case $prev in")
        for option in valueOptions {
            lines.append("        \(option.names.joined(separator: "|"))) \(bashWords(option.completion)); return ;;")
        }
        lines.append("    esac")
        let all = options.flatMap(\.names).joined(separator: " ")
        lines.append(
            "    if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \(Self.quoted(all)) -- \"$cur\")); return; fi")
        guard !commands.isEmpty else {
            lines += ["    COMPREPLY=()", "}", "complete -F \(function) \(program)"]
            return lines.joined(separator: "\n") + "\n"
        }
        let skip = valueOptions.flatMap(\.names).joined(separator: "|")
        lines += [
            "    local command=\"\" position=0 i word",
            "    for ((i = 1; i < COMP_CWORD; i++)); do",
            "        word=${COMP_WORDS[i]}",
            "        case $word in",
            "            \(skip.isEmpty ? "--never--" : skip)) ((i++)) ;;",
            "            -*) ;;",
            "            *) if [[ -z $command ]]; then command=$word; else ((position++)); fi ;;",
            "        esac",
            "    done",
            "    case $command in",
            "        \"\") COMPREPLY=($(compgen -W \(Self.quoted(commands.map(\.name).joined(separator: " "))) -- \"$cur\")) ;;",
        ]
        for command in commands where !command.arguments.isEmpty {
            lines += Self.positionCases(command, indent: "        ", words: bashWords)
        }
        lines += ["    esac", "}", "complete -F \(function) \(program)"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// A `case $position in … esac` arm for one command, as bash and zsh both write it: each argument's
    /// position (`*` for a last one that serves every later position) and what completes it.
    private static func positionCases(
        _ command: CommandLineCommand, indent: String, words: (CompletionKind) -> String
    ) -> [String] {
        var lines = ["\(indent)\(command.name))", "\(indent)    case $position in"]
        for (index, orLater, kind) in command.argumentPositions {
            lines.append("\(indent)        \(orLater ? "*" : String(index))) \(words(kind)) ;;")
        }
        return lines + ["\(indent)    esac ;;"]
    }

    // MARK: - zsh

    private func zshAction(_ kind: CompletionKind) -> String {
        switch kind {
        case .none: "_message 'value'"
        case .file: "_files"
        case .directory: "_files -/"
        case .choices(let words): "compadd -- \(words.map(Self.quoted).joined(separator: " "))"
        case .command(let command): "compadd -- ${(f)\"$(\(command))\"}"
        }
    }

    var zsh: String {
        var lines = ["#compdef \(program)", "# zsh completion for \(program), made from its option declarations"]
        lines.append("\(function)() {")
        lines.append("    local -a specs")
        lines.append("    specs=(")
        for option in options {
            let summary = option.summary.replacing("[", with: "(").replacing("]", with: ")")
            let names = option.names.count > 1 ? "{\(option.names.joined(separator: ","))}" : option.names[0]
            let head = option.names.count > 1 ? "'(\(option.names.joined(separator: " ")))'\(names)" : names
            if option.takesValue {
                lines.append("        \(head)\(Self.quoted("[\(summary)]:value:->value-\(option.names.last!)"))")
            } else {
                lines.append("        \(head)\(Self.quoted("[\(summary)]"))")
            }
        }
        lines.append("    )")
        if commands.isEmpty {
            lines.append("    local state")
            lines.append("    _arguments -s $specs && return")
        } else {
            lines.append("    local state line context")
            lines.append("    _arguments -s -C $specs '1:command:->command' '*::argument:->argument' && return")
        }
        lines.append("    case $state in")
        for option in valueOptions {
            lines.append("        value-\(option.names.last!)) \(zshAction(option.completion)) ;;")
        }
        if !commands.isEmpty {
            lines.append("        command)")
            lines.append("            local -a commands")
            lines.append("            commands=(")
            for command in commands {
                lines.append(
                    "                \(Self.quoted("\(command.name):\(command.summary.replacing(":", with: " -"))"))")
            }
            lines.append("            )")
            lines.append("            _describe 'command' commands ;;")
            lines.append("        argument)")
            // After `*::`, words[1] is the command and CURRENT counts from it.
            lines.append("            local position=$((CURRENT - 2))")
            lines.append("            case $words[1] in")
            for command in commands where !command.arguments.isEmpty {
                lines += Self.positionCases(command, indent: "                ", words: zshAction)
            }
            lines.append("            esac ;;")
        }
        lines.append("    esac")
        lines.append("}")
        lines.append("\(function) \"$@\"")
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: - fish

    private func fishArguments(_ kind: CompletionKind) -> String {
        switch kind {
        case .none: "-f"
        case .file: "-F"
        case .directory: "-f -a '(__fish_complete_directories)'"
        case .choices(let words): "-f -a \(Self.quoted(words.joined(separator: " ")))"
        case .command(let command): "-f -a \(Self.quoted("(\(command))"))"
        }
    }

    var fish: String {
        var lines = ["# fish completion for \(program), made from its option declarations"]
        lines.append("complete -c \(program) -f")
        for option in options {
            var spec = "complete -c \(program)"
            for name in option.names {
                spec += name.hasPrefix("--") ? " -l \(name.dropFirst(2))" : " -s \(name.dropFirst(1))"
            }
            if option.takesValue { spec += " -r " + fishArguments(option.completion) }
            spec += " -d \(Self.quoted(option.summary))"
            lines.append(spec)
        }
        guard !commands.isEmpty else { return lines.joined(separator: "\n") + "\n" }
        let helper = "__\(program.replacing("-", with: "_"))_position"
        let valueNames = valueOptions.flatMap(\.names).joined(separator: " ")
        // Prints `COMMAND:POSITION` for the argument being completed (`:0` before the command).
        lines += [
            "function \(helper)",
            "    set -l words (commandline -opc)",
            "    set -e words[1]",
            "    set -l command ''",
            "    set -l position 0",
            "    set -l skip 0",
            "    for word in $words",
            "        if test $skip = 1",
            "            set skip 0",
            "        else if contains -- $word \(valueNames)",
            "            set skip 1",
            "        else if string match -q -- '-*' $word",
            "        else if test -z \"$command\"",
            "            set command $word",
            "        else",
            "            set position (math $position + 1)",
            "        end",
            "    end",
            "    echo \"$command:$position\"",
            "end",
        ]
        for command in commands {
            lines.append(
                "complete -c \(program) -n \(Self.quoted("test (\(helper)) = :0")) -a \(command.name) "
                    + "-d \(Self.quoted(command.summary))")
        }
        for command in commands where !command.arguments.isEmpty {
            for (index, orLater, kind) in command.argumentPositions {
                let condition =
                    orLater
                    ? "string match -qr '^\(command.name):([\(index)-9]|[0-9][0-9]+)$' (\(helper))"
                    : "test (\(helper)) = \(command.name):\(index)"
                lines.append("complete -c \(program) -n \(Self.quoted(condition)) \(fishArguments(kind))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
