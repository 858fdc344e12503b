import CSystemd
import LumenProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// How important a log message is, with syslog's numbers (which journald's `PRIORITY=` uses).
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case critical = 2
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
    case debug = 7

    /// The name used by `--log-level`.
    public var name: String {
        switch self {
        case .critical: "critical"
        case .error: "error"
        case .warning: "warning"
        case .notice: "notice"
        case .info: "info"
        case .debug: "debug"
        }
    }

    /// The level called `name`.
    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = level
    }

    // A lower syslog number is more severe, so "less than" means "less important".
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue > rhs.rawValue }
}

/// Where log messages go.
public protocol LogHandler: Sendable {
    /// Writes one message. Must not block for long.
    func log(level: LogLevel, message: String, metadata: [(String, String)])
}

/// Lumen's logger: a small value with a level and a handler, in the spirit of swift-log.
///
/// ```swift
/// let logger = Logger(level: .info, handler: Logger.defaultHandler(environment: env))
/// logger.info("listening", ["socket": path])
/// ```
public struct Logger: Sendable {
    /// Messages below this level are dropped.
    public var level: LogLevel
    /// Where messages go.
    public var handler: any LogHandler

    /// A logger.
    public init(level: LogLevel = .info, handler: any LogHandler) {
        self.level = level
        self.handler = handler
    }

    /// Logs a message at `level` with structured fields.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, _ metadata: [(String, String)] = []) {
        guard level >= self.level else { return }
        handler.log(level: level, message: message(), metadata: metadata)
    }

    public func debug(_ message: @autoclosure () -> String, _ metadata: [(String, String)] = []) {
        log(.debug, message(), metadata)
    }
    public func info(_ message: @autoclosure () -> String, _ metadata: [(String, String)] = []) {
        log(.info, message(), metadata)
    }
    public func notice(_ message: @autoclosure () -> String, _ metadata: [(String, String)] = []) {
        log(.notice, message(), metadata)
    }
    public func warning(_ message: @autoclosure () -> String, _ metadata: [(String, String)] = []) {
        log(.warning, message(), metadata)
    }
    public func error(_ message: @autoclosure () -> String, _ metadata: [(String, String)] = []) {
        log(.error, message(), metadata)
    }

    /// journald when systemd connected stderr to it, else stderr.
    public static func defaultHandler(environment: [String: String]) -> any LogHandler {
        var info = stat()
        let stderrIdentity = fstat(2, &info) == 0 ? (device: UInt64(info.st_dev), inode: UInt64(info.st_ino)) : nil
        return stderrIsJournal(environment["JOURNAL_STREAM"], stderr: stderrIdentity)
            ? JournalLogHandler() : StderrLogHandler()
    }

    /// Whether stderr is the journal stream systemd set up: `JOURNAL_STREAM` (`device:inode`, in decimal)
    /// names stderr's own device and inode. A variable inherited by a process whose stderr is elsewhere (started
    /// from a shell in a systemd session) names another stream, and the log stays on stderr.
    static func stderrIsJournal(_ journalStream: String?, stderr: (device: UInt64, inode: UInt64)?) -> Bool {
        guard let journalStream, let stderr else { return false }
        let parts = journalStream.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        return device == stderr.device && inode == stderr.inode
    }
}

/// Writes `lumend: level: message key=value …` lines to stderr.
public struct StderrLogHandler: LogHandler {
    /// A handler.
    public init() {}

    public func log(level: LogLevel, message: String, metadata: [(String, String)]) {
        var line = "lumend: \(level.name): \(message)"
        for (key, value) in metadata { line += " \(key)=\(value.contains(" ") ? "\"\(value)\"" : value)" }
        line += "\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }
}

/// Sends structured entries to journald with `sd_journal_sendv`: `MESSAGE=`, `PRIORITY=`,
/// `SYSLOG_IDENTIFIER=lumend`, and each metadata key as an upper-case `LUMEN_…` field.
public struct JournalLogHandler: LogHandler {
    /// A handler.
    public init() {}

    public func log(level: LogLevel, message: String, metadata: [(String, String)]) {
        var fields = ["MESSAGE=\(message)", "PRIORITY=\(level.rawValue)", "SYSLOG_IDENTIFIER=lumend"]
        for (key, value) in metadata {
            let name = key.uppercased().map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
            fields.append("LUMEN_\(name)=\(value)")
        }
        let buffers = fields.map { Array($0.utf8) }
        var iovecs: [iovec] = []
        iovecs.reserveCapacity(buffers.count)
        let result = withPointers(buffers, &iovecs) { sd_journal_sendv($0, Int32(buffers.count)) }
        if result < 0 { StderrLogHandler().log(level: level, message: message, metadata: metadata) }
    }

    private func withPointers(_ buffers: [[UInt8]], _ iovecs: inout [iovec], _ body: (UnsafePointer<iovec>) -> Int32)
        -> Int32
    {
        // Each field's bytes must stay alive while journald reads them, so build the vector inside nested
        // buffer scopes.
        func nest(_ index: Int, _ iovecs: inout [iovec]) -> Int32 {
            guard index < buffers.count else { return iovecs.withUnsafeBufferPointer { body($0.baseAddress!) } }
            return buffers[index].withUnsafeBytes { raw in
                iovecs.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress), iov_len: raw.count))
                return nest(index + 1, &iovecs)
            }
        }
        return nest(0, &iovecs)
    }
}

/// Keeps messages in memory, for tests that assert on logs.
public final class MemoryLogHandler: LogHandler {
    /// One logged message.
    public struct Entry: Sendable {
        public var level: LogLevel
        public var message: String
        public var metadata: [(String, String)]
    }

    private let entries = Locked<[Entry]>([])
    private let waiters = Locked<[(count: Int, matching: @Sendable (Entry) -> Bool, CheckedContinuation<Void, Never>)]>(
        [])

    /// An empty log.
    public init() {}

    public func log(level: LogLevel, message: String, metadata: [(String, String)]) {
        let logged = entries.withLock { entries in
            entries.append(Entry(level: level, message: message, metadata: metadata))
            return entries
        }
        let ready = waiters.withLock { waiters in
            let ready = waiters.filter { waiter in logged.count(where: waiter.matching) >= waiter.count }
            waiters.removeAll { waiter in logged.count(where: waiter.matching) >= waiter.count }
            return ready
        }
        for waiter in ready { waiter.2.resume() }
    }

    /// Returns once `count` messages matching `matching` have been logged.
    public func wait(for count: Int, matching: @escaping @Sendable (Entry) -> Bool) async {
        await withCheckedContinuation { continuation in
            // Checked under the waiters' lock that `log` takes after appending, so no message is missed.
            let done = waiters.withLock { waiters -> Bool in
                if logged.count(where: matching) >= count { return true }
                waiters.append((count, matching, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Everything logged so far.
    public var logged: [Entry] { entries.withLock { $0 } }
}
