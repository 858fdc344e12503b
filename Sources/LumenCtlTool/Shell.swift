import CEdit
import FoundationEssentials
import LumenClient
import LumenCommandLine
import LumenProtocol

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `lumenctl shell`: one session, many commands. Scopes opened on one line stay open for the next, since
/// every line runs on the same connection.
enum Shell {
    /// Lines of the session failed: the status lumenctl exits with, that of the last one (each was told
    /// already, on its own line).
    struct LinesFailed: Error {
        let status: Int32
    }

    static func run(_ options: CommonOptions) async throws {
        let client = try await options.connect()
        defer { client.disconnect() }
        let reader = HomeReader(client: client)
        let interactive = isatty(0) != 0
        let history = historyPath()
        if interactive, let history {
            _ = read_history(history)
            let hello = try await client.hello()
            Output.line(
                "lumend \(hello["version"]?.stringValue ?? "?") at \(client.path); 'help' lists the commands, 'exit' ends"
            )
        }
        defer { if interactive, let history { _ = write_history(history) } }
        var failed: Int32 = 0
        while let line = nextLine(interactive: interactive) {
            let words = split(line)
            guard let first = words.first else { continue }
            if first == "exit" || first == "quit" { break }
            if interactive { add_history(line) }
            if first == "help" {
                Output.line(
                    LumenCtl.commands.filter { $0.session != nil }.map { "  " + $0.spec.synopsis[0] }.joined(
                        separator: "\n"))
                continue
            }
            do {
                var lineOptions = try CommonOptions.parse(words)
                lineOptions.socket = options.socket
                guard let name = lineOptions.words.first, let command = LumenCtl.command(named: name),
                    let body = command.session
                else {
                    throw UsageError("'\(first)' is not a command here; 'help' lists them")
                }
                let arguments = Array(lineOptions.words.dropFirst())
                guard command.spec.accepts(arguments) else {
                    throw UsageError("wrong arguments for '\(name)'\n" + command.spec.help(program: "lumenctl"))
                }
                try await body(reader, arguments, lineOptions)
            } catch let error as LumenClientError where error == .disconnected {
                Output.error(error.description)
                throw error
            } catch {
                // A mistake on one line is reported and the session goes on; the exit status tells of it.
                Output.error(LumenCtl.inUsersWords("\(error)"))
                failed = LumenCtl.exitStatus(for: error)
            }
        }
        if failed != 0 { throw LinesFailed(status: failed) }
    }

    /// The next line: edited, with history, on a terminal; read plainly otherwise. `nil` at the end.
    static func nextLine(interactive: Bool) -> String? {
        guard interactive else { return readLine() }
        guard let raw = readline("lumenctl> ") else { return nil }
        defer { free(raw) }
        return String(cString: raw)
    }

    /// Where the history is kept, made if need be: `$XDG_STATE_HOME/lumenctl/history`.
    static func historyPath() -> String? {
        let state = LumenPaths.user(environment: ProcessInfo.processInfo.environment).stateDirectory
        var parent = Substring(state)
        while parent.count > 1, parent.hasSuffix("/") { parent.removeLast() }
        parent = parent.lastIndex(of: "/").map { parent[..<$0] } ?? ""
        let directory = String(parent) + "/lumenctl"
        guard
            (try? FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])) != nil
        else { return nil }
        return directory + "/history"
    }

    /// Words as a shell splits them: spaces separate, single and double quotes group, a backslash escapes.
    /// A word that begins with `{` or `[` is JSON, taken as typed up to its closing bracket, so
    /// `call get {"scope":0,"connection":"name"}` needs no quotes around it.
    static func split(_ line: String) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        var json = JSONWord()
        for character in line {
            if json.isOpen || !inWord && quote == nil && !escaped && (character == "{" || character == "[") {
                json.take(character)
                word.append(character)
                inWord = true
            } else if escaped {
                word.append(character)
                escaped = false
            } else if character == "\\" && quote != "'" {
                escaped = true
                inWord = true
            } else if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == " " || character == "\t" {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(character)
                inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }

    /// Where a JSON word stands: how deep in brackets, and whether inside a string (or just after a backslash
    /// in one).
    struct JSONWord {
        var depth = 0
        var inString = false
        var escaped = false

        /// Whether the word's brackets are still open.
        var isOpen: Bool { depth > 0 }

        mutating func take(_ character: Character) {
            if inString {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                }
                return
            }
            switch character {
            case "\"": inString = true
            case "{", "[": depth += 1
            case "}", "]": depth -= 1
            default: break
            }
        }
    }
}
