import LumenLoop
import LumenProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP connection, owned by its server's loop: its requests read in turn, each answered before the next
/// is read, and every wait bounded by a deadline.
///
/// A connection is in one phase at a time:
/// - `idle`: waiting for a request (new, or after an answer); closed after ``HTTPLimits/idleSeconds``, or at
///   once when the server needs its place for a new connection;
/// - `reading`: a request has begun, and must be whole within ``HTTPLimits/requestSeconds``;
/// - `answering`: the front works on the answer, which must come within ``HTTPLimits/answerSeconds``;
/// - `sending`: an answer is going out;
/// - `streaming`: a body is sent as it comes, until the client goes (noticed at once: the socket is watched
///   for its hang-up) or the server stops; its head goes with its first bytes, so a body that has nothing yet
///   keeps its client waiting for the head too, within ``HTTPLimits/answerSeconds``;
/// - `lingering`: the last answer is out and the sending side shut; what the client still sends is read and
///   dropped for a moment before the close, so that the close does not reset the connection and lose the
///   answer (as nginx's `lingering_close`).
///
/// On an HTTPS listener its bytes pass through a ``TLSSession``: the handshake is read while the connection is
/// idle, within the first request's time, and a client that sends plain HTTP there is answered 400 in plain HTTP.
final class HTTPConnection {
    enum Phase {
        case idle
        case reading
        case answering(UInt64)
        case sending(closeAfter: Bool)
        /// A stream whose head goes out with its first bytes (`head`, until then).
        case streaming(any HTTPStreamBody, chunked: Bool, head: [UInt8]?)
        case lingering
        case closed
    }

    let key: UInt64
    let fd: Int32
    /// The peer's address.
    let host: String
    /// TLS, on an HTTPS listener.
    private let tls: TLSSession?
    unowned let driver: HTTPDriver
    private(set) var phase = Phase.idle
    /// When it entered its phase (idle, reading, lingering): the one in it longest makes room first.
    private var since = ContinuousClock.now
    private var parser: HTTPRequestParser
    /// Bytes to send, from `sent` on.
    private var output: [UInt8] = []
    private var sent = 0
    /// The request being answered: whether the client keeps the connection, and whether it asked with `HEAD`.
    private var current: (keepsAlive: Bool, isHead: Bool) = (true, false)
    /// The client shut its side while its answer was worked on: that answer, and those to the requests it had
    /// sent whole before, are sent, then the connection closed.
    private var peerClosed = false
    /// Whether the socket is watched for reading, and for writing.
    private var watching = (read: false, write: false)
    /// The timer of the phase's deadline, and a count that tells a late one from the current one.
    private var deadline: UInt64?
    private var exchanges: UInt64 = 0
    /// Set when the server stops: a stream ends at its next turn.
    private var streamEnding = false
    /// Requests answered: the first request's time counts from connecting, a later one's from its first byte.
    private var answered = 0
    /// Set while requests are read in turn, so that an answer sent meanwhile does not start another such loop.
    private var isReadingRequests = false
    /// Body bytes of the request being read or answered taken from the server's budget
    /// (``HTTPLimits/bodyBudgetBytes``): given back once it is answered or the connection closes.
    private var bodyBytesTaken = 0
    /// How long a closing connection reads what the client still sends.
    static let lingerSeconds = 2

    init(key: UInt64, fd: Int32, host: String, tls: TLSSession?, driver: HTTPDriver) {
        self.key = key
        self.fd = fd
        self.host = host
        self.tls = tls
        self.driver = driver
        parser = HTTPRequestParser(headBytes: driver.limits.headBytes, bodyBytes: driver.bodyLimit)
    }

    var isOpen: Bool {
        if case .closed = phase { return false }
        return true
    }

    /// Whether it may be closed to make room for a new connection, and in what order: lingering after its
    /// last answer first, then idle between requests, then reading a request (a new connection is one whose
    /// request is on its way: ranked by age with those, not closed first for saying nothing yet), then sending
    /// an answer its client has stopped taking (the socket has no room); each the longest so first. `nil` while
    /// it is answered, sends freely or streams.
    var yield: (rank: Int, since: ContinuousClock.Instant)? {
        switch phase {
        case .lingering: (0, since)
        case .idle where !parser.isInRequest && answered > 0: (1, since)
        case .idle, .reading: (2, since)
        case .sending where watching.write: (3, since)
        default: nil
        }
    }

