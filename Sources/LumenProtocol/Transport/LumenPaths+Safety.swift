#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension LumenPaths {
    /// Why a directory cannot be trusted to hold lumend's socket or state, or `nil` when it can.
    ///
    /// As OpenSSH's `StrictModes` does for its files: the directory and every directory above it must be
    /// owned by `uid` or by root, and writable by no one else (its group may write when that group is the
    /// user's own), unless it is sticky (as `/tmp` is, where
    /// nobody may rename or remove another's files). Otherwise another local user could replace the socket
    /// with one of their own, or move the state away. A directory that does not exist yet is checked from
    /// the nearest one that does, since lumend creates the rest itself (mode 0700). With
    /// `trustingSystemAccounts`, a directory may also belong to a system account (the system lumend's
    /// runtime directory belongs to the user systemd runs it as).
    public static func unsafeDirectoryReason(
        _ path: String, uid: UInt32 = geteuid(), trustingSystemAccounts: Bool = false
    ) -> String? {
        var prefixes: [String] = ["/"]
        var current = ""
        for component in path.split(separator: "/") where component != "." {
            current += "/" + component
            prefixes.append(current)
        }
        for directory in prefixes {
            var info = stat()
            guard stat(directory, &info) == 0 else { break }
            let owner = UInt32(info.st_uid)
            let mode = UInt32(info.st_mode) & 0o7777
            let sticky = mode & UInt32(S_ISVTX) != 0
            if owner != uid && owner != 0 && !(trustingSystemAccounts && isSystemAccount(owner)) {
                return "\(directory) belongs to uid \(owner), not to uid \(uid) or root, so that user could replace "
                    + "what lumend keeps there; remove it (or chown it to uid \(uid) and chmod 700), or choose "
                    + "another directory"
            }
            // Group-writable is fine when the group is the user's own (a user private group).
            let groupWritable = mode & 0o020 != 0 && UInt32(info.st_gid) != getegid()
            if (mode & 0o002 != 0 || groupWritable) && !sticky {
                let octal = String(mode, radix: 8)
                return "\(directory) is writable by other users (mode \(octal)), so they could replace what "
                    + "lumend keeps there; chmod go-w \(directory), or choose another directory"
            }
        }
        return nil
    }

    /// Whether a UID is a system account's (Debian's 1–999) or a systemd `DynamicUser` one's (61184–65519):
    /// accounts no person logs in as.
    public static func isSystemAccount(_ uid: UInt32) -> Bool { uid < 1_000 || (61_184...65_519).contains(uid) }
}
