extension LumenPaths {
    /// Why a directory cannot be trusted to hold lumend's socket or state, or `nil` when it can: the rules of
    /// ``TrustedDirectory``, checked up to the part of the path that exists (lumend creates the rest itself,
    /// mode 0700), without creating anything.
    package static func unsafeDirectoryReason(_ path: String, trustingSystemAccounts: Bool = false) -> String? {
        TrustedDirectory.distrust(path, trustingSystemAccounts: trustingSystemAccounts)
    }

    /// Whether a UID is a system account's (Debian's 1–999) or a systemd `DynamicUser` one's (61184–65519):
    /// accounts no person logs in as.
    package static func isSystemAccount(_ uid: UInt32) -> Bool { uid < 1_000 || (61_184...65_519).contains(uid) }
}
