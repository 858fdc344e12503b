import LumenServer
import LumenService

/// Pings the systemd watchdog at half its interval, but only after a probe request has gone through the
/// daemon's request machinery: a stalled daemon stops pinging and systemd restarts it.
struct Watchdog: Service {
    var name: String { "watchdog" }
    let interval: Duration
    let server: SocketServer
    let notifier: any ServiceNotifier
    let logger: Logger
    let clock: any Clock<Duration>

    func run() async throws {
        try await cancelWhenGracefulShutdown { [self] in await ping() }
    }

    private func ping() async {
        while !Task.isCancelled {
            if await server.probe() {
                notifier.notify("WATCHDOG=1")
            } else if !Task.isCancelled {
                logger.warning("watchdog probe failed; not pinging")
            }
            try? await clock.sleep(for: interval / 2)
        }
    }
}