    /// Starts reading: a new connection has its whole first request's time to send it.
    func begin(_ context: LoopContext) {
        watch(context, read: true, write: false)
        setDeadline(seconds: driver.limits.requestSeconds)
    }

    // MARK: - Reading

    func readable(_ context: LoopContext) {
        guard isOpen else { return }
        if case .lingering = phase {
            // What the client still sends is dropped; its end, or an error, closes.
            switch context.read(fd, { _ in }) {
            case .moved, .wouldBlock: break
            case .end, .failed: close(context)
            }
            return
        }
        switch phase {
        case .answering, .sending:
            // The next request waits its turn within the size of one head, checked before reading: each answer
            // reads on (`sentWhole`), and a read after the limit would let a client that pipelines requests
            // faster than they are answered pile up everything it sends.
            if parser.pendingBytes > driver.limits.headBytes {
                watch(context, read: false, write: nil)
                return
            }
        default: break
        }
        let step: UnixSocket.Transfer
        if let tls {
            step = tls.read(into: &driver.tlsBuffer) { bytes in parser.append(bytes) }
            if !tls.isHandshaken, !tls.sentPlainHTTP, watching.write != tls.handshakeWantsWrite {
                watch(context, read: nil, write: tls.handshakeWantsWrite)
            }
        } else {
            step = context.read(fd) { bytes in parser.append(bytes) }
        }
        switch step {
        case .moved:
            switch phase {
            case .idle, .reading: readRequests(context)
            case .streaming:
                // A client sends nothing on a stream: bytes that pile up are a client to let go.
                if parser.pendingBytes > driver.limits.headBytes { close(context) }
            case .answering, .sending, .lingering, .closed:
                // The next request waits its turn: the check before the next read holds it to one head.
                break
            }
        case .end:
            switch phase {
            case .answering, .sending:
                // It may still want its answers (a client that shut only its sending side, as HTTP/1.0 clients
                // and `nc -N` do): send them, then close.
                peerClosed = true
                watch(context, read: false, write: nil)
            default:
                close(context)
            }
        case .wouldBlock:
            break
        case .failed:
            if let tls, tls.sentPlainHTTP {
                refusePlainHTTP(context)
                return
            }
            if let failure = tls?.failure {
                driver.logger.debug("TLS with \(host) failed: \(failure)", [("peer", host)])
            }
            close(context)
        }
    }

    /// Answers, in plain HTTP, a client that sent plain HTTP to an HTTPS listener, and closes: it learns why,
    /// where a TLS alert would be noise to it.
    private func refusePlainHTTP(_ context: LoopContext) {
        let body = "this port speaks HTTPS (HTTP inside TLS): ask for https://, not http://\n"
        let text =
            "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        // A fresh socket has room for these few bytes; if not, the client is gone and the close says enough.
        _ = Array(text.utf8).withUnsafeBytes { UnixSocket.send(fd, $0) }
        lingerBeforeClosing(context)
    }

