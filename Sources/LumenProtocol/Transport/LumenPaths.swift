#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where `lumend` keeps its state and socket, resolved the same way by the daemon, `lumenctl` and
/// `LumenClient`: systemd's directories when it set them, else the XDG base directories, else a per-user
/// fallback.
public struct LumenPaths: Sendable, Hashable {
    /// The state directory.
    public var stateDirectory: String
    /// The runtime directory (the socket lives here).
    public var runtimeDirectory: String

    /// The default socket path.
    public var socketPath: String { "\(runtimeDirectory)/lumend.sock" }

    /// Resolves the directories from an environment.
    ///
    /// - `$STATE_DIRECTORY` (first entry) else `$XDG_STATE_HOME/lumend` else `$HOME/.local/state/lumend`
    ///   else `/tmp/lumend-<uid>/state`.
    /// - `$RUNTIME_DIRECTORY` (first entry) else `$XDG_RUNTIME_DIR/lumend` else `/tmp/lumend-<uid>`.
    public init(environment: [String: String], uid: UInt32 = getuid()) {
        func first(_ name: String) -> String? {
            guard let value = environment[name], !value.isEmpty else { return nil }
            // systemd passes several directories colon-separated when a unit names several.
            return value.split(separator: ":").first.map(String.init)
        }
        let fallback = "/tmp/lumend-\(uid)"
        if let dir = first("STATE_DIRECTORY") {
            stateDirectory = dir
        } else if let xdg = first("XDG_STATE_HOME"), xdg.hasPrefix("/") {
            stateDirectory = "\(xdg)/lumend"
        } else if let home = first("HOME"), home.hasPrefix("/"), home != "/" {
            stateDirectory = "\(home)/.local/state/lumend"
        } else {
            stateDirectory = "\(fallback)/state"
        }
        if let dir = first("RUNTIME_DIRECTORY") {
            runtimeDirectory = dir
        } else if let xdg = first("XDG_RUNTIME_DIR"), xdg.hasPrefix("/") {
            runtimeDirectory = "\(xdg)/lumend"
        } else {
            runtimeDirectory = fallback
        }
    }
}
