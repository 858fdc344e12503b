import CLinux
import Foundation

/// The IDs of the threads of process `pid`, from `/proc`.
public func threadIDs(of pid: Int32) -> Set<Int32> {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    return Set(names.compactMap { Int32($0) })
}

/// Waits until process `pid` has at most `count` threads, watching each thread beyond them with a thread
/// pidfd (readable once the thread has exited), so the wait is for the exits themselves, not a poll.
/// - Returns: whether the count was reached within `timeout`.
public func waitForThreadCount(of pid: Int32, atMost count: Int, timeout: Duration = .seconds(120)) async -> Bool {
    await offload {
        let deadline = ContinuousClock.now + timeout
        while true {
            let threads = threadIDs(of: pid)
            if threads.count <= count { return true }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return false }
            // Any thread may be the one to go; wait for the first exit among them all, then count again.
            var watched = threads.compactMap { tid -> pollfd? in
                let fd = lumen_thread_pidfd(tid)
                return fd < 0 ? nil : pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            }
            defer { watched.forEach { close($0.fd) } }
            // No thread could be watched: each had just gone, or the kernel predates thread pidfds (6.9).
            guard !watched.isEmpty else { return threadIDs(of: pid).count <= count }
            _ = poll(&watched, nfds_t(watched.count), Int32(remaining.components.seconds * 1_000 + 1))
        }
    }
}

/// The calling thread's ID, as `/proc` names it (`/proc/thread-self` leads to `<pid>/task/<tid>`).
public func currentThreadID() -> Int32 {
    let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
    return Int32(link.split(separator: "/").last ?? "") ?? -1
}

/// Waits until thread `tid` of this process has exited, watching it with a thread pidfd (readable once it has),
/// so the wait is for the exit itself, not a poll.
/// - Returns: whether it had exited within `timeout`.
public func waitForThreadExit(_ tid: Int32, timeout: Duration = .seconds(20)) async -> Bool {
    await offload {
        let fd = lumen_thread_pidfd(tid)
        // No such thread: it is gone already (or the kernel predates thread pidfds, 6.9, and /proc tells).
        guard fd >= 0 else { return !threadIDs(of: getpid()).contains(tid) }
        defer { close(fd) }
        var watched = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&watched, 1, Int32(timeout.components.seconds * 1_000 + 1)) > 0
    }
}

/// Which sanitizer this test run is under (`make sanitize` sets its options), or `nil`: a sanitizer's runtime
/// has a thread of its own, its own allocator, and runs a symbolizer through pipes when it reports (even a
/// suppressed report), so counts of threads, heap bytes and descriptors are only exact without one.
public let runningSanitizer: String? = ["TSAN_OPTIONS": "ThreadSanitizer", "ASAN_OPTIONS": "AddressSanitizer"]
    .first { ProcessInfo.processInfo.environment[$0.key] != nil }?.value
