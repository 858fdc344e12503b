import CMicroHTTPD
import LumenProtocol
import LumenService

#if canImport(Glibc)
    import Glibc
#endif

/// Limits on HTTP clients, so that a slow or hostile one costs what a socket client costs.
public struct HTTPLimits: Sendable, Hashable {
    /// Connections open at once; more wait in the listen queue.
    public var connections = 256
    /// Connections open at once from one address.
    public var connectionsPerAddress = 64
    /// Seconds a connection may stay idle before it is closed.
    public var idleSeconds = 30
    /// Seconds a request may wait for its answer (a write for its device, which on a virtual clock waits for
    /// the clock to be advanced) before it is answered 503.
    public var answerSeconds = 300
    /// The largest request body taken, unless the server is told otherwise for a path; a larger one is
    /// answered 413.
    public var bodyBytes = 16_384
    /// Bytes of headers and buffers a connection may hold (libmicrohttpd's memory pool).
    public var connectionMemory = 32_768

    /// The defaults.
    public init() {}
}

/// An HTTP listener served by libmicrohttpd on an event loop of its own: the library's `epoll` descriptor is
/// one more socket that loop watches, `MHD_run` is called when it is ready or a timeout falls due, and a
/// request whose answer waits on a device suspends its connection until the answer is ready, so no thread
/// ever waits on a light.
///
/// A front (the Hue API, for one) answers each request through `respond`, at once or later.
public final class HTTPServer: Service, Sendable {
    public var name: String { "HTTP server" }

    /// The listening socket (bound by lumend, or inherited through socket activation).
    public let listenFD: Int32
    let loop: EventLoop
    let driver: LoopBound<MHDDriver>

    /// A server on `listenFD` whose requests `respond` answers, on `loop` (a new one when not given: a front
    /// that keeps state of its own, such as sessions, is given the loop it keeps it on).
    /// - Parameters:
    ///   - bodyLimit: the largest body taken for a path, when not `limits.bodyBytes`.
    ///   - whenStopping: called on the loop once the server stops taking requests, once every waiting request
    ///     has been given its 503 and every stream told to end (before they are sent): a front ends what it
    ///     keeps there.
    public init(
        listenFD: Int32, loop: EventLoop? = nil, limits: HTTPLimits = HTTPLimits(), logger: Logger,
        bodyLimit: (@Sendable (_ path: String) -> Int)? = nil, whenStopping: (@Sendable () -> Void)? = nil,
        respond: @escaping @Sendable (HTTPRequest) -> HTTPReply
    ) {
        self.listenFD = listenFD
        let loop = loop ?? EventLoop(name: "lumend.http")
        self.loop = loop
        let driver = MHDDriver(
            limits: limits, logger: logger, bodyLimit: bodyLimit ?? { [limits] _ in limits.bodyBytes },
            whenStopping: whenStopping, respond: respond)
        self.driver = LoopBound(driver, on: loop)
    }

    /// Serves until graceful shutdown is requested; then answers what waits, and closes.
    public func run() async throws {
        let started = await onLoop { [driver, listenFD] in driver.object.start(listenFD: listenFD, driver: driver) }
        if let problem = started {
            await onLoop { [driver] in driver.object.stop() }
            await loop.shutDown()
            throw SocketError("HTTP listener", errno: 0, detail: problem)
        }
        await gracefulShutdown()
        // Stop accepting, answer what waits, and give the answers half a second to go out before closing.
        await onLoop { [driver] in driver.object.beginStop() }
        for _ in 0..<50 {
            let open = await onLoop { [driver] in driver.object.connectionCount() }
            if open == 0 { break }
            try? await Task.sleep(for: .milliseconds(10))
        }
        await onLoop { [driver] in driver.object.stop() }
        await loop.shutDown()
    }

    /// Runs `body` on the server's loop and returns what it gives.
    private func onLoop<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            loop.execute { _ in continuation.resume(returning: body()) }
        }
    }
}

/// What only the HTTP loop's thread touches: the libmicrohttpd daemon, its timer, and the requests waiting
/// for their answers.
final class MHDDriver {
    let limits: HTTPLimits
    let logger: Logger
    let bodyLimit: @Sendable (String) -> Int
    let whenStopping: (@Sendable () -> Void)?
    let respond: @Sendable (HTTPRequest) -> HTTPReply
    var daemon: OpaquePointer?
    var stopWatching: (@Sendable () -> Void)?
    var timer: UInt64?
    /// Itself, as the loop-bound box the C callbacks and the tasks reach it through.
    weak var bound: LoopBound<MHDDriver>?
    /// Requests whose connection is suspended until their answer is ready.
    var waiting: [ObjectIdentifier: Exchange] = [:]
    /// Responses whose body is sent as it comes, while their connection is open, by number: a wake-up that
    /// comes after its stream closed finds nothing, even if another stream took its memory.
    var streams: [UInt64: Stream] = [:]
    var nextStream: UInt64 = 1
    /// Set once stopping has begun: a request that comes now is answered 503 at once.
    var isStopping = false

