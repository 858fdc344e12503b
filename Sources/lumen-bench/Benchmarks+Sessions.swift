import CLinux
import Foundation
import LumenProtocol

extension Benchmarks {
    /// Many sessions against one lumend (a process of its own, measured as a user would): the resident memory
    /// and threads of 10,000 sessions each subscribed to one value, and how long one change takes to reach
    /// all of them.
    static func benchmarkSessions(_ baseline: Baseline) async {
        let count = baseline.quick ? 2_000 : 10_000
        guard let lumend = siblingExecutable("lumend") else {
            print("  SKIPPED: sessions: no lumend next to lumen-bench (make bench builds both)")
            return
        }
        // This process holds one end of every session.
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        guard Int(limit.rlim_cur) > count + 64 else {
            print("  SKIPPED: sessions: the open-file limit (\(limit.rlim_cur)) holds fewer than \(count) sessions")
            return
        }
        let directory = "\(baseline.directory)/sessions"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let socketPath = "\(directory)/s.sock"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: lumend)
        process.arguments = [
            "--socket", socketPath, "--state-dir", "\(directory)/state", "--durability", "relaxed",
            "--exit-with-parent",
            "--max-sessions", String(count + 100), "--max-sessions-per-user", String(count + 50),
        ]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return }
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        var harness: Int32 = -1
        for _ in 0..<500 {
            if let fd = try? UnixSocket.connect(to: socketPath) {
                harness = fd
                break
            }
            usleep(10_000)
        }
        guard harness >= 0 else {
            print("  " + pad("lumend with \(count) sessions") + "did not start")
            return
        }
        var harnessReader = LineReader(fd: harness)
        func harnessRequest(_ line: String) {
            UnixSocket.sendAll(harness, Array((line + "\n").utf8))
            _ = try? harnessReader.next(timeout: .seconds(30))
        }
        harnessRequest(#"{"jsonrpc":"2.0","id":0,"method":"get","params":{"scope":0,"connection":"name"}}"#)
        let before = processStatus(process.processIdentifier)
        // Every session subscribes to the home's name, as a dashboard would to a value it shows.
        let subscribe = Array((subscribeToName + "\n").utf8)
        var sessions: [Int32] = []
        sessions.reserveCapacity(count)
        for _ in 0..<count {
            guard let fd = try? UnixSocket.connect(to: socketPath) else { break }
            UnixSocket.sendAll(fd, subscribe)
            var reader = LineReader(fd: fd)
            guard (try? reader.next(timeout: .seconds(30))) != nil else { break }
            sessions.append(fd)
        }
        defer { for fd in sessions { close(fd) } }
        guard sessions.count == count else {
            print("  " + pad("lumend with \(count) sessions") + "only \(sessions.count) connected")
            return
        }
        let after = processStatus(process.processIdentifier)
        let perSession = Double(after.residentKiB - before.residentKiB) * 1_024 / Double(count)
        print(
            "  " + pad("\(count.formatted()) sessions, each subscribed: resident memory a session (target ≤ 16 KiB)")
                + String(format: "%9.1f KiB", perSession / 1_024))
        let cores = ProcessInfo.processInfo.activeProcessorCount
        print(
            "  " + pad("  lumend's threads with them (target ≤ 2 a core, \(2 * cores) here)")
                + String(format: "%9d", after.threads))
        // One change, fanned out: the time from the write until the last session has its notice.
        let rounds = baseline.quick ? 10 : 50
        let epoll = watchAll(sessions)
        defer { close(epoll) }
        var lasts: [Double] = []
        // One round first, not counted: each session's first notice allocates what it keeps for the next.
        for round in 0...rounds {
            let started = ContinuousClock.now
            harnessRequest(
                #"{"jsonrpc":"2.0","id":2,"method":"set","params":{"scope":0,"connection":"name","value":"Home \#(round)"}}"#
            )
            guard waitForNotice(on: sessions, epoll: epoll) else {
                print("  " + pad("one change to \(count) subscribers") + "not every session heard of it")
                return
            }
            if round > 0 { lasts.append(seconds(ContinuousClock.now - started) * 1_000) }
        }
        lasts.sort()
        let p99 = lasts[min(lasts.count - 1, Int(Double(lasts.count) * 0.99))]
        print(
            "  " + pad("one change to \(count.formatted()) subscribers, last delivery p99 (target ≤ 100 ms)")
                + String(format: "%9.1f ms  (median %.1f)", p99, lasts[lasts.count / 2]))
    }

    /// Waits until each socket has had a `changed` notice (reading it); `false` after 30 s. The sockets are
    /// watched with `epoll` (registered once, by ``watchAll(_:)``), so the client side costs what the server's
    /// does per notice, not a scan of every socket per wake-up.
    static func waitForNotice(on sockets: [Int32], epoll: Int32) -> Bool {
        var heard = Set<Int32>()
        heard.reserveCapacity(sockets.count)
        var masks = [UInt32](repeating: 0, count: 512)
        var keys = [UInt64](repeating: 0, count: 512)
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let marker = Array(#""method":"changed""#.utf8)
        let deadline = ContinuousClock.now + .seconds(30)
        while heard.count < sockets.count {
            guard ContinuousClock.now < deadline else { return false }
            let ready = masks.withUnsafeMutableBufferPointer { masks in
                keys.withUnsafeMutableBufferPointer { keys in
                    lumen_epoll_wait(epoll, masks.baseAddress, keys.baseAddress, 512, 1_000)
                }
            }
            for index in 0..<max(0, Int(ready)) {
                let fd = Int32(truncatingIfNeeded: keys[index])
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard count > 0 else { continue }
                let text = buffer[0..<count]
                if text.indices.dropLast(marker.count - 1).contains(where: {
                    text[$0..<($0 + marker.count)].elementsEqual(marker)
                }) {
                    heard.insert(fd)
                }
            }
        }
        return true
    }

    /// An `epoll` set watching `sockets` for reading, each under its descriptor.
    static func watchAll(_ sockets: [Int32]) -> Int32 {
        let epoll = lumen_epoll_create()
        // Edge-triggered: each notice is reported once, and `epoll` does not look at a socket again after it was
        // read, as a level-triggered watch does (a second poll of each socket each round, for nothing).
        for fd in sockets {
            _ = lumen_epoll_ctl(epoll, LUMEN_EPOLL_CTL_ADD, fd, LUMEN_EPOLLIN | LUMEN_EPOLLET, UInt64(fd))
        }
        return epoll
    }

    /// A process's resident size and thread count, from `/proc/PID/status`.
    static func processStatus(_ pid: Int32) -> (residentKiB: Int, threads: Int) {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int {
            // `Name:` then whitespace (tabs and spaces), the number, and perhaps a unit.
            status.split(separator: "\n").first { $0.hasPrefix(name) }
                .flatMap { Int($0.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") } ?? 0
        }
        return (field("VmRSS:"), field("Threads:"))
    }
}
