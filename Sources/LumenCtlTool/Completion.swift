import LumenCommandLine

/// Shell completion for lumenctl, made from its option and command declarations; `completions/` in the
/// repository holds what it prints, for packagers.
enum Completion {
    /// Light IDs and room IDs, as `lumenctl lights` lists them (its first two columns).
    static let lightsAndRooms = CompletionKind.command(
        "lumenctl --no-legend lights 2>/dev/null | awk '{print $1; print $2}'")
    /// Light IDs.
    static let lights = CompletionKind.command("lumenctl --no-legend lights 2>/dev/null | awk '{print $1}'")
    /// Room IDs.
    static let rooms = CompletionKind.command("lumenctl --no-legend rooms 2>/dev/null | awk '{print $1}'")

    static let completion = ShellCompletion(
        program: "lumenctl", options: CommonOptions.declarations, commands: LumenCtl.commands.map(\.spec))
}
