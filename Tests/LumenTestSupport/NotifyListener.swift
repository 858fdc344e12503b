import Foundation
import LumenModel
import LumenProtocol
import Synchronization

/// A datagram socket standing in for systemd's `NOTIFY_SOCKET`: it collects what a daemon sends with
/// `sd_notify`, each message stamped with the monotonic time it arrived.
///
/// A thread of its own receives and stamps the messages as they come, so the stamps stay right even when
/// the test reads them late on a busy machine.
public final class NotifyListener: Sendable {
    /// The socket's path: put it in the daemon's `NOTIFY_SOCKET`.
    public let path: String
    private let core: Core

    /// What the receiving thread shares with the listener; the thread holds only this, so the listener can
    /// go away and tell the thread to stop.
    private final class Core: Sendable {
        let fd: Int32
        /// A self-pipe: the receiving thread writes a byte per message, `next` waits on it with `poll`.
        let signalRead: Int32
        let signalWrite: Int32
        let received = Locked<[(message: String, at: Double)]>([])
        let closed = Atomic<Bool>(false)

        init(fd: Int32, signalRead: Int32, signalWrite: Int32) {
            self.fd = fd
            self.signalRead = signalRead
            self.signalWrite = signalWrite
        }

        func receiveLoop() {
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while !closed.load(ordering: .relaxed) {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 100) > 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                guard count > 0 else { continue }
                var now = timespec()
                clock_gettime(CLOCK_MONOTONIC, &now)
                let at = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
                let message = String(decoding: buffer[0..<count], as: UTF8.self)
                received.withLock { $0.append((message, at)) }
                var byte: UInt8 = 1
                _ = write(signalWrite, &byte, 1)
            }
            Glibc.close(fd)
            Glibc.close(signalRead)
            Glibc.close(signalWrite)
        }
    }

    /// Binds a listener at `path`.
    public init(path: String) {
        self.path = path
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let bound = UnixSocketAddress.with(path) { bind(fd, $0, $1) } ?? -1
        precondition(bound == 0, "bind \(path): \(String(cString: strerror(errno)))")
        var ends: [Int32] = [0, 0]
        precondition(pipe(&ends) == 0)
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        let core = Core(fd: fd, signalRead: ends[0], signalWrite: ends[1])
        self.core = core
        Thread { core.receiveLoop() }.start()
    }

    /// Stops the receiving thread.
    public func close() { core.closed.store(true, ordering: .relaxed) }

    deinit { core.closed.store(true, ordering: .relaxed) }

    /// The next message (its assignments, one per line) and when it arrived (monotonic seconds), or `nil`
    /// after `timeout`.
    public func next(timeout: Duration = .seconds(20)) async -> (message: String, at: Double)? {
        await offload { [core] in
            var poller = pollfd(fd: core.signalRead, events: Int16(POLLIN), revents: 0)
            let millis = Int32(
                timeout.components.seconds * 1_000 + timeout.components.attoseconds / 1_000_000_000_000_000)
            guard poll(&poller, 1, max(0, millis)) > 0 else { return nil }
            var byte: UInt8 = 0
            _ = read(core.signalRead, &byte, 1)
            return core.received.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        }
    }

    /// Reads messages until one contains `assignment` (such as `READY=1`); returns every message read.
    public func wait(for assignment: String, timeout: Duration = .seconds(20)) async -> [String]? {
        var seen: [String] = []
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let (message, _) = await next(timeout: deadline - ContinuousClock.now) else { return nil }
            seen.append(message)
            if message.split(separator: "\n").contains(Substring(assignment)) { return seen }
        }
        return nil
    }
}