    /// Reads and answers the requests that are whole, one at a time.
    private func readRequests(_ context: LoopContext) {
        isReadingRequests = true
        defer { isReadingRequests = false }
        while isOpen {
            switch phase {
            case .idle, .reading: break
            default: return
            }
            if case .idle = phase, parser.isInRequest {
                phase = .reading
                since = .now
                if answered > 0 { setDeadline(seconds: driver.limits.requestSeconds) }
            }
            let step: HTTPRequestParser.Step
            do { step = try parser.next() } catch {
                refuse(error, context)
                return
            }
            var held = parser.bodyBytesHeld
            if case .request(_, let body) = step { held = body.count }
            guard takeBodyBytes(held) else {
                refuseForBodies(context)
                return
            }
            switch step {
            case .needMore:
                return
            case .head:
                // It waits for this before sending its body.
                queue(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
                flush(context)
            case .request(let head, let body):
                answer(head, body, context)
            }
        }
    }

    private func refuse(_ refusal: HTTPRequestParser.Refusal, _ context: LoopContext) {
        current = (false, false)
        send(.text(refusal.reason + "\n", status: refusal.status), context)
    }

    /// Takes from the server's budget what the request's body holds beyond what it took before, once the body is
    /// larger than a small one (``HTTPLimits/smallBodyBytes``); `false` when that does not fit.
    private func takeBodyBytes(_ held: Int) -> Bool {
        guard held > driver.limits.smallBodyBytes, held > bodyBytesTaken else { return true }
        guard driver.takeBodyBytes(held - bodyBytesTaken, from: host) else { return false }
        bodyBytesTaken = held
        return true
    }

    private func giveBackBodyBytes() {
        if bodyBytesTaken > 0 { driver.giveBackBodyBytes(bodyBytesTaken, from: host) }
        bodyBytesTaken = 0
    }

    /// Answers a request whose body would take the server past its budget for bodies: 503, to retry soon.
    private func refuseForBodies(_ context: LoopContext) {
        driver.bodyRefused(from: host)
        current = (false, false)
        var busy = HTTPResponse.text(
            "lumend is taking in \(driver.limits.bodyBudgetBytes) bytes of request bodies over "
                + "\(driver.limits.smallBodyBytes) bytes already, or a quarter of that from your address; retry in a "
                + "moment\n", status: 503)
        busy.headers.append(("Retry-After", "1"))
        send(busy, context)
    }

    // MARK: - Answering

    private func answer(_ head: HTTPRequestParser.Head, _ body: [UInt8], _ context: LoopContext) {
        current = (head.keepsAlive, head.method == "HEAD")
        answered += 1
        guard !driver.isStopping else {
            send(HTTPDriver.stopping, context)
            return
        }
        switch driver.respond(head.request(body: body, isSecure: tls != nil)) {
        case .now(let response):
            send(response, context)
        case .later(let work):
            exchanges += 1
            let exchange = exchanges
            phase = .answering(exchange)
            setDeadline(seconds: driver.limits.answerSeconds)
            let (bound, key) = (driver.bound!, key)
            Task(executorPreference: bound.loop) {
                let response = await work()
                HTTPDriver.later(bound, key) { connection, context in connection.answered(exchange, response, context) }
            }
        case .stream(let head, let body):
            guard driver.openStream(from: host) else {
                body.finish()
                var busy = HTTPResponse.text(
                    "too many event streams are open (\(driver.limits.streams) at most, "
                        + "\(driver.limits.streamsFromOneAddress) from one address); close one and retry\n", status: 503
                )
                busy.headers.append(("Retry-After", "5"))
                current.keepsAlive = false
                send(busy, context)
                return
            }
            let chunked = current.keepsAlive
            giveBackBodyBytes()
            phase = .streaming(
                body, chunked: chunked,
                head: Self.head(of: head, framing: chunked ? .chunked : .untilClose, closing: !chunked))
            setDeadline(seconds: driver.limits.answerSeconds)
            let (bound, key) = (driver.bound!, key)
            body.start { HTTPDriver.later(bound, key) { $0.pump($1) } }
            pump(context)
        }
    }

    /// The front's answer to the request waiting since `exchange`, unless it was given up.
    func answered(_ exchange: UInt64, _ response: HTTPResponse, _ context: LoopContext) {
        guard case .answering(let waiting) = phase, waiting == exchange else { return }
        send(response, context)
    }

    /// Sends `response` to the current request, and goes on to the next once it is out.
    private func send(_ response: HTTPResponse, _ context: LoopContext) {
        let asked = response.headers.contains {
            $0.name.lowercased() == "connection" && $0.value.lowercased() == "close"
        }
        // A client that shut its side is closed on after its last request: what it sent before the shut is answered.
        let closeAfter = !current.keepsAlive || asked || (peerClosed && !parser.isInRequest) || driver.isStopping
        cancelDeadline()
        giveBackBodyBytes()
        let bodyless = current.isHead || !Self.hasBody(response.status)
        queue(Self.head(of: response, framing: .length(response.body.count), closing: closeAfter))
        if !bodyless { queue(response.body) }
        phase = .sending(closeAfter: closeAfter)
        flush(context)
    }

    /// The answer is out: linger and close, or wait for the next request.
    private func sentWhole(closeAfter: Bool, _ context: LoopContext) {
        guard !closeAfter else {
            tls?.finishSending()
            lingerBeforeClosing(context)
            return
        }
        phase = .idle
        since = .now
        setDeadline(seconds: driver.limits.idleSeconds)
        watch(context, read: true, write: false)
        if !isReadingRequests { readRequests(context) }
    }

    /// Shuts the sending side and reads what the client still sends for a moment before the close.
    private func lingerBeforeClosing(_ context: LoopContext) {
        shutdown(fd, Int32(SHUT_WR))
        phase = .lingering
        since = .now
        setDeadline(seconds: Self.lingerSeconds)
        watch(context, read: true, write: false)
    }

    // MARK: - Streaming

    /// Sends what the stream has, while the socket takes it.
    func pump(_ context: LoopContext) {
        guard case .streaming(let body, let chunked, var head) = phase else { return }
        while writeOut(context) {
            guard !streamEnding, let bytes = body.next(maxBytes: 16_384) else {
                body.finish()
                driver.forgetStream(of: self)
                guard head == nil else {
                    // Over before it began: its client is still owed an answer.
                    send(.text("the stream ended before it began; retry\n", status: 503), context)
                    return
                }
                if chunked { queue(Array("0\r\n\r\n".utf8)) }
                phase = .sending(closeAfter: true)
                flush(context)
                return
            }
            guard !bytes.isEmpty else { return }
            if let first = head {
                queue(first)
                head = nil
                phase = .streaming(body, chunked: chunked, head: nil)
                cancelDeadline()
            }
            if chunked { queue(Array((String(bytes.count, radix: 16) + "\r\n").utf8)) }
            queue(bytes)
            if chunked { queue([13, 10]) }
        }
        // The socket is full: a stream that let its client go would otherwise keep its place and descriptor until
        // that client, which is not reading, took what the socket holds, or for the idle time.
        if isOpen, body.isCut { close(context) }
    }

    // MARK: - Writing

    private func queue(_ bytes: [UInt8]) {
        if sent == output.count {
            output.removeAll(keepingCapacity: output.capacity <= 65_536)
            sent = 0
        }
        output += bytes
    }

    func writable(_ context: LoopContext) {
        // A handshake waiting for room in the socket goes on as a read does.
        if let tls, !tls.isHandshaken {
            readable(context)
            return
        }
        flush(context, afterRoom: true)
    }

    /// Writes what the socket takes, then goes on with the phase once all is out.
    /// - Parameter afterRoom: whether the socket was found to have room again, having been full.
    private func flush(_ context: LoopContext, afterRoom: Bool = false) {
        guard writeOut(context, afterRoom: afterRoom) else { return }
        switch phase {
        case .sending(let closeAfter): sentWhole(closeAfter: closeAfter, context)
        case .streaming: pump(context)
        default: break
        }
    }

    /// Writes what the socket takes; `true` once everything queued is out, `false` while the socket has no
    /// room (it is watched for room then) or once the connection is closed.
    /// - Parameter afterRoom: whether the socket was found to have room again, having been full: it took bytes,
    ///   though under TLS a record only partly written is not counted as moved until its end goes.
    private func writeOut(_ context: LoopContext, afterRoom: Bool = false) -> Bool {
        var tookBytes = afterRoom
        while sent < output.count {
            let step = output.withUnsafeBytes { bytes in
                let rest = UnsafeRawBufferPointer(rebasing: bytes[sent...])
                return tls?.send(rest) ?? UnixSocket.send(fd, rest)
            }
            switch step {
            case .moved(let count):
                sent += count
                tookBytes = true
            case .wouldBlock:
                watch(context, read: nil, write: true)
                // A client that stops reading its answer would hold its connection for ever: it has the idle
                // time from the last bytes its socket took to take more. A stream's new event that finds the
                // socket as full as before leaves that time running: else a client that reads nothing keeps
                // its connection for as long as events come. (A `100 Continue` that waits while a request is
                // read keeps the request's own deadline.)
                switch phase {
                case .sending, .streaming:
                    if tookBytes || deadline == nil {
                        setDeadline(seconds: driver.limits.idleSeconds)
                        since = .now
                    }
                default: break
                }
                return false
            case .end, .failed:
                close(context)
                return false
            }
        }
        if watching.write { watch(context, read: nil, write: false) }
        // All out: a stream that has begun then waits for its next event, which no deadline bounds.
        if case .streaming(_, _, nil) = phase { cancelDeadline() }
        return isOpen
    }

    // MARK: - Deadlines and the end

    private func setDeadline(seconds: Int) {
        cancelDeadline()
        exchanges += 1
        let (exchange, bound, key) = (exchanges, driver.bound!, key)
        deadline = bound.loop.schedule(at: .now + .seconds(seconds)) {
            HTTPDriver.later(bound, key) { connection, context in connection.deadlinePassed(exchange, context) }
        }
    }

    private func cancelDeadline() {
        if let deadline { _ = driver.loop.cancelTimer(deadline) }
        deadline = nil
    }

    private func deadlinePassed(_ exchange: UInt64, _ context: LoopContext) {
        guard exchange == exchanges else { return }
        deadline = nil
        switch phase {
        case .idle where !parser.isInRequest, .lingering:
            close(context)
        case .idle, .reading:
            current = (false, false)
            send(
                .text("the request did not arrive whole within \(driver.limits.requestSeconds) s\n", status: 408),
                context)
        case .answering:
            send(.text("no answer within \(driver.limits.answerSeconds) s; retry\n", status: 503), context)
        case .streaming(let body, _, _?):
            // Its first bytes did not come in time: the client is answered as for any answer that did not.
            body.finish()
            driver.forgetStream(of: self)
            send(.text("no answer within \(driver.limits.answerSeconds) s; retry\n", status: 503), context)
        case .sending, .streaming:
            // The client took nothing for the idle time: it is gone, or holding the connection on purpose.
            close(context)
        default:
            break
        }
    }

    /// The server stops: a request waiting for its answer is answered 503, a stream ends, and a connection
    /// between requests closes.
    func stopping(_ context: LoopContext) {
        switch phase {
        case .idle where !parser.isInRequest: close(context)
        case .answering: send(HTTPDriver.stopping, context)
        case .streaming:
            streamEnding = true
            pump(context)
        default: break
        }
    }

    /// Closes the connection, ending its stream if it has one.
    func close(_ context: LoopContext) {
        guard isOpen else { return }
        cancelDeadline()
        giveBackBodyBytes()
        if case .streaming(let body, _, _) = phase {
            body.finish()
            driver.forgetStream(of: self)
        }
        if sent < output.count {
            // Closed with bytes its client never took (it stopped reading): reset, so that the kernel does not
            // go on holding and sending what is queued in the socket for a client that takes nothing.
            var abort = linger(l_onoff: 1, l_linger: 0)
            _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, socklen_t(MemoryLayout<linger>.size))
        }
        phase = .closed
        context.remove(key)
        driver.forget(self)
        _ = Glibc.close(fd)
    }