    init(
        limits: HTTPLimits, logger: Logger, bodyLimit: @escaping @Sendable (String) -> Int,
        whenStopping: (@Sendable () -> Void)?, respond: @escaping @Sendable (HTTPRequest) -> HTTPReply
    ) {
        self.limits = limits
        self.logger = logger
        self.bodyLimit = bodyLimit
        self.whenStopping = whenStopping
        self.respond = respond
    }

    /// One request: its body as it arrives, and its answer once ready.
    final class Exchange {
        let connection: OpaquePointer
        var body: [UInt8] = []
        /// The largest body taken for the request's path.
        let bodyLimit: Int
        var isAnswering = false
        var response: HTTPResponse?
        /// The timer that gives up on the answer, while it is awaited.
        var deadline: UInt64?

        init(connection: OpaquePointer, bodyLimit: Int) {
            self.connection = connection
            self.bodyLimit = bodyLimit
        }
    }

    /// A response whose body is sent as it comes. Its connection is suspended while the body has nothing to
    /// send, and resumed when it wakes the driver.
    final class Stream {
        let number: UInt64
        let connection: OpaquePointer
        let body: any HTTPStreamBody
        /// The driver, for the C callbacks that reach the stream.
        weak var driver: MHDDriver?
        var isSuspended = false
        /// Set when the server stops: the body ends at its next read.
        var isEnding = false

        init(number: UInt64, connection: OpaquePointer, body: any HTTPStreamBody, driver: MHDDriver) {
            self.number = number
            self.connection = connection
            self.body = body
            self.driver = driver
        }

