import Foundation

/// A fresh directory for one test, removed when the test lets go of it.
public final class TemporaryDirectory: Sendable {
    /// Its path. Short on purpose: Unix socket paths must fit in 107 bytes.
    public let path: String

    /// Makes a directory under `/tmp`.
    public init() {
        var template = Array("/tmp/lumen-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed: \(String(cString: strerror(errno)))")
        path = String(cString: made!)
    }

    /// A path inside the directory.
    public func file(_ name: String) -> String { "\(path)/\(name)" }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Waits until something exists at `path`, watching its directory with inotify; `false` after `timeout`.
public func waitForPath(_ path: String, timeout: Duration = .seconds(20)) async -> Bool {
    await waitForCondition(in: (path as NSString).deletingLastPathComponent, timeout: timeout) {
        FileManager.default.fileExists(atPath: path)
    }
}

/// Waits until `condition` holds, checking it each time a file in `directory` is created, written or renamed
/// (inotify); `false` after `timeout`.
public func waitForCondition(
    in directory: String, timeout: Duration = .seconds(20), _ condition: @escaping @Sendable () -> Bool
) async -> Bool {
    await offload {
        let watcher = inotify_init1(Int32(IN_CLOEXEC))
        defer { close(watcher) }
        _ = inotify_add_watch(watcher, directory, UInt32(IN_CREATE | IN_MOVED_TO | IN_MODIFY | IN_CLOSE_WRITE))
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while !condition() {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return false }
            var poller = pollfd(fd: watcher, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, Int32(remaining.components.seconds * 1_000 + 1)) > 0 {
                _ = buffer.withUnsafeMutableBytes { read(watcher, $0.baseAddress, $0.count) }
            }
        }
        return true
    }
}
