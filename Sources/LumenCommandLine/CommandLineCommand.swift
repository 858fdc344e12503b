/// One command of a program with commands (`lumenctl get …`), declared once: the name dispatch uses, the
/// synopsis and help people read, and how a shell completes its arguments.
public struct CommandLineCommand: Sendable {
    /// The command's word.
    public let name: String
    /// How it is used, one line per form, without the program's name: `get LIGHT [PROPERTY]`.
    public let synopsis: [String]
    /// One line for the list of commands.
    public let summary: String
    /// What `PROGRAM COMMAND --help` adds below the synopsis.
    public let details: String
    /// How a shell completes each argument, by position; the last one also serves every later position when
    /// ``repeatsLastArgument`` is set.
    public let arguments: [CompletionKind]
    /// Whether the last argument's completion serves every position after it (`set LIGHT CHANGE…`).
    public let repeatsLastArgument: Bool
    /// Whether a number of arguments is right, checked before anything is done.
    public let accepts: @Sendable ([String]) -> Bool

    /// A command.
    public init(
        _ name: String, synopsis: [String], summary: String, details: String = "",
        arguments: [CompletionKind] = [], repeatsLastArgument: Bool = false,
        accepts: @escaping @Sendable ([String]) -> Bool
    ) {
        self.name = name
        self.synopsis = synopsis
        self.summary = summary
        self.details = details
        self.arguments = arguments
        self.repeatsLastArgument = repeatsLastArgument
        self.accepts = accepts
    }

    /// Each argument's completion by position; `orLater` for the last one when it also serves every position
    /// after it.
    public var argumentPositions: [(index: Int, orLater: Bool, kind: CompletionKind)] {
        arguments.enumerated().map { index, kind in
            (index, repeatsLastArgument && index == arguments.count - 1, kind)
        }
    }

    /// `PROGRAM COMMAND --help`.
    public func help(program: String) -> String {
        let usage = synopsis.enumerated().map { index, form in
            (index == 0 ? "Usage: " : "       ") + "\(program) \(form)"
        }.joined(separator: "\n")
        return details.isEmpty ? usage : usage + "\n\n" + details
    }
}
