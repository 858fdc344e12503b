import LumenProtocol
import LumenService
import LumenTestSupport
import Testing

@testable import LumenServer

#if canImport(Glibc)
    import Glibc
#endif

/// The HTTP listener over a real TCP socket: answers given at once and later (the connection suspended
/// meanwhile), a body too big, and a stop that answers what still waits.
@Suite("HTTP listener", .serialized, .timeLimit(.minutes(1)))
struct HTTPServerTests {
    /// A server on a free loopback port whose requests `respond` answers, logging to `log` when given; returns it,
    /// its port and its task.
    func start(
        limits: HTTPLimits = HTTPLimits(), log: MemoryLogHandler? = nil,
        _ respond: @escaping @Sendable (HTTPRequest) -> HTTPReply
    ) throws -> (
        HTTPServer, UInt16, Task<Void, any Error>
    ) {
        let fd = try TCPListener.listen(on: TCPAddress(host: "127.0.0.1", port: 0))
        let port = try #require(TCPListener.boundPort(fd))
        let server = HTTPServer(
            listeners: [HTTPListener(fd: fd)], limits: limits,
            logger: log.map { Logger(level: .info, handler: $0) } ?? Logger(level: .error, handler: MemoryLogHandler())
        ) {
            respond($0)
        }
        return (server, port, Task { try await server.run() })
    }

    func exchange(_ port: UInt16, _ request: String) async throws -> String {
        try await HTTPTestClient.exchange(port, request)
    }

    func connected(_ port: UInt16) throws -> Int32 { try HTTPTestClient.connected(port) }

