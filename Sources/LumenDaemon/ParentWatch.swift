import CLinux
import LumenProtocol
import LumenService
import LumenStore

#if canImport(Glibc)
    import Glibc
#endif

/// `--exit-with-parent`: lumend shuts down, as on SIGTERM (its state saved), once the process that started it
/// has exited, so that a test harness killed outright leaves no daemon behind.
///
/// The parent is watched through a pidfd, which becomes readable when that process has exited: the whole
/// process, not the thread that happened to start lumend, as `PR_SET_PDEATHSIG` would have it (a harness's
/// worker thread may end long before the harness does). The main loop watches it while lumend serves; a wait
/// on a file the user named, which holds the main loop's thread, watches it too (``waitStop``).
final class ParentWatch: Sendable {
    /// Why the parent cannot be watched.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The watch started in this process, if any: a process has one parent, watched once.
    static let current = Locked<ParentWatch?>(nil)

    /// The process that started lumend.
    let parent: pid_t
    /// Its pidfd, readable once it has exited; open as long as lumend runs.
    let descriptor: Int32
    private let logger: Logger
    /// Whether its exit was noticed, by the main loop's watch or by a wait.
    private let noticed = Locked(false)
    /// Ends the main loop's watch.
    private let stopWatching = Locked<(@Sendable () -> Void)?>(nil)

    private init(parent: pid_t, descriptor: Int32, logger: Logger) {
        self.parent = parent
        self.descriptor = descriptor
        self.logger = logger
    }

    /// Starts watching the process that started lumend, on `watcher`: when it exits, lumend sends itself
    /// SIGTERM. The watch becomes ``current``.
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
        let watch = ParentWatch(parent: parent, descriptor: fd, logger: logger)
        current.withLock { $0 = watch }
        let stop = watcher.watchReadable(fd) {
            // Only the first notice acts; whichever it was, the watch ends here, as the pidfd stays readable.
            if watch.noticeExit() { kill(getpid(), SIGTERM) }
            watch.endWatch()
        }
        watch.stopWatching.withLock { $0 = stop }
        // Noticed before the watch was kept (by a wait, or the handler above on another thread): end it now.
        if watch.hasExited { watch.endWatch() }
        // It exited between the two calls, and its number went to another process: that one is not watched.
        if getppid() != parent, watch.noticeExit() { kill(getpid(), SIGTERM) }
    }

    /// Ends the main loop's watch, once it is kept; calling it again does nothing.
    private func endWatch() { stopWatching.withLock { $0.take() }?() }

    /// Whether the parent's exit has been noticed.
    var hasExited: Bool { noticed.withLock { $0 } }

    /// Notes that the parent has exited, says so and ends the main loop's watch; only the first call does, and
    /// says it did.
    func noticeExit() -> Bool {
        let first = noticed.withLock { noticed in
            defer { noticed = true }
            return !noticed
        }
        guard first else { return false }
        endWatch()
        logger.notice(
            "the process that started lumend (pid \(parent)) has exited; shutting down",
            [("parent_pid", String(parent))])
        return true
    }

    /// A wait that the parent's exit ends: its pidfd is readable from then on.
    var waitStop: WaitStop {
        WaitStop(descriptor: descriptor) { [self] in
            _ = noticeExit()
            return true
        }
    }
}
