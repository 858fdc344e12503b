#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A socket call that failed.
package struct SocketError: Error, Sendable, CustomStringConvertible {
    /// What was being done.
    package var operation: String
    /// The `errno`.
    package var errno: Int32
    /// Extra words for people.
    package var detail: String

    /// A failure of `operation` with `errno`.
    package init(_ operation: String, errno: Int32, detail: String = "") {
        self.operation = operation
        self.errno = errno
        self.detail = detail
    }

    package var description: String {
        "\(operation): \(String(cString: strerror(errno)))" + (detail.isEmpty ? "" : " (\(detail))")
    }
}

/// Small, careful wrappers over the Unix-domain stream socket calls every side of Lumen makes: the
/// daemon, the client library, the tools, the tests and the benchmarks.
///
/// Each call retries on `EINTR`, never raises `SIGPIPE` (a peer that hung up is an error to handle, not a
/// signal that ends the process) and makes descriptors close-on-exec. On Linux that is `SOCK_CLOEXEC` and
/// `MSG_NOSIGNAL`; Darwin lacks both, so there it is `fcntl(FD_CLOEXEC)` and `SO_NOSIGPIPE`.
package enum UnixSocket {
    /// The longest path a `sockaddr_un` holds.
    package static var maxPathLength: Int { UnixSocketAddress.maxPathLength }

    /// Calls `body` with the address of `path`, or throws when the path is too long for a Unix socket.
    package static func withAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T)
        throws(SocketError) -> T
    {
        guard let result = UnixSocketAddress.with(path, body) else {
            throw SocketError(
                "socket path", errno: ENAMETOOLONG,
                detail: "\(path) is longer than \(maxPathLength) bytes; choose a shorter path")
        }
        return result
    }

    /// Creates a stream socket that is closed on `exec` and never raises `SIGPIPE`.
    package static func makeSocket() throws(SocketError) -> Int32 {
        #if os(Linux)
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            if fd < 0 { throw SocketError("socket", errno: errno) }
        #else
            let fd = socket(AF_UNIX, SOCK_STREAM, 0)
            if fd < 0 { throw SocketError("socket", errno: errno) }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            var on: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        return fd
    }

    /// Connects to a listening socket. Returns the connected descriptor (blocking).
    package static func connect(to path: String) throws(SocketError) -> Int32 {
        let fd = try makeSocket()
        let result: Int32
        do {
            #if canImport(Glibc)
                result = try withAddress(path) { Glibc.connect(fd, $0, $1) }
            #else
                result = try withAddress(path) { Darwin.connect(fd, $0, $1) }
            #endif
        } catch {
            close(fd)
            throw error
        }
        if result != 0 {
            let error = errno
            close(fd)
            throw SocketError("connect \(path)", errno: error)
        }
        return fd
    }

    /// Shuts down both directions: a reader blocked on the socket sees the end of the stream.
    package static func shutdownBoth(_ fd: Int32) {
        #if canImport(Glibc)
            _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
        #else
            _ = Darwin.shutdown(fd, SHUT_RDWR)
        #endif
    }

    /// Closes a descriptor.
    package static func close(_ fd: Int32) {
        #if canImport(Glibc)
            _ = Glibc.close(fd)
        #else
            _ = Darwin.close(fd)
        #endif
    }

    /// Makes a descriptor non-blocking.
    package static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    /// What one `send` or `receive` did.
    package enum Transfer: Sendable, Equatable {
        /// This many bytes moved (more than zero).
        case moved(Int)
        /// A receive found the end of the stream: the peer shut down its side.
        case end
        /// A non-blocking socket had no room (send) or nothing to read (receive).
        case wouldBlock
        /// The call failed with this `errno`.
        case failed(Int32)
    }

    /// Sends what it can of `bytes` in one call.
    package static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Transfer {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return .moved(0) }
        while true {
            #if os(Linux)
                let written = sendOne(fd, base, bytes.count, Int32(MSG_NOSIGNAL))
            #else
                let written = sendOne(fd, base, bytes.count, 0)
            #endif
            if written > 0 { return .moved(written) }
            let code = errno
            if written < 0 && code == EINTR { continue }
            if written < 0 && (code == EAGAIN || code == EWOULDBLOCK) { return .wouldBlock }
            return .failed(written < 0 ? code : EPIPE)
        }
    }

    /// Sends all of `bytes`, blocking until the socket took them; `false` when the peer is gone.
    @discardableResult
    package static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let step = bytes.withUnsafeBytes { raw in send(fd, UnsafeRawBufferPointer(rebasing: raw[offset...])) }
            guard case .moved(let count) = step else { return false }
            offset += count
        }
        return true
    }

    /// Reads what is there, up to `buffer`'s size, in one call.
    package static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Transfer {
        while true {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count > 0 { return .moved(count) }
            if count == 0 { return .end }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return .wouldBlock }
            return .failed(code)
        }
    }

    /// Waits until `fd` is readable or `timeout` passes; `false` on timeout. `nil` waits for ever.
    package static func waitReadable(_ fd: Int32, timeout: Duration?) -> Bool {
        let clock = ContinuousClock()
        let deadline = timeout.map { clock.now + $0 }
        while true {
            var millis: Int32 = -1
            if let deadline {
                let left = clock.now.duration(to: deadline)
                if left <= .zero { return false }
                let (seconds, attoseconds) = left.components
                millis = Int32(clamping: seconds * 1_000 + attoseconds / 1_000_000_000_000_000 + 1)
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, millis)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return true }  // Let the read that follows report it.
        }
    }
}

#if canImport(Glibc)
    private let sendOne = Glibc.send
#else
    private let sendOne = Darwin.send
#endif