        /// Up to `max` bytes of the body into `buffer`; 0 with the connection suspended when there is nothing
        /// yet, -1 at the end (libmicrohttpd's `MHD_CONTENT_READER_END_OF_STREAM`).
        func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
            guard !isEnding, let bytes = body.next(maxBytes: max) else { return -1 }
            guard !bytes.isEmpty else {
                // libmicrohttpd asks again at once after a 0: it must not, until the body has more.
                MHD_suspend_connection(connection)
                isSuspended = true
                return 0
            }
            bytes.withUnsafeBytes {
                UnsafeMutableRawPointer(buffer).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
            }
            return bytes.count
        }
    }

    /// Starts libmicrohttpd on `listenFD`; returns what went wrong, if anything did.
    func start(listenFD: Int32, driver: LoopBound<MHDDriver>) -> String? {
        bound = driver
        let context = Unmanaged.passUnretained(driver).toOpaque()
        var options = [
            lumen_mhd_option(MHD_OPTION.LISTEN_SOCKET, Int(listenFD)),
            lumen_mhd_option(MHD_OPTION.CONNECTION_LIMIT, limits.connections),
            lumen_mhd_option(MHD_OPTION.PER_IP_CONNECTION_LIMIT, limits.connectionsPerAddress),
            lumen_mhd_option(MHD_OPTION.CONNECTION_TIMEOUT, limits.idleSeconds),
            lumen_mhd_option(MHD_OPTION.CONNECTION_MEMORY_LIMIT, limits.connectionMemory),
            lumen_mhd_completed_option(completedCallback, context),
            lumen_mhd_option(MHD_OPTION.END, 0),
        ]
        let flags = MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        daemon = lumen_mhd_start(UInt32(flags), accessCallback, context, &options)
        guard let daemon else { return "libmicrohttpd could not start on the listening socket" }
        let epfd = lumen_mhd_epoll_fd(daemon)
        guard epfd >= 0 else { return "libmicrohttpd gave no epoll descriptor" }
        stopWatching = driver.loop.watchReadable(epfd) { driver.object.run() }
        run()
        return nil
    }

    /// Lets libmicrohttpd do what is ready, then wakes it again when its next timeout falls due.
    func run() {
        guard let daemon, let bound else { return }
        _ = MHD_run(daemon)
        if let timer { _ = bound.loop.cancelTimer(timer) }
        timer = nil
        var milliseconds: UInt64 = 0
        if MHD_get_timeout(daemon, &milliseconds) == MHD_Result.YES {
            let due = ContinuousClock.now + .milliseconds(Int64(min(milliseconds, 60_000)))
            timer = bound.loop.schedule(at: due) { bound.object.run() }
        }
    }

    /// Stops accepting, and answers what still waits with 503; what comes meanwhile is answered so at once.
    func beginStop() {
        guard let daemon else { return }
        isStopping = true
        let listener = MHD_quiesce_daemon(daemon)
        if listener >= 0 { close(listener) }
        answerEveryWaiting(Self.stopping)
        endEveryStream()
        whenStopping?()
        run()
    }

    static let stopping = HTTPResponse(
        status: 503, headers: [("Content-Type", "text/plain; charset=utf-8"), ("Connection", "close")],
        body: Array("lumend is shutting down; retry once it is back\n".utf8))

    /// Resumes every suspended connection with `response`: libmicrohttpd must not be stopped with one
    /// suspended.
    private func answerEveryWaiting(_ response: HTTPResponse) {
        for exchange in waiting.values {
            exchange.response = response
            MHD_resume_connection(exchange.connection)
        }
        waiting.removeAll()
    }

    /// Ends every stream at its next read, waking those that wait: libmicrohttpd must not be stopped with a
    /// connection suspended.
    private func endEveryStream() {
        for stream in streams.values {
            stream.isEnding = true
            resume(stream)
        }
    }

    private func resume(_ stream: Stream) {
        guard stream.isSuspended else { return }
        stream.isSuspended = false
        MHD_resume_connection(stream.connection)
    }

    /// A stream's body has more to send.
    func wake(_ key: UInt64) {
        guard daemon != nil, let stream = streams[key], stream.isSuspended else { return }
        resume(stream)
        run()
    }

    /// The connections still open, after letting libmicrohttpd send what it can.
    func connectionCount() -> Int {
        guard let daemon else { return 0 }
        run()
        return Int(lumen_mhd_connection_count(daemon))
    }

    /// Stops the daemon, closing what is still open.
    func stop() {
        answerEveryWaiting(Self.stopping)
        endEveryStream()
        if let daemon { _ = MHD_run(daemon) }
        stopWatching?()
        stopWatching = nil
        if let timer, let bound { _ = bound.loop.cancelTimer(timer) }
        if let daemon { MHD_stop_daemon(daemon) }
        daemon = nil
    }

    /// One call of libmicrohttpd's access handler: the headers (first call), a piece of the body, or the end of
    /// the request.
    func handle(
        _ connection: OpaquePointer, url: String, method: String, upload: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>, exchangeSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let slot = exchangeSlot.pointee else {
            // The headers: a body that says it is too big is refused before it is read.
            let limit = bodyLimit(url)
            if let length = header(connection, "content-length").flatMap(Int.init), length > limit {
                return queue(.text("request body over \(limit) bytes\n", status: 413), on: connection)
            }
            exchangeSlot.pointee = Unmanaged.passRetained(Exchange(connection: connection, bodyLimit: limit)).toOpaque()
            return MHD_Result.YES
        }
        let exchange = Unmanaged<Exchange>.fromOpaque(slot).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            guard exchange.body.count + uploadSize.pointee <= exchange.bodyLimit, let upload else {
                return MHD_Result.NO
            }
            upload.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
                exchange.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: uploadSize.pointee))
            }
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        if let response = exchange.response { return queue(response, on: connection) }
        guard !exchange.isAnswering else { return MHD_Result.YES }
        exchange.isAnswering = true
        guard !isStopping else { return queue(Self.stopping, on: connection) }
        var headers: [String: String] = [:]
        for name in Self.headersRead { if let value = header(connection, name) { headers[name] = value } }
        var query: [String: String] = [:]
        for name in Self.queryRead {
            let value = MHD_lookup_connection_value(connection, MHD_ValueKind.GET_ARGUMENT_KIND, name)
            if let value { query[name] = String(cString: value) }
        }
        let request = HTTPRequest(method: method, path: url, headers: headers, query: query, body: exchange.body)
        switch respond(request) {
        case .now(let response):
            return queue(response, on: connection)
        case .stream(let head, let body):
            return queue(head, streaming: body, on: connection)
        case .later(let work):
            guard let bound else { return MHD_Result.NO }
            MHD_suspend_connection(connection)
            let key = ObjectIdentifier(exchange)
            waiting[key] = exchange
            // libmicrohttpd does not time out a suspended connection, nor see its client go: an answer that does
            // not come in time is given up, so clients that give up and retry cannot fill the listener.
            let seconds = limits.answerSeconds
            exchange.deadline = bound.loop.schedule(at: .now + .seconds(seconds)) {
                bound.object.finish(key, with: .text("no answer within \(seconds) s; retry\n", status: 503))
            }
            Task(executorPreference: bound.loop) {
                let response = await work()
                bound.loop.execute { context in
                    // After the loop stopped, the connection was answered and closed already.
                    guard context != nil else { return }
                    bound.object.finish(key, with: response)
                }
            }
            return MHD_Result.YES
        }
    }

    /// Hands a waiting request its answer and wakes its connection.
    private func finish(_ key: ObjectIdentifier, with response: HTTPResponse) {
        guard daemon != nil, let exchange = waiting.removeValue(forKey: key) else { return }
        if let deadline = exchange.deadline, let bound { _ = bound.loop.cancelTimer(deadline) }
        exchange.response = response
        MHD_resume_connection(exchange.connection)
        run()
    }

    /// The headers a front may read.
    static let headersRead = [
        "origin", "host", "content-type", "lumen-session", "last-event-id", "authorization", "accept",
    ]
    /// The query arguments a front may read.
    static let queryRead = ["session"]

    private func header(_ connection: OpaquePointer, _ name: String) -> String? {
        MHD_lookup_connection_value(connection, MHD_ValueKind.HEADER_KIND, name).map { String(cString: $0) }
    }

    private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let made = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
        }
        guard let made else { return MHD_Result.NO }
        for (name, value) in response.headers { _ = MHD_add_response_header(made, name, value) }
        let result = MHD_queue_response(connection, UInt32(response.status), made)
        MHD_destroy_response(made)
        return result
    }

    /// Queues `head` with a body read from `body` as it comes.
    private func queue(_ head: HTTPResponse, streaming body: any HTTPStreamBody, on connection: OpaquePointer)
        -> MHD_Result
    {
        guard let bound else {
            body.finish()
            return MHD_Result.NO
        }
        let key = nextStream
        nextStream += 1
        let stream = Stream(number: key, connection: connection, body: body, driver: self)
        let context = Unmanaged.passRetained(stream).toOpaque()
        guard let made = MHD_create_response_from_callback(UInt64.max, 16_384, streamReader, context, streamFreed)
        else {
            Unmanaged<Stream>.fromOpaque(context).release()
            body.finish()
            return MHD_Result.NO
        }
        for (name, value) in head.headers { _ = MHD_add_response_header(made, name, value) }
        streams[key] = stream
        body.start { bound.loop.execute { _ in bound.object.wake(key) } }
        let result = MHD_queue_response(connection, UInt32(head.status), made)
        MHD_destroy_response(made)
        return result
    }

    /// A stream's connection is gone.
    func streamFinished(_ stream: Stream) {
        streams[stream.number] = nil
        stream.body.finish()
    }

    /// Forgets a request libmicrohttpd is done with.
    func complete(_ exchangeSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        guard let slot = exchangeSlot?.pointee else { return }
        let exchange = Unmanaged<Exchange>.fromOpaque(slot).takeRetainedValue()
        waiting[ObjectIdentifier(exchange)] = nil
        exchangeSlot?.pointee = nil
    }
}