    private func watch(_ context: LoopContext, read: Bool?, write: Bool?) {
        if let read { watching.read = read }
        if let write { watching.write = write }
        context.watch(key, readable: read, writable: write)
    }

    // MARK: - The head of a response

    enum Framing {
        case length(Int)
        case chunked
        case untilClose
    }

    /// A response's status line and header fields, with its framing, the date and, when the connection closes
    /// after it, `Connection: close`.
    static func head(of response: HTTPResponse, framing: Framing, closing: Bool) -> [UInt8] {
        var text = "HTTP/1.1 \(response.status) \(reason(response.status))\r\nDate: \(HTTPDate.now())\r\n"
        for (name, value) in response.headers {
            let lower = name.lowercased()
            // The server frames the response and says whether the connection stays.
            guard lower != "content-length", lower != "transfer-encoding", lower != "connection" else { continue }
            text += "\(name): \(value)\r\n"
        }
        switch framing {
        case .length(let count):
            if hasBody(response.status) {
                text += "Content-Length: \(count)\r\n"
            }
        case .chunked: text += "Transfer-Encoding: chunked\r\n"
        case .untilClose: break
        }
        if closing { text += "Connection: close\r\n" }
        return Array((text + "\r\n").utf8)
    }

    /// Whether a response with `status` has a body (and so a length): 1xx, 204 and 304 never do (RFC 9110 §6.4.1).
    static func hasBody(_ status: Int) -> Bool { status >= 200 && status != 204 && status != 304 }

    static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 202: "Accepted"
        case 204: "No Content"
        case 207: "Multi-Status"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}

/// The date as HTTP gives it (`Fri, 04 Dec 2026 23:08:51 GMT`, RFC 9110 §5.6.7).
enum HTTPDate {
    static func now() -> String {
        var seconds = time(nil)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(1900 + parts.tm_year) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
