import CSystemd

/// Tells the service manager how the daemon is doing (`READY=1`, `STATUS=…`, `WATCHDOG=1`, `STOPPING=1`).
public protocol ServiceNotifier: Sendable {
    /// Sends a notification such as `"READY=1"` or `"STATUS=serving 12 lights"`.
    func notify(_ state: String)
}

/// Notifies systemd through libsystemd's `sd_notify`, which does nothing when `NOTIFY_SOCKET` is unset.
public struct SystemdNotifier: ServiceNotifier {
    /// A notifier.
    public init() {}

    public func notify(_ state: String) { _ = sd_notify(0, state) }

    /// The watchdog interval systemd asked for (`WATCHDOG_USEC`, honouring `WATCHDOG_PID`), or `nil`.
    public static func watchdogInterval() -> Duration? {
        var usec: UInt64 = 0
        guard sd_watchdog_enabled(0, &usec) > 0, usec > 0 else { return nil }
        return .microseconds(Int64(usec))
    }

    /// The sockets systemd passed (`LISTEN_FDS`, honouring `LISTEN_PID`); they start at fd 3.
    /// - Parameter unsetEnvironment: whether to remove the variables so children do not inherit them.
    public static func listenFileDescriptors(unsetEnvironment: Bool = true) -> [Int32] {
        let count = sd_listen_fds(unsetEnvironment ? 1 : 0)
        guard count > 0 else { return [] }
        return (0..<count).map { SD_LISTEN_FDS_START + $0 }
    }
}
