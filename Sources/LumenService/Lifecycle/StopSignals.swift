import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The signals lumend acts on, caught from the first instant of the process, so that none is lost or takes
/// its default action however early it comes: each one caught is written to a pipe (the self-pipe trick),
/// where it waits until the service group reads it.
///
/// The handler also counts the stop signals (SIGTERM, SIGINT): the second ends the process at once, with
/// status 128 + its number, whatever the process is doing, a start-up waiting in a system call as much as a
/// stop under way.
///
/// A `signalfd` would need the signals blocked in every thread, including any a library starts, so a handler
/// it is: it runs on whichever thread the kernel picks and does one async-signal-safe `write`.
///
/// ```swift
/// StopSignals.install()         // first thing in main
/// let fd = StopSignals.readEnd  // later: one byte per signal, the pending ones first
/// ```
public enum StopSignals {
    /// SIGTERM, SIGINT and SIGHUP.
    public static let handled: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    /// How many stop signals were caught. Lock-free, so the handler may count.
    private static let stopsCaught = Atomic<Int>(0)
    /// The number of the first stop signal caught; 0 before one is.
    private static let firstStop = Atomic<Int32>(0)

    /// The pipe's ends. Written once, by ``install()``, before any handler can run; only read after.
    nonisolated(unsafe) private static var ends: [Int32] = [-1, -1]
    /// Set once by ``install()``, before anything else runs, and only read after.
    nonisolated(unsafe) private static var installed = false

    /// Catches ``handled``. Call it first thing in `main`; later calls do nothing.
    public static func install() {
        guard !installed else { return }
        installed = true
        // Initialised here, before any handler runs: a handler may not be the first to touch a static.
        _ = stopsCaught.load(ordering: .relaxed)
        _ = firstStop.load(ordering: .relaxed)
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { return }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        ends = pipeEnds
        for number in handled {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                // Async-signal-safe: atomics, `_exit` and one write; a full pipe (a storm of signals) only drops
                // repeats.
                if number == SIGTERM || number == SIGINT {
                    // The second stop signal: the operator wants out now.
                    if StopSignals.stopsCaught.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
                        _exit(128 + number)
                    }
                    _ = StopSignals.firstStop.compareExchange(
                        expected: 0, desired: number, ordering: .sequentiallyConsistent)
                }
                var byte = UInt8(truncatingIfNeeded: number)
                let saved = errno
                _ = write(StopSignals.writeEnd, &byte, 1)
                errno = saved
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
        // A parent may have started lumend with these signals blocked (a mask is inherited across exec):
        // unblocked here, on the main thread before any other exists, every thread lumend starts can take them.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for number in handled { sigaddset(&unblock, number) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }

    /// The first stop signal caught, `nil` before one is.
    public static var stopSignal: Int32? {
        let number = firstStop.load(ordering: .sequentiallyConsistent)
        return number == 0 ? nil : number
    }

    /// The end the group reads: one byte, the signal's number, per signal caught (`-1` before ``install()``).
    public static var readEnd: Int32 { ends[0] }
    static var writeEnd: Int32 { ends[1] }

    /// The signals caught since the last call, without waiting.
    public static func drain() -> [Int32] {
        var numbers: [Int32] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            guard count > 0 else { return numbers }
            numbers += buffer[0..<count].map { Int32($0) }
        }
    }
}
