import Foundation
import LumenProtocol
import Synchronization

/// A plain JSON-lines client over a Unix socket for tests: sends raw lines, reads lines with a timeout, and
/// matches responses to requests while keeping the notifications that arrive in between.
public final class LineClient: Sendable {
    /// Why a read gave up.
    public enum Failure: Error, CustomStringConvertible {
        case timedOut
        case closed
        case connect(Int32)
        public var description: String {
            switch self {
            case .timedOut: "timed out"
            case .closed: "the server closed the connection"
            case .connect(let code): "connect failed: \(String(cString: strerror(code)))"
            }
        }
    }

    /// The socket.
    public let fd: Int32
    /// Only one read runs at a time (a test reads from one task); the lock makes the reader shareable.
    private let reader: Locked<LineReader>
    private let nextID = Atomic<Int>(1)
    /// Notifications read while waiting for responses.
    package let notifications = Locked<[JSONValue]>([])
    /// Responses read while waiting for another one, kept for when they are asked for.
    private let stash = Locked<[JSONValue]>([])

    /// Connects to `path`.
    public init(path: String) throws {
        do {
            fd = try UnixSocket.connect(to: path)
        } catch {
            throw Failure.connect(error.errno)
        }
        reader = Locked(LineReader(fd: fd))
    }

    /// A client on a socket already connected (one end of a socket pair), which it then owns.
    public init(connected fd: Int32) {
        self.fd = fd
        reader = Locked(LineReader(fd: fd))
    }

    deinit { UnixSocket.close(fd) }

    /// Hangs up both ways, as a client that goes does; the descriptor itself is closed when this is released.
    public func hangUp() { shutdown(fd, Int32(SHUT_RDWR)) }

    /// Sends bytes as they are.
    public func sendRaw(_ bytes: [UInt8]) { UnixSocket.sendAll(fd, bytes) }

    /// Sends one line (a newline is added).
    public func send(_ line: String) { sendRaw(Array((line + "\n").utf8)) }

    /// Reads one line, or throws ``Failure/closed`` at end of stream.
    public func readLine(timeout: Duration = .seconds(15)) async throws -> String {
        let result: Result<String, Failure> = await offload { [self] in self.blockingReadLine(timeout: timeout) }
        return try result.get()
    }

    /// Reads a line and parses it.
    public func readJSON(timeout: Duration = .seconds(15)) async throws -> JSONValue {
        try JSONParser.parse(try await readLine(timeout: timeout))
    }

    /// Whether the server hung up within `timeout`, found without reading anything (`POLLRDHUP`), so a test
    /// can play a client that never reads.
    public func waitForHangUp(timeout: Duration = .seconds(20)) async -> Bool {
        await offload { [self] in hungUp(within: timeout) }
    }

    /// ``waitForHangUp(timeout:)`` for a test's own thread: blocks it until the server hangs up or `timeout`.
    public func hungUp(within timeout: Duration) -> Bool {
        let pollReadHangUp: Int16 = 0x2000
        var poller = pollfd(fd: fd, events: pollReadHangUp, revents: 0)
        let millis = Int32(timeout.components.seconds * 1_000)
        return poll(&poller, 1, millis) > 0 && poller.revents & (pollReadHangUp | Int16(POLLHUP)) != 0
    }

    /// ``readLine(timeout:)`` for a test's own thread: blocks it until a line comes. A client that measures
    /// latency reads this way, so that what it measures is the server, not a thread started per read.
    public func readLineBlocking(timeout: Duration = .seconds(15)) throws(Failure) -> String {
        try blockingReadLine(timeout: timeout).get()
    }

    private func blockingReadLine(timeout: Duration) -> Result<String, Failure> {
        reader.withLock { reader in
            while true {
                do throws(LineReader.Failure) {
                    return .success(String(decoding: try reader.next(timeout: timeout), as: UTF8.self))
                } catch .timedOut {
                    return .failure(.timedOut)
                } catch .overlong {
                    continue
                } catch {
                    return .failure(.closed)
                }
            }
        }
    }

    /// Sends a request and returns its response object, keeping notifications that arrive first.
    @discardableResult
    public func request(_ method: String, _ params: JSONValue? = nil, timeout: Duration = .seconds(15)) async throws
        -> JSONValue
    {
        let id = nextID.add(1, ordering: .relaxed).oldValue
        var request: JSONObject = ["jsonrpc": "2.0", "id": .int(id), "method": .string(method)]
        if let params { request["params"] = params }
        send(JSONValue.object(request).serialized())
        return try await response(to: .int(id), timeout: timeout)
    }

    /// Reads until the response with `id`, keeping notifications and other responses for later.
    public func response(to id: JSONValue, timeout: Duration = .seconds(15)) async throws -> JSONValue {
        let kept = stash.withLock { stash -> JSONValue? in
            guard let index = stash.firstIndex(where: { $0["id"] == id }) else { return nil }
            return stash.remove(at: index)
        }
        if let kept { return kept }
        while true {
            let message = try await readJSON(timeout: timeout)
            if message["id"] == id { return message }
            if message["method"] != nil {
                notifications.withLock { $0.append(message) }
            } else {
                stash.withLock { $0.append(message) }
            }
        }
    }

    /// The `result` of a request, failing the test's expectations with the error when there is one.
    public func result(_ method: String, _ params: JSONValue? = nil) async throws -> JSONValue {
        let response = try await request(method, params)
        guard let result = response["result"] else { throw UnexpectedResponse(response: response) }
        return result
    }

    /// Takes and clears the notifications kept so far.
    public func takeNotifications() -> [JSONValue] {
        notifications.withLock { kept in
            let taken = kept
            kept = []
            return taken
        }
    }

    /// Reads notifications until `count` are kept.
    public func waitForNotifications(_ count: Int, timeout: Duration = .seconds(15)) async throws -> [JSONValue] {
        while notifications.withLock({ $0.count }) < count {
            let message = try await readJSON(timeout: timeout)
            if message["method"] != nil { notifications.withLock { $0.append(message) } }
        }
        return takeNotifications()
    }
}

/// A response that was an error where a result was expected.
public struct UnexpectedResponse: Error, CustomStringConvertible {
    public let response: JSONValue
    public var description: String { "unexpected response: \(response.serialized())" }
}