/// libmicrohttpd's access handler: hands each call to the driver its context names.
private let accessCallback: MHD_AccessHandlerCallback = {
    context, connection, url, method, _, upload, uploadSize, exchangeSlot in
    guard let context, let connection, let url, let method, let uploadSize, let exchangeSlot else {
        return MHD_Result.NO
    }
    let driver = Unmanaged<LoopBound<MHDDriver>>.fromOpaque(context).takeUnretainedValue()
    return driver.object.handle(
        connection, url: String(cString: url), method: String(cString: method), upload: upload,
        uploadSize: uploadSize, exchangeSlot: exchangeSlot)
}

/// libmicrohttpd's call for more of a stream's body.
private let streamReader: MHD_ContentReaderCallback = { context, _, buffer, max in
    guard let context, let buffer else { return -1 }
    return Unmanaged<MHDDriver.Stream>.fromOpaque(context).takeUnretainedValue().read(into: buffer, max: max)
}

/// libmicrohttpd's notice that a stream's response is freed: its connection is done.
private let streamFreed: MHD_ContentReaderFreeCallback = { context in
    guard let context else { return }
    let stream = Unmanaged<MHDDriver.Stream>.fromOpaque(context).takeRetainedValue()
    stream.driver?.streamFinished(stream)
}

/// libmicrohttpd's notice that a request is done (answered, or its connection gone).
private let completedCallback: MHD_RequestCompletedCallback = { context, _, exchangeSlot, _ in
    guard let context else { return }
    let driver = Unmanaged<LoopBound<MHDDriver>>.fromOpaque(context).takeUnretainedValue()
    driver.object.complete(exchangeSlot)
}
