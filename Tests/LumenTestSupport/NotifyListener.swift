import Foundation
import Synchronization

/// A datagram socket standing in for systemd's `NOTIFY_SOCKET`: it collects what a daemon sends with
/// `sd_notify`, with the time each message arrived.
public final class NotifyListener: Sendable {
    /// The socket's path: put it in the daemon's `NOTIFY_SOCKET`.
    public let path: String
    let fd: Int32

    /// Binds a listener at `path`.
    public init(path: String) {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        precondition(bound == 0, "bind \(path): \(String(cString: strerror(errno)))")
    }

    deinit { close(fd) }

    /// The next message (its assignments, one per line), or `nil` after `timeout`.
    public func next(timeout: Duration = .seconds(20)) async -> (message: String, at: ContinuousClock.Instant)? {
        await offload { [self] in
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let millis = Int32(timeout.components.seconds * 1_000)
            guard poll(&poller, 1, millis) > 0 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 4_096)
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            return (String(decoding: buffer[0..<count], as: UTF8.self), ContinuousClock.now)
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