    @Test func answersNowAndLaterAndRefusesWhatIsTooBig() async throws {
        let (_, port, task) = try start { request in
            switch request.path {
            case "/now": .now(.text("now \(request.method)\n", status: 200))
            case "/later":
                .later {
                    await Task.yield()
                    return .json(.object(["body": .string(String(decoding: request.body, as: UTF8.self))]))
                }
            default: .now(.text("no\n", status: 404))
            }
        }
        defer { task.cancel() }
        let now = try await exchange(port, "GET /now HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(now.hasPrefix("HTTP/1.1 200") && now.hasSuffix("now GET\n"))
        let later = try await exchange(
            port, "PUT /later HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
        #expect(
            later.hasPrefix("HTTP/1.1 200") && later.contains("application/json")
                && later.hasSuffix(#"{"body":"hello"}"#))
        #expect(
            try await exchange(port, "GET /else HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").hasPrefix(
                "HTTP/1.1 404"))
        let big = try await exchange(
            port, "PUT /later HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n")
        #expect(big.hasPrefix("HTTP/1.1 413"))
        // Not HTTP at all (a TLS hello, as aiohue tries first): refused, and the server goes on.
        _ = try await exchange(port, "\u{16}\u{03}\u{01}\u{00}\u{a5}\u{01}\u{00}\u{00}\r\n\r\n")
        #expect(
            try await exchange(port, "GET /now HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").hasPrefix(
                "HTTP/1.1 200"))
    }

    /// A connection whose answer is on its way reads at most a head ahead; a pipelined request behind it whose body
    /// is larger than a head is still read whole once that answer is out, and answered.
    @Test func aBodyLargerThanAHeadBehindAnAnswerOnItsWayIsReadAndAnswered() async throws {
        var limits = HTTPLimits()
        limits.bodyBytes = 256 << 10
        let (_, port, task) = try start(limits: limits) { request in
            .later {
                for _ in 0..<100 { await Task.yield() }
                return .text("\(request.method) \(request.body.count)\n", status: 200)
            }
        }
        defer { task.cancel() }
        let body = String(repeating: "x", count: 100_000)
        let answers = try await exchange(
            port,
            "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n"
                + "PUT /big HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
                + body)
        #expect(answers.components(separatedBy: "HTTP/1.1 200").count == 3, "\(answers)")
        #expect(answers.hasSuffix("PUT 100000\n") && answers.contains("GET 0\n"), "\(answers)")
    }

    @Test func aStopAnswersWhatStillWaits() async throws {
        let (arrived, arrival) = AsyncStream.makeStream(of: Void.self)
        let (never, held) = AsyncStream.makeStream(of: Void.self)
        defer { held.finish() }
        let (_, port, task) = try start { _ in
            arrival.yield()
            return .later {
                // An answer that does not come before the test ends: only the stop can end the request.
                for await _ in never {}
                return .text("late\n", status: 200)
            }
        }
        async let answer = exchange(port, "GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        // Stopped once the request is waiting for its answer.
        for await _ in arrived { break }
        task.cancel()
        let reply = try await answer
        #expect(reply.hasPrefix("HTTP/1.1 503"), "\(reply)")
    }

    /// Sixty-four connections that said nothing, opened again as soon as they were closed, once shut every other
    /// client at their address out: at its address's limit, a new connection takes the place of that address's
    /// oldest one that is idle or has not yet sent its request whole, as at the limit of all connections.
    @Test func atItsAddressesLimitANewConnectionTakesThePlaceOfItsOldestIdleOne() async throws {
        var limits = HTTPLimits()
        limits.connectionsPerAddress = 2
        let (server, port, task) = try start(limits: limits) { _ in .now(.text("ok\n", status: 200)) }
        defer { task.cancel() }
        // One connection that says nothing, then one that begins a request: the address's share, both held.
        let silent = try connected(port)
        defer { close(silent) }
        let slow = try connected(port)
        defer { close(slow) }
        HTTPTestClient.send(slow, "GET / HTTP/1.1\r\n")
        var open = 0
        for _ in 0..<10_000 where open < 2 {
            open = await server.loop.executeAndWait { _ in server.driver.object.connections.count }
        }
        let third = try await exchange(port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(third.hasPrefix("HTTP/1.1 200"), "\(third)")
        // The oldest made room, closed with nothing sent; the other is still open.
        #expect(await offload { HTTPTestClient.receive(silent) } == nil)
        var byte: UInt8 = 0
        #expect(recv(slow, &byte, 1, Int32(MSG_DONTWAIT)) == -1 && errno == EAGAIN, "the newer one is still open")
    }

    /// When every connection from an address is being answered, none can make room: a new one from there is
    /// answered 503 and closed, and others are served; and so at the limit of all connections. Each refusal is
    /// logged, naming the address and the limit.
    @Test func aNewConnectionThatFindsNoRoomIsAnswered503AndTheRefusalLogged() async throws {
        // Answers that do not come before the test ends, each held by a stream of its own.
        let held = Locked<[AsyncStream<Void>.Continuation]>([])
        defer { for hold in held.withLock({ $0 }) { hold.finish() } }
        for (perAddress, all) in [(2, 8), (8, 2)] {
            var limits = HTTPLimits()
            limits.connectionsPerAddress = perAddress
            limits.connections = all
            let log = MemoryLogHandler()
            let (arrived, arrival) = AsyncStream.makeStream(of: Void.self)
            let (_, port, task) = try start(limits: limits, log: log) { request in
                guard request.path == "/wait" else { return .now(.text("ok\n", status: 200)) }
                let (never, hold) = AsyncStream.makeStream(of: Void.self)
                held.withLock { $0.append(hold) }
                arrival.yield()
                return .later {
                    for await _ in never {}
                    return .text("late\n", status: 200)
                }
            }
            let waiting = try (0..<2).map { _ in try connected(port) }
            for fd in waiting { HTTPTestClient.send(fd, "GET /wait HTTP/1.1\r\nHost: x\r\n\r\n") }
            var arrivals = arrived.makeAsyncIterator()
            for _ in waiting { await arrivals.next() }
            let refused = try await exchange(port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(refused.hasPrefix("HTTP/1.1 503") && refused.contains("Retry-After"), "\(refused)")
            let limit = perAddress < all ? "\(perAddress) connections from one address" : "\(all) connections"
            #expect(refused.contains(limit), "\(refused)")
            #expect(
                log.logged.contains {
                    $0.level == .warning && $0.message.contains("127.0.0.1") && $0.message.contains(limit)
                },
                "\(log.logged.map(\.message))")
            if perAddress < all {
                let other = try await HTTPTestClient.exchange(
                    port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", from: "127.0.0.2")
                #expect(other.hasPrefix("HTTP/1.1 200"), "\(other)")
            }
            task.cancel()
            for fd in waiting { close(fd) }
        }
    }
}

/// A stream body that sends what it is given, and records that its connection closed.
final class RecordingStreamBody: HTTPStreamBody {
    private struct State {
        var pending: [UInt8] = []
        var wake: (@Sendable () -> Void)?
        var finished = false
    }
    private let state = Locked(State())
    let (finishes, finished) = AsyncStream.makeStream(of: Void.self)
    /// A yield each time the server takes bytes, and when the stream is finished.
    let (turns, turn) = AsyncStream.makeStream(of: Void.self)
    /// A yield each time the server asks for bytes, whether or not there are any.
    let (polls, poll) = AsyncStream.makeStream(of: Void.self)

    func start(wake: @escaping @Sendable () -> Void) { state.withLock { $0.wake = wake } }

    func next(maxBytes: Int) -> [UInt8]? {
        let bytes = state.withLock { state in
            defer { state.pending = [] }
            return state.pending
        }
        if !bytes.isEmpty { turn.yield() }
        poll.yield()
        return bytes
    }

    func finish() {
        state.withLock { $0.finished = true }
        finished.yield()
        turn.yield()
    }

    /// Never: it holds whatever it is given.
    var isCut: Bool { false }

    var isFinished: Bool { state.withLock { $0.finished } }

    /// Sends `text`, waking the server.
    func send(_ text: String) {
        let wake = state.withLock { state in
            state.pending += Array(text.utf8)
            return state.wake
        }
        wake?()
    }
}

extension HTTPServerTests {
    @Test func aStreamSendsAsItIsWokenAndEndsWhenTheServerStops() async throws {
        let body = RecordingStreamBody()
        let (_, port, task) = try start { _ in
            .stream(HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream")]), body)
        }
        let reader = try HTTPStreamReader(port: port, path: "/events")
        body.send("first\n")
        #expect(try await reader.read(until: "first").hasPrefix("HTTP/1.1 200"))
        // Nothing to send meanwhile: the connection waits, suspended, until the body wakes it.
        body.send("second\n")
        #expect(try await reader.read(until: "second").contains("second"))
        task.cancel()
        let all = try await reader.readToEnd()
        #expect(all.hasSuffix("0\r\n\r\n"), "the chunked body ends: \(all)")
        for await _ in body.finishes { break }
        #expect(body.isFinished)
    }

    @Test func aStreamsHeadGoesWithItsFirstBytesNotBefore() async throws {
        let body = RecordingStreamBody()
        let (_, port, task) = try start { _ in
            .stream(HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream")]), body)
        }
        defer { task.cancel() }
        let fd = try HTTPTestClient.connected(port)
        defer { close(fd) }
        HTTPTestClient.send(fd, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        // The server has asked the body for bytes and found none: whatever it sent before is in the socket now
        // (loopback delivers within the send).
        for await _ in body.polls { break }
        var byte: UInt8 = 0
        #expect(recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) == -1 && errno == EAGAIN, "no head before the first bytes")
        body.send("first\n")
        let text = await offload {
            var seen = ""
            while !seen.contains("first"), let bytes = HTTPTestClient.receive(fd) {
                seen += String(decoding: bytes, as: UTF8.self)
            }
            return seen
        }
        #expect(text.hasPrefix("HTTP/1.1 200") && text.contains("first"), "\(text)")
    }

    @Test func aStreamWhoseClientGoesIsFinished() async throws {
        let body = RecordingStreamBody()
        let (_, port, task) = try start { _ in .stream(HTTPResponse(status: 200), body) }
        defer { task.cancel() }
        let fd = try HTTPTestClient.connected(port)
        HTTPTestClient.send(fd, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        body.send("hello\n")
        _ = await offload {
            var seen = ""
            while !seen.contains("hello"), let bytes = HTTPTestClient.receive(fd) {
                seen += String(decoding: bytes, as: UTF8.self)
            }
        }
        close(fd)
        // The server notices when a write of its fails: the first after the close may still be taken.
        var turns = body.turns.makeAsyncIterator()
        for _ in 0..<10 where !body.isFinished {
            body.send("anyone there?\n")
            await turns.next()
        }
        #expect(body.isFinished)
    }
}

/// What a hostile client tries: framing that a second reader could take differently, a request that never ends,
/// streams that fill the listener, and a stream's client gone without a word.
extension HTTPServerTests {
    @Test func badFramingIsAnsweredOnce400AndTheConnectionClosed() async throws {
        let (_, port, task) = try start { _ in .now(.text("ok\n", status: 200)) }
        defer { task.cancel() }
        let head = "POST /api HTTP/1.1\r\nHost: x\r\n"
        for framing in [
            "Content-Length: 5\r\nContent-Length: 7\r\n\r\nabcdefg",
            "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            "Content-Length: -1\r\n\r\n", "Transfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFF\r\nabc\r\n",
        ] {
            // No Connection: close: the server must close it of its own accord.
            let answer = try await exchange(port, head + framing)
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(framing): \(answer)")
            #expect(answer.components(separatedBy: "HTTP/1.1").count == 2, "one status line: \(answer)")
            #expect(answer.contains("Connection: close"))
        }
    }

    /// An absolute-form target's authority is the host the request is for (RFC 9112 §3.2.2): a rebound name
    /// there must not slip past the access check behind an address in Host.
    @Test func theAccessCheckSeesAnAbsoluteFormTargetsAuthorityNotHost() async throws {
        let (_, port, task) = try start { request in
            if let why = HTTPAccess().refusal(of: request) { return .now(.text(why + "\n", status: 403)) }
            return .now(.text("ok\n", status: 200))
        }
        defer { task.cancel() }
        let rebound = try await exchange(
            port, "GET http://rebound.example:\(port)/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(rebound.hasPrefix("HTTP/1.1 403"), "\(rebound)")
        let own = try await exchange(
            port, "GET http://127.0.0.1:\(port)/ HTTP/1.1\r\nHost: rebound.example\r\nConnection: close\r\n\r\n")
        #expect(own.hasPrefix("HTTP/1.1 200"), "\(own)")
    }

    @Test func aRequestThatDoesNotArriveWholeInTimeIsAnswered408AndClosed() async throws {
        var limits = HTTPLimits()
        limits.requestSeconds = 1
        let (_, port, task) = try start(limits: limits) { _ in .now(.text("ok\n", status: 200)) }
        defer { task.cancel() }
        // A header line now and then, each well within any idle timeout.
        let slow = try connected(port)
        defer { close(slow) }
        HTTPTestClient.send(slow, "GET / HTTP/1.1\r\nHost: x\r\n")
        let answer = await offload {
            var received: [UInt8] = []
            while let bytes = HTTPTestClient.receive(slow) {
                received += bytes
                HTTPTestClient.send(slow, "X-Slow: 1\r\n")
            }
            return String(decoding: received, as: UTF8.self)
        }
        #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer)")
        // Meanwhile and after, others from the same address are served.
        #expect(
            try await exchange(port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").hasPrefix("HTTP/1.1 200")
        )
    }

    /// A client that asks for a large answer and never reads it once held its connection for ever: with one
    /// connection allowed from its address, nobody else from there was ever served again.
    @Test func aClientThatStopsReadingItsAnswerIsLetGoAfterTheIdleTime() async throws {
        var limits = HTTPLimits()
        limits.idleSeconds = 1
        limits.connectionsPerAddress = 1
        // More than the kernel's buffers on both sides hold, so that the server is left with bytes to send.
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: 32 << 20)
        let (_, port, task) = try start(limits: limits) { _ in .now(HTTPResponse(status: 200, body: body)) }
        defer { task.cancel() }
        let reader = try connected(port)
        defer { close(reader) }
        var small: Int32 = 4_096
        setsockopt(reader, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        HTTPTestClient.send(reader, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        // The server lets it go after the idle time, resetting the connection rather than sending on: its
        // socket is told at once. The 10 s bound only keeps a failing run from waiting for ever.
        let reset = await offload {
            // No events asked: the answer's first bytes are readable already; a reset is reported regardless.
            var watched = pollfd(fd: reader, events: 0, revents: 0)
            guard poll(&watched, 1, 10_000) == 1 else { return false }
            return watched.revents & Int16(POLLERR | POLLHUP) != 0
        }
        #expect(reset, "the reader that stopped reading still holds its connection")
        // Its address's one connection is free again.
        let next = try await exchange(port, "HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(next.hasPrefix("HTTP/1.1 200"), "\(next)")
    }

    @Test func aClientThatShutsItsSendingSideGetsItsWholeAnswerBeforeTheClose() async throws {
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: 32 << 20)
        let (_, port, task) = try start { _ in .now(HTTPResponse(status: 200, body: body)) }
        defer { task.cancel() }
        for request in ["GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "GET / HTTP/1.0\r\n\r\n"] {
            let received = try await offload {
                let fd = try connected(port)
                defer { close(fd) }
                HTTPTestClient.send(fd, request)
                shutdown(fd, Int32(SHUT_WR))
                var received = 0
                while let bytes = HTTPTestClient.receive(fd) { received += bytes.count }
                return received
            }
            #expect(received > body.count, "\(received) bytes of a body of \(body.count): \(request)")
        }
    }

    /// A client that pipelines requests and then shuts its sending side (`printf … | nc -N`) gets an answer to each
    /// before the close, however long each answer takes.
    @Test func aClientThatShutsItsSendingSideAfterPipelinedRequestsGetsEveryAnswer() async throws {
        let (_, port, task) = try start { request in
            .later {
                for _ in 0..<100 { await Task.yield() }
                return .text("\(request.path)\n", status: 200)
            }
        }
        defer { task.cancel() }
        let received = try await offload {
            let fd = try connected(port)
            defer { close(fd) }
            HTTPTestClient.send(fd, (1...3).map { "GET /\($0) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined())
            shutdown(fd, Int32(SHUT_WR))
            var received: [UInt8] = []
            while let bytes = HTTPTestClient.receive(fd) { received += bytes }
            return String(decoding: received, as: UTF8.self)
        }
        #expect(received.components(separatedBy: "HTTP/1.1 200").count == 4, "\(received)")
        #expect(received.hasSuffix("/3\n") && received.contains("Connection: close"), "\(received)")
    }

    /// Bodies on many connections at once are held to one budget: a request that would go past it is answered
    /// 503 with Retry-After and closed, and what a body took is given back once its request is answered.
    @Test func requestBodiesAreHeldToOneBudgetAsTheirBytesCome() async throws {
        var limits = HTTPLimits()
        limits.bodyBudgetBytes = 400
        // Bodies over 40 bytes count here, as those over 64 KiB do by default.
        limits.smallBodyBytes = 40
        let (_, port, task) = try start(limits: limits) { request in .now(.text("\(request.body.count)\n", status: 200))
        }
        defer { task.cancel() }
        let post = "POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 50\r\n\r\n"
        let fifty = post + String(repeating: "b", count: 50)
        /// Posts 50 bytes until the answer starts with `status`, at most 100 times (the server reads the other
        /// connection's bytes when it comes to them); the last answer.
        func postUntil(_ status: String) async throws -> String {
            var answer = ""
            for _ in 0..<100 where !answer.hasPrefix(status) { answer = try await exchange(port, fifty) }
            return answer
        }
        // A body announced holds nothing until it comes: a head announcing 90 bytes leaves this address's
        // quarter of the budget (100 bytes) to others.
        let first = try connected(port)
        defer { close(first) }
        HTTPTestClient.send(first, "POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 90\r\n\r\n")
        let goOn = await offload { HTTPTestClient.receive(first).map { String(decoding: $0, as: UTF8.self) } }
        #expect(goOn?.hasPrefix("HTTP/1.1 100") == true, "\(goOn ?? "")")
        #expect(try await exchange(port, fifty).hasPrefix("HTTP/1.1 200"))
        // Once 60 of them came, a 50-byte body from the same address no longer fits: 503, to retry.
        HTTPTestClient.send(first, String(repeating: "a", count: 60))
        let busy = try await postUntil("HTTP/1.1 503")
        #expect(busy.hasPrefix("HTTP/1.1 503") && busy.contains("Retry-After"), "\(busy)")
        // The first body comes whole and is answered; its bytes are given back.
        HTTPTestClient.send(first, String(repeating: "a", count: 30))
        let answer = await offload { HTTPTestClient.receive(first).map { String(decoding: $0, as: UTF8.self) } }
        #expect(answer?.hasPrefix("HTTP/1.1 200") == true && answer?.hasSuffix("90\n") == true, "\(answer ?? "")")
        #expect(try await postUntil("HTTP/1.1 200").hasPrefix("HTTP/1.1 200"))
        // A connection that goes before its body is whole gives its bytes back too.
        let gone = try connected(port)
        HTTPTestClient.send(
            gone, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 90\r\n\r\n" + String(repeating: "g", count: 80))
        #expect(try await postUntil("HTTP/1.1 503").hasPrefix("HTTP/1.1 503"))
        close(gone)
        #expect(try await postUntil("HTTP/1.1 200").hasPrefix("HTTP/1.1 200"))
    }

    /// Large bodies held one byte short from four addresses once filled the budget, and every request with a
    /// body was answered 503 until they went: a Hue command of a few dozen bytes, a JSON-RPC call, the owner's `hello`. A
    /// body no larger than a real client's is never refused for the budget, and the refusals are logged.
    @Test func smallBodiesAreTakenWhileLargeOnesHoldTheWholeBudget() async throws {
        var limits = HTTPLimits()
        limits.bodyBytes = 1 << 20
        limits.bodyBudgetBytes = 1 << 20
        let log = MemoryLogHandler()
        let (server, port, task) = try start(limits: limits, log: log) { request in
            .now(.text("\(request.body.count)\n", status: 200))
        }
        defer { task.cancel() }
        // From each of four addresses, half of a body of 512 KiB: that address's quarter of the budget, and
        // between them the whole of it.
        let holders = try await offload {
            try (1...4).map { index in
                let fd = try HTTPTestClient.connected(port, from: "127.0.11.\(index)")
                HTTPTestClient.send(
                    fd,
                    "POST /rpc HTTP/1.1\r\nHost: x\r\nContent-Length: \(512 << 10)\r\n\r\n"
                        + String(repeating: "a", count: 256 << 10))
                return fd
            }
        }
        defer { for fd in holders { close(fd) } }
        // Each look at the count is a turn of the server's loop, which reads what has come meanwhile.
        var held = 0
        for _ in 0..<10_000 where held < limits.bodyBudgetBytes {
            held = await server.loop.executeAndWait { _ in server.driver.object.bodyBytesHeld }
        }
        #expect(held == limits.bodyBudgetBytes)
        let command = #"{"on":true,"bri":254}"#
        let put =
            "PUT /api/user/lights/2/state HTTP/1.1\r\nHost: x\r\nContent-Length: \(command.utf8.count)\r\n"
            + "Connection: close\r\n\r\n\(command)"
        for source in ["127.0.11.5", "127.0.11.1"] {
            let answer = try await HTTPTestClient.exchange(port, put, from: source)
            #expect(
                answer.hasPrefix("HTTP/1.1 200") && answer.hasSuffix("\r\n\r\n\(command.utf8.count)\n"), "\(answer)")
        }
        // A large body from another address is still refused, and said in the log.
        let large = String(repeating: "b", count: 100 << 10)
        let refused = try await HTTPTestClient.exchange(
            port,
            "POST /rpc HTTP/1.1\r\nHost: x\r\nContent-Length: \(large.utf8.count)\r\nConnection: close\r\n\r\n"
                + large, from: "127.0.11.6")
        #expect(refused.hasPrefix("HTTP/1.1 503") && refused.contains("Retry-After"), "\(refused)")
        #expect(
            log.logged.contains { $0.level == .warning && $0.message.contains("127.0.11.6") },
            "\(log.logged.map(\.message))")
    }

    /// A client refused again and again is logged once a minute, each line telling how many refusals it stands
    /// for, so that the journal shows it without being flooded.
    @Test func refusalsAreLoggedAtMostOnceAMinuteWithTheirCount() {
        var refusals = RefusalLog()
        let start = ContinuousClock.now
        #expect(refusals.note(at: start) == 1)
        var told: [Int] = []
        for second in 1...150 {
            if let count = refusals.note(at: start + .seconds(second)) { told.append(count) }
        }
        #expect(told == [60, 60])
        #expect(
            RefusalLog.since(1).isEmpty && RefusalLog.since(60) == "; 59 more refused since the last such warning")
    }

    /// Readers that ask for large answers and never read them once held every connection until the idle time
    /// let them go: at the limit, one whose answer waits for room in its socket now makes room for a new client.
    @Test func atTheConnectionLimitAClientThatTakesNoAnswerMakesRoom() async throws {
        var limits = HTTPLimits()
        limits.connections = 2
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: 32 << 20)
        let (_, port, task) = try start(limits: limits) { request in
            .now(request.path == "/big" ? HTTPResponse(status: 200, body: body) : .text("ok\n", status: 200))
        }
        defer { task.cancel() }
        let stuck = try (0..<2).map { _ in
            let fd = try TCPAddress(host: "127.0.0.1", port: port).connectedSocket(type: Int32(SOCK_STREAM.rawValue))
            HTTPTestClient.send(fd, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            return fd
        }
        defer { for fd in stuck { close(fd) } }
        // Each has the start of its answer: the server has read its request and waits for room to send the rest.
        for fd in stuck { _ = await offload { HTTPTestClient.receive(fd) } }
        #expect(
            try await exchange(port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").hasPrefix("HTTP/1.1 200")
        )
    }

    @Test func streamsAreCountedPerAddressAndInAllSoThatOthersAreServed() async throws {
        var limits = HTTPLimits()
        limits.streamsPerAddress = 2
        limits.streams = 3
        let bodies = Locked<[RecordingStreamBody]>([])
        let (_, port, task) = try start(limits: limits) { request in
            guard request.path == "/events" else { return .now(.text("ok\n", status: 200)) }
            let body = RecordingStreamBody()
            bodies.withLock { $0.append(body) }
            return .stream(HTTPResponse(status: 200), body)
        }
        defer { task.cancel() }
        let readers = try (0..<2).map { _ in try HTTPStreamReader(port: port, path: "/events") }
        for (index, body) in bodies.withLock({ $0 }).enumerated() {
            body.send("open\n")
            _ = try await readers[index].read(until: "open")
        }
        let third = try await exchange(port, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(third.hasPrefix("HTTP/1.1 503") && third.contains("Retry-After"), "\(third)")
        #expect(
            try await exchange(port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").hasPrefix("HTTP/1.1 200")
        )
    }

    /// An address's streams take at most half the connections it may hold, whatever the stream limit says: the
    /// streams it holds open (a dashboard in many tabs, or an attacker) never leave it without a connection for
    /// its requests, which streams, never idle, could not give up.
    @Test func anAddressesStreamsLeaveItConnectionsForItsRequests() async throws {
        var limits = HTTPLimits()
        limits.connectionsPerAddress = 4
        limits.streamsPerAddress = 4
        let (_, port, task) = try start(limits: limits) { request in
            guard request.path == "/events" else { return .now(.text("ok\n", status: 200)) }
            let body = RecordingStreamBody()
            body.send("open\n")
            return .stream(HTTPResponse(status: 200), body)
        }
        defer { task.cancel() }
        // Four streams asked for, one after another, each held open.
        var readers: [HTTPStreamReader] = []
        var heads: [String] = []
        for _ in 0..<4 {
            let reader = try HTTPStreamReader(port: port, path: "/events")
            readers.append(reader)
            heads.append(String(try await reader.read(until: "\r\n\r\n").prefix(12)))
        }
        #expect(heads == ["HTTP/1.1 200", "HTTP/1.1 200", "HTTP/1.1 503", "HTTP/1.1 503"], "\(heads)")
        #expect(
            try await exchange(port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").hasPrefix("HTTP/1.1 200")
        )
        withExtendedLifetime(readers) {}
    }

    @Test func aStreamWhoseClientGoesIsFinishedAtOnceWithNothingSent() async throws {
        let body = RecordingStreamBody()
        let (_, port, task) = try start { _ in .stream(HTTPResponse(status: 200), body) }
        defer { task.cancel() }
        let fd = try HTTPTestClient.connected(port)
        HTTPTestClient.send(fd, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        body.send("hello\n")
        _ = await offload {
            var seen = ""
            while !seen.contains("hello"), let bytes = HTTPTestClient.receive(fd) {
                seen += String(decoding: bytes, as: UTF8.self)
            }
        }
        close(fd)
        // Nothing more is sent: the hang-up alone must end the stream.
        for await _ in body.finishes { break }
        #expect(body.isFinished)
    }

    @Test func atTheConnectionLimitANewClientTakesTheIdlePlaceOfAnother() async throws {
        var limits = HTTPLimits()
        limits.connections = 2
        let (_, port, task) = try start(limits: limits) { _ in .now(.text("ok\n", status: 200)) }
        defer { task.cancel() }
        // Two keep-alive connections, each answered once and then idle.
        let idle = try (0..<2).map { _ in try connected(port) }
        defer { for fd in idle { close(fd) } }
        for fd in idle {
            HTTPTestClient.send(fd, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = await offload { HTTPTestClient.receive(fd) }
        }
        #expect(
            try await exchange(port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").hasPrefix("HTTP/1.1 200")
        )
    }
}
