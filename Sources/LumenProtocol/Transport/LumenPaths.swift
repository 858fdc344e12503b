#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where `lumend` keeps its state and socket, resolved by one set of rules in the daemon, `lumenctl` and
/// `LumenClient`:
///
/// - under systemd, the directories it names (`$STATE_DIRECTORY`, `$RUNTIME_DIRECTORY`);
/// - as root, the system's: `/var/lib/lumend` and `/run/lumend/lumend.sock`;
/// - as a user, the XDG base directories: `$XDG_STATE_HOME/lumend` (else `~/.local/state/lumend`) and
///   `$XDG_RUNTIME_DIR/lumend/lumend.sock`, else a private `/tmp/lumend-UID`.
package struct LumenPaths: Sendable, Hashable {
    /// The state directory.
    package var stateDirectory: String
    /// The runtime directory (the socket lives here).
    package var runtimeDirectory: String

    /// The default socket path.
    package var socketPath: String { "\(runtimeDirectory)/lumend.sock" }

    /// The system's directories, as the shipped units use them.
    package static let system = LumenPaths(stateDirectory: "/var/lib/lumend", runtimeDirectory: "/run/lumend")

    /// Directories given outright.
    package init(stateDirectory: String, runtimeDirectory: String) {
        self.stateDirectory = stateDirectory
        self.runtimeDirectory = runtimeDirectory
    }

    /// The directories lumend uses, from an environment and the user it runs as.
    package init(environment: [String: String], uid: UInt32 = getuid()) {
        let user = Self.user(environment: environment, uid: uid)
        let system = uid == 0 ? Self.system : user
        stateDirectory = Self.first("STATE_DIRECTORY", environment) ?? system.stateDirectory
        runtimeDirectory = Self.first("RUNTIME_DIRECTORY", environment) ?? system.runtimeDirectory
    }

    /// A user's own directories (the XDG base directories), whoever runs.
    package static func user(environment: [String: String], uid: UInt32 = getuid()) -> LumenPaths {
        let fallback = "/tmp/lumend-\(uid)"
        let state: String
        if let xdg = first("XDG_STATE_HOME", environment), xdg.hasPrefix("/") {
            state = "\(xdg)/lumend"
        } else if let home = first("HOME", environment), home.hasPrefix("/"), home != "/" {
            state = "\(home)/.local/state/lumend"
        } else {
            state = "\(fallback)/state"
        }
        let runtime: String
        if let xdg = first("XDG_RUNTIME_DIR", environment), xdg.hasPrefix("/") {
            runtime = "\(xdg)/lumend"
        } else {
            runtime = fallback
        }
        return LumenPaths(stateDirectory: state, runtimeDirectory: runtime)
    }

    /// A variable's value; systemd passes several directories colon-separated when a unit names several.
    static func first(_ name: String, _ environment: [String: String]) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value.split(separator: ":").first.map(String.init)
    }

    /// A socket a client may try, and why.
    package struct SocketCandidate: Sendable, Hashable {
        /// Where did this path come from, in words for a message.
        package enum Origin: String, Sendable, Hashable {
            case environment = "$LUMEN_SOCKET"
            case user = "your own lumend's"
            case system = "the system's lumend's"
        }

        /// The socket.
        package var path: String
        /// Where the path came from.
        package var origin: Origin

        /// A candidate.
        package init(path: String, origin: Origin) {
            self.path = path
            self.origin = origin
        }

        /// Why the directory holding it cannot be trusted, or `nil` when it can. A path named in
        /// `$LUMEN_SOCKET` is the user's own choice; the default ones must be in directories no other user
        /// could have planted a socket in (the system's may belong to a system account, as a systemd
        /// `DynamicUser` one does).
        package func distrust() -> String? {
            guard origin != .environment else { return nil }
            var directory = path
            if let slash = directory.lastIndex(of: "/") { directory = String(directory[..<slash]) }
            return LumenPaths.unsafeDirectoryReason(directory, trustingSystemAccounts: origin == .system)
        }
    }

    /// The sockets a client tries when none is named, in order: `$LUMEN_SOCKET`; else the user's own
    /// lumend's, then the system's (each once).
    package static func socketCandidates(environment: [String: String], uid: UInt32 = getuid()) -> [SocketCandidate] {
        if let explicit = environment["LUMEN_SOCKET"], !explicit.isEmpty {
            return [SocketCandidate(path: explicit, origin: .environment)]
        }
        let user = SocketCandidate(path: Self.user(environment: environment, uid: uid).socketPath, origin: .user)
        let system = SocketCandidate(path: Self.system.socketPath, origin: .system)
        return user.path == system.path ? [system] : [user, system]
    }
}
