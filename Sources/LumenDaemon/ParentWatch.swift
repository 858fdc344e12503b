import CLinux
import LumenProtocol
import LumenService

#if canImport(Glibc)
    import Glibc
#endif

/// `--exit-with-parent`: lumend shuts down, as on SIGTERM (its state saved), once the process that started it
/// has exited, so that a test harness killed outright leaves no daemon behind.
///
/// The parent is watched through a pidfd, which becomes readable when that process has exited: the whole
/// process, not the thread that happened to start lumend, as `PR_SET_PDEATHSIG` would have it (a harness's
/// worker thread may end long before the harness does).
enum ParentWatch {
    /// Why the parent cannot be watched.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts watching the process that started lumend; when it exits, lumend sends itself SIGTERM.
    /// - Throws: ``Failure`` when it has exited already (lumend was adopted) or cannot be watched.
    static func start(watcher: any ReadableWatcher, logger: Logger) throws(Failure) {
        let parent = getppid()
        guard parent > 1 else {
            throw Failure(
                description: "--exit-with-parent: lumend's parent is process \(parent): the process that started it "
                    + "has exited already, or it is init, which does not exit; start lumend without the option")
        }
        let fd = pidfd_open(parent, 0)
        guard fd >= 0 else {
            throw Failure(
                description: "--exit-with-parent: cannot watch process \(parent): \(String(cString: strerror(errno)))")
        }
        let shutDown: @Sendable () -> Void = {
            logger.notice(
                "the process that started lumend (pid \(parent)) has exited; shutting down",
                [("parent_pid", String(parent))])
            kill(getpid(), SIGTERM)
        }
        let stopWatching = Locked<(@Sendable () -> Void)?>(nil)
        let stop = watcher.watchReadable(fd) {
            // The pidfd stays readable: the first call stops the watch, and only it acts.
            guard let stop = stopWatching.withLock({ $0.take() }) else { return }
            stop()
            shutDown()
        }
        stopWatching.withLock { $0 = stop }
        // It exited between the two calls, and its number went to another process: that one is not watched.
        if getppid() != parent { shutDown() }
    }
}
