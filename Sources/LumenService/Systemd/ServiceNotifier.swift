import CSystemd
import LumenProtocol

#if canImport(Glibc)
    import Glibc
#endif

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

    /// The sockets systemd passed, each with its name: the socket unit's `FileDescriptorName=`, else the unit's
    /// own name (`lumend-http.socket`).
    /// - Parameter unsetEnvironment: whether to remove the variables so children do not inherit them.
    public static func namedListenFileDescriptors(unsetEnvironment: Bool = true) -> [(fd: Int32, name: String)] {
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let count = sd_listen_fds_with_names(unsetEnvironment ? 1 : 0, &names)
        guard count > 0 else { return [] }
        defer {
            for index in 0..<Int(count) { free(names?[index]) }
            free(names)
        }
        return (0..<count).map { index in
            (SD_LISTEN_FDS_START + index, names?[Int(index)].map { String(cString: $0) } ?? "")
        }
    }
}

/// Passes notifications on, but no `STATUS=` once `STOPPING=1` has been sent: systemd takes `STOPPING=1` as the
/// service's last word on its state, and a status reporter still running must not say "serving" after it.
///
/// A message is checked and sent under one lock, so a status that another thread was about to send when
/// shutdown began goes out before `STOPPING=1` or not at all. To say what the service does while it stops,
/// send the status in the same message, before `STOPPING=1`:
///
/// ```swift
/// let notifier = StopAwareNotifier(sending: SystemdNotifier())
/// notifier.notify("STATUS=Stopping: saving state\nSTOPPING=1")
/// notifier.notify("STATUS=Serving")  // dropped
/// ```
public final class StopAwareNotifier: ServiceNotifier {
    private let base: any ServiceNotifier
    /// Whether `STOPPING=1` has been sent; held while sending.
    private let stopping = Locked(false)

    /// A notifier that sends through `base`.
    public init(sending base: any ServiceNotifier) { self.base = base }

    /// Sends `state` (assignments one per line), without any `STATUS=` that comes after `STOPPING=1`; sends
    /// nothing when nothing is left.
    public func notify(_ state: String) {
        stopping.withLock { stopping in
            var kept: [Substring] = []
            for line in state.split(separator: "\n", omittingEmptySubsequences: false) {
                if stopping && line.hasPrefix("STATUS=") { continue }
                if line == "STOPPING=1" { stopping = true }
                kept.append(line)
            }
            guard kept.contains(where: { !$0.isEmpty }) else { return }
            base.notify(kept.joined(separator: "\n"))
        }
    }
}
