import LumenLoop

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A connection's place on an ``EventLoop``: its socket's registration there.
///
/// Everything it does to the socket happens on the loop's thread, in the order asked: what is asked from
/// another thread is handed to the loop first. So a request that arrives is read, handled and answered on one
/// thread, among the other connections that loop serves.
final class ConnectionLoop: Sendable {
    let fd: Int32
    let eventLoop: EventLoop
    /// The socket's registration on the loop: unique for the process's life, so a descriptor number reused
    /// after a close can never reach this connection's handlers.
    private let key = EventLoop.nextKey.add(1, ordering: .relaxed).newValue

    /// A connection for `fd` on `eventLoop`; it owns the descriptor and closes it when it stops.
    init(fd: Int32, on eventLoop: EventLoop) {
        self.fd = fd
        self.eventLoop = eventLoop
    }

    /// Registers the socket, watched for reading. The handlers run on the loop's thread when the socket is
    /// readable (given the loop's state, to read with) or writable, and that is wanted.
    /// `outputWaiting` runs when ``requestWrite()`` asked.
    func start(
        readable: @escaping @Sendable (LoopContext) -> Void, writable: @escaping @Sendable () -> Void,
        outputWaiting: @escaping @Sendable () -> Void = {}
    ) {
        eventLoop.execute { [fd, key] context in
            context?.register(key, fd: fd) { readiness, context in
                if readiness.readable { readable(context) }
                if readiness.writable { writable() }
                if readiness.outputWaiting { outputWaiting() }
            }
            context?.watch(key, readable: true, writable: nil)
        }
    }

    /// Calls the socket's `outputWaiting` handler on the loop's thread, after the work already asked of it;
    /// `false` once the loop has stopped.
    func requestWrite() -> Bool { eventLoop.requestWrite(key) }

    /// Runs `block` on the loop's thread, after the work already asked of it.
    func submit(_ block: @escaping @Sendable () -> Void) { eventLoop.execute { _ in block() } }

    /// Whether to watch the socket for reading and writing; `nil` leaves a setting as it is.
    /// Applied in its turn on the loop's thread (before the loop next waits), so changes asked from
    /// several threads take effect in the order asked.
    func watch(read: Bool? = nil, write: Bool? = nil) {
        eventLoop.execute { [key] context in context?.watch(key, readable: read, writable: write) }
    }

    /// Stops watching the socket and closes it, after the work already asked of the loop: runs `closing`
    /// just before the socket is closed and `closed` just after. A connection is forgotten in `closing`, so
    /// that a client that sees the hang-up and connects again finds its place free; whoever waits for a
    /// listener to be closed waits for `closed`.
    func stop(
        closing: @escaping @Sendable () -> Void = {}, then closed: @escaping @Sendable () -> Void = {}
    ) {
        eventLoop.execute { [fd, key] context in
            context?.remove(key)
            closing()
            Glibc.close(fd)
            closed()
        }
    }
}
