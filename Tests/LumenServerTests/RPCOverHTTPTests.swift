import LumenLoop
import LumenModel
import LumenProtocol
import LumenScopes
import LumenService
import LumenSimulation
import Testing

@testable import LumenServer

/// The scope protocol over HTTP, through a real listener on a TCP socket: sessions started by `hello`,
/// requests and batches, the events stream with its IDs and resumption, expiry, the token and the checks on
/// `Origin` and `Host`.
@Suite("The scope protocol over HTTP", .serialized, .timeLimit(.minutes(1)))
struct RPCOverHTTPTests {
    static let token = "test-token-0123456789abcdef"

    let home: Home
    let front: RPCOverHTTP
    /// The front's clock, which only the test moves.
    let clock = ManualInstant()
    let port: UInt16
    let task: Task<Void, any Error>

    init(maxSessions: Int = 256, maxSharedSubscriptions: Int = RPCOverHTTP.Settings(token: "").maxSharedSubscriptions)
        async throws
    {
        home = Home(fixture: Fixture.demoHome(), clock: .virtual)
        let fd = try TCPListener.listen(on: TCPAddress(host: "127.0.0.1", port: 0))
        port = try #require(TCPListener.boundPort(fd))
        let loop = EventLoop(name: "lumend.http")
        var settings = RPCOverHTTP.Settings(token: Self.token)
        settings.maxSessions = maxSessions
        settings.maxSharedSubscriptions = maxSharedSubscriptions
        let logger = Logger(level: .error, handler: MemoryLogHandler())
        let front = RPCOverHTTP(
            scopeContext: ScopeContext(home: home), loop: loop, limits: ServerLimits(), settings: settings,
            logger: logger, now: { [clock] in clock.now })
        self.front = front
        await home.addWatcher { front.publish($0) }
        let server = HTTPServer(
            listeners: [HTTPListener(fd: fd)], loop: loop, logger: logger, bodyLimit: { _ in 1 << 20 }
        ) { request in
            front.respond(to: request) ?? .now(.text("no\n", status: 404))
        }
        task = Task { try await server.run() }
    }

    /// A response: its status, headers (lower-case names) and body.
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: String
        var json: JSONValue? { try? JSONParser.parse(Array(body.utf8)) }
    }

    /// Sends `method path` with `body` and `headers` (name, value), and reads the whole response.
    func request(
        _ method: String, _ path: String, _ body: String = "", headers: [(String, String)] = []
    ) async throws -> Response {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.utf8.count)\r\n\r\n"
        let raw = try await HTTPTestClient.exchange(port, head + body)
        let parts = raw.split(separator: "\r\n\r\n", maxSplits: 1, omittingEmptySubsequences: false)
        let lines = parts[0].split(separator: "\r\n")
        let status = Int(lines.first?.split(separator: " ")[1] ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingPrefix(" ").description
        }
        return Response(status: status, headers: headers, body: parts.count > 1 ? String(parts[1]) : "")
    }

    /// `POST /rpc` of `body` in `session`.
    func post(_ body: String, session: String, headers: [(String, String)] = []) async throws -> Response {
        try await request("POST", "/rpc", body, headers: [("Lumen-Session", session)] + headers)
    }

    /// A new session, with the token when `token` is given; returns its ID.
    func hello(token: String? = nil) async throws -> String {
        let response = try await request(
            "POST", "/rpc", #"{"jsonrpc":"2.0","id":1,"method":"hello"}"#,
            headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [])
        #expect(response.status == 200)
        #expect(response.json?["result"]?["server"] == "lumend")
        return try #require(response.headers["lumen-session"])
    }

    static func call(_ id: Int, _ method: String, _ params: String) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#
    }

    static func setName(_ name: String, id: Int? = 2) -> String {
        let idMember = id.map { #""id":\#($0),"# } ?? ""
        return
            #"{"jsonrpc":"2.0",\#(idMember)"method":"set","params":{"scope":0,"connection":"name","value":"\#(name)"}}"#
    }

    @Test func aSessionStartsWithHelloAndItsNoticesStreamWithIDs() async throws {
        defer { task.cancel() }
        let session = try await hello()
        #expect(session.count == 32 && session.allSatisfy(\.isHexDigit))
        let subscribed = try await post(
            Self.call(1, "subscribe", #"{"scope":0,"connection":"name"}"#), session: session)
        #expect(subscribed.json?["result"]?["value"] == "Demo Home")
        let events = try HTTPStreamReader(port: port, path: "/rpc/events?session=\(session)")
        #expect(try await events.read(until: "retry:").contains("text/event-stream"))
        let set = try await post(Self.setName("Our Home"), session: session)
        #expect(set.status == 200 && set.json?["result"]?["value"] == "Our Home")
        // A notification: nothing is owed, so nothing is said.
        let quiet = try await post(Self.setName("Home 3", id: nil), session: session)
        #expect(quiet.status == 202 && quiet.body.isEmpty)
        let stream = try await events.read(until: "Home 3")
        #expect(
            stream.contains(
                "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"changed\",\"params\":{\"subscription\":1,\"value\":\"Our Home\",\"seq\":1}}\n\n"
            ))
        #expect(stream.contains("id: 2\ndata: "))
        // Another session hears nothing of this one's subscriptions, but sees the change.
        let other = try await hello()
        let read = try await post(Self.call(3, "get", #"{"scope":0,"connection":"name"}"#), session: other)
        #expect(read.json?["result"]?["value"] == "Home 3")
    }

    @Test func aBatchIsAnsweredWithOneArrayOnceItsWritesAreConfirmed() async throws {
        defer { task.cancel() }
        let session = try await hello()
        let opened = try await post(
            #"[\#(Self.call(1, "open", #"{"scope":0,"connection":"room","configuration":"living-room"}"#))]"#,
            session: session)
        let room = try #require(opened.json?.arrayValue?.first?["result"]?["scope"]?.intValue)
        let light = try #require(
            try await post(Self.call(2, "get", #"{"scope":\#(room),"connection":"lightIDs"}"#), session: session).json?[
                "result"]?["value"]?.arrayValue?.first?.stringValue)
        let lightScope = try #require(
            try await post(
                Self.call(3, "open", #"{"scope":\#(room),"connection":"light","configuration":"\#(light)"}"#),
                session: session
            ).json?["result"]?["scope"]?.intValue)
        // A write waits for its device, which waits for the virtual clock: the reply comes once it is moved.
        let batch =
            "[\(Self.call(4, "set", #"{"scope":\#(lightScope),"connection":"isOn","value":false}"#)),"
            + "\(Self.call(5, "get", #"{"scope":\#(lightScope),"connection":"name"}"#))]"
        let answered = Locked<Response?>(nil)
        Task { [self] in
            let response = try await post(batch, session: session)
            answered.withLock { $0 = response }
        }
        var answer: Response?
        for _ in 0..<100_000 {
            answer = answered.withLock { $0 }
            if answer != nil { break }
            try await home.advance(byMilliseconds: 50)
            await Task.yield()
        }
        let replies = try #require(answer?.json?.arrayValue)
        #expect(replies.map { $0["id"]?.intValue } == [4, 5])
        #expect(replies[0]["result"]?["value"] == false)
    }

    @Test func aReconnectingStreamIsSentWhatItMissedOrToldToReload() async throws {
        defer { task.cancel() }
        let session = try await hello()
        _ = try await post(Self.call(1, "subscribe", #"{"scope":0,"connection":"name"}"#), session: session)
        for name in ["A", "B", "C"] { _ = try await post(Self.setName("Home \(name)"), session: session) }
        // Notices wait for a stream; the first one opened is sent them.
        let first = try await HTTPStreamReader(port: port, path: "/rpc/events?session=\(session)").read(
            until: "Home C")
        #expect(first.contains("id: 1\n") && first.contains("id: 3\n"))
        // As a browser reconnects: after event 1, events 2 and 3 again, and no reload.
        let resumed = try await HTTPStreamReader(
            port: port, path: "/rpc/events", headers: "Lumen-Session: \(session)\r\nLast-Event-ID: 1\r\n"
        ).read(until: "Home C")
        #expect(!resumed.contains("id: 1\n") && resumed.contains("id: 2\n") && !resumed.contains("reload"))
        // An ID it never sent: told to read the values again.
        let unknown = try await HTTPStreamReader(
            port: port, path: "/rpc/events?session=\(session)", headers: "Last-Event-ID: 99\r\n"
        ).read(until: "reload")
        #expect(unknown.contains("\"method\":\"reload\""))
        // Past what is kept: a batch of more changes than the session keeps, then a resume from the first.
        let many = (0..<(EventLog.keptEvents + 10)).map { Self.setName("Name \($0)", id: $0 + 10) }
        _ = try await post("[\(many.joined(separator: ","))]", session: session)
        let last = "Name \(EventLog.keptEvents + 9)"
        _ = try await HTTPStreamReader(port: port, path: "/rpc/events?session=\(session)").read(until: last)
        let tooOld = try await HTTPStreamReader(
            port: port, path: "/rpc/events?session=\(session)", headers: "Last-Event-ID: 4\r\n"
        ).read(until: "reload")
        #expect(tooOld.contains("events after 4 are no longer kept"))
    }

    @Test func theSimulationScopeNeedsTheToken() async throws {
        defer { task.cancel() }
        let openSimulation = Self.call(2, "open", #"{"scope":0,"connection":"simulation"}"#)
        let without = try await post(openSimulation, session: try await hello())
        #expect(without.json?["error"]?["code"] == -32060)
        #expect(without.json?["error"]?["message"]?.stringValue?.contains("Authorization: Bearer") == true)
        let wrong = try await post(openSimulation, session: try await hello(token: "not-the-token-at-all"))
        #expect(wrong.json?["error"]?["code"] == -32060)
        // A token was sent: the refusal says it was the wrong one, not that none came.
        let wrongMessage = wrong.json?["error"]?["message"]?.stringValue ?? ""
        #expect(
            wrongMessage.contains("is not lumend's") && !wrongMessage.contains("send 'Authorization"), "\(wrongMessage)"
        )
        let with = try await post(openSimulation, session: try await hello(token: Self.token))
        #expect(with.json?["result"]?["type"] == "simulation")
    }

    @Test func foreignOriginsAndHostsAreRefused() async throws {
        defer { task.cancel() }
        let hello = #"{"jsonrpc":"2.0","id":1,"method":"hello"}"#
        let foreign = try await request("POST", "/rpc", hello, headers: [("Origin", "http://evil.example")])
        #expect(foreign.status == 403 && foreign.json?["error"]?["code"] == -32060)
        let own = try await request("POST", "/rpc", hello, headers: [("Origin", "http://127.0.0.1:\(port)")])
        #expect(own.status == 200)
        // A DNS name rebound to 127.0.0.1 comes with its own Host, and the page's own Origin.
        let raw = try await HTTPTestClient.exchange(
            port,
            "POST /rpc HTTP/1.1\r\nHost: evil.example:\(port)\r\nOrigin: http://evil.example:\(port)\r\n"
                + "Connection: close\r\nContent-Length: \(hello.utf8.count)\r\n\r\n\(hello)")
        #expect(raw.hasPrefix("HTTP/1.1 403"))
    }

    @Test func badFirstRequestsUnknownSessionsAndOtherMethodsAreRefused() async throws {
        defer { task.cancel() }
        let notHello = try await request("POST", "/rpc", Self.call(1, "describe", "{}"))
        #expect(notHello.status == 400 && notHello.json?["error"]?["code"] == -32600)
        let unknown = try await post(Self.call(1, "describe", "{}"), session: "0123")
        #expect(unknown.status == 404 && unknown.json?["error"]?["code"] == -32070)
        #expect(unknown.json?["error"]?["data"] == nil)
        #expect(try await request("GET", "/rpc/events?session=0123").status == 404)
        #expect(try await request("GET", "/rpc").status == 405)
        #expect(try await request("PUT", "/rpc/events").status == 405)
        let session = try await hello()
        let notJSON = try await post("{nope", session: session)
        #expect(notJSON.status == 200 && notJSON.json?["error"]?["code"] == -32700)
        #expect(try await request("DELETE", "/rpc", headers: [("Lumen-Session", session)]).status == 204)
        #expect(try await post(Self.call(2, "describe", "{}"), session: session).status == 404)
    }

    @Test func sessionsWithoutAStreamExpireAndTheirSubscriptionsEnd() async throws {
        defer { task.cancel() }
        let idle = try await hello()
        _ = try await post(Self.call(1, "subscribe", #"{"scope":0,"connection":"name"}"#), session: idle)
        let watching = try await hello()
        let events = try HTTPStreamReader(port: port, path: "/rpc/events?session=\(watching)")
        _ = try await events.read(until: "retry:")
        #expect(await onLoop { front.sessionCount } == 2)
        // The sweep as it runs a minute and more later: the session with a stream stays, and is sent a comment.
        clock.advance(by: front.settings.sessionIdle + .seconds(1))
        await sweep()
        #expect(await onLoop { front.sessionCount } == 1)
        #expect(try await post(Self.call(2, "describe", "{}"), session: idle).status == 404)
        #expect(try await events.read(until: "keep-alive").contains(": keep-alive\n\n"))
        #expect(context.hub.subscriberCount(.home(.name)) == 0)
    }

    var context: ServerContext { front.context }

    /// A sweep of the front's sessions, now by its clock.
    func sweep() async { await onLoop { [front, clock] in front.sweep(now: clock.now) } }

    /// Runs `body` on the front's loop.
    func onLoop<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await front.loop.executeAndWait { _ in body() }
    }

    @Test func aHostMustBeAnAddressOrLocalhost() {
        let addresses = [
            "127.0.0.1", "127.0.0.1:8080", "localhost:80", "LOCALHOST", "[::1]:8080", "10.0.0.1:80", "[fe80::1]",
            "a.localhost",
        ]
        for host in addresses { #expect(HTTPAccess.namesAnAddress(host), "\(host)") }
        for host in ["evil.example", "evil.example:80", "", "localhost.evil.example", "[::1]evil", "pi.local:8080"] {
            #expect(!HTTPAccess.namesAnAddress(host), "\(host)")
        }
        #expect(RPCOverHTTP.equalInConstantTime("abc", "abc") && !RPCOverHTTP.equalInConstantTime("abc", "abd"))
    }

    @Test func anEndedSessionIsFreed() async throws {
        defer { task.cancel() }
        let id = try await hello()
        _ = try await post(Self.call(1, "subscribe", #"{"scope":0,"connection":"name"}"#), session: id)
        _ = try await post(Self.setName("Freed Home"), session: id)
        _ = try await HTTPStreamReader(port: port, path: "/rpc/events?session=\(id)").read(until: "Freed Home")
        let references: (Weak<HTTPSession>, Weak<EventLog>)? = await onLoop { [front] in
            front.session(id).map { (Weak($0), Weak($0.events)) }
        }
        let (session, log) = try #require(references)
        #expect(try await request("DELETE", "/rpc", headers: [("Lumen-Session", id)]).status == 204)
        // Its stream's close reaches the loop after the reply: a request later, all is let go.
        _ = try await post(Self.call(2, "describe", "{}"), session: try await hello())
        let freed = await onLoop { session.object == nil && log.object == nil }
        #expect(freed)
    }

    /// What lumend does as the listener stops: every session ends, and with it its stream and subscriptions.
    @Test func closingAllEndsEverySessionAndItsStream() async throws {
        defer { task.cancel() }
        let id = try await hello()
        _ = try await post(Self.call(1, "subscribe", #"{"scope":0,"connection":"name"}"#), session: id)
        let events = try HTTPStreamReader(port: port, path: "/rpc/events?session=\(id)")
        _ = try await events.read(until: "retry:")
        _ = try await hello()
        #expect(context.hub.subscriberCount(.home(.name)) == 1)
        #expect(await onLoop { front.sessionCount } == 2)
        await onLoop { [front] in front.closeAll() }
        #expect(await onLoop { front.sessionCount } == 0)
        #expect(
            try await events.read(until: "\r\n0\r\n\r\n").hasSuffix("\r\n0\r\n\r\n"), "the stream's chunked body ends")
        let after = try await post(Self.call(2, "get", #"{"scope":0,"connection":"name"}"#), session: id)
        #expect(after.status == 404 && after.json?["error"]?["code"] == -32070)
        #expect(context.hub.subscriberCount(.home(.name)) == 0)
    }

    @Test func aBrokenStreamGivesItsClientTheIdleTimeToReconnect() async throws {
        defer { task.cancel() }
        let id = try await hello()
        do {
            let events = try HTTPStreamReader(port: port, path: "/rpc/events?session=\(id)")
            _ = try await events.read(until: "retry:")
            // It stays open for ten minutes, with no request.
            clock.advance(by: .seconds(600))
            await sweep()
            let open = await onLoop { [front] in front.session(id)?.isQuiet == false }
            #expect(open, "an open stream keeps its session from being quiet")
        }
        // Closed by its client; the server sees the hang-up as it happens.
        while await onLoop({ [front] in front.session(id)?.isQuiet == false }) { await sweep() }
        // Its client has the idle time from then to reconnect.
        let idle = front.settings.sessionIdle
        clock.advance(by: idle - .seconds(1))
        await sweep()
        let kept = await onLoop { [front] in front.session(id) != nil }
        #expect(kept)
        clock.advance(by: .seconds(2))
        await sweep()
        #expect(try await post(Self.call(4, "describe", "{}"), session: id).status == 404)
    }

    @Test func aWriteWaitingForTheClockKeepsItsSessionOnlyUntilItsClientIsAnswered() async throws {
        defer { task.cancel() }
        let id = try await hello()
        let openRoom = Self.call(1, "open", #"{"scope":0,"connection":"room","configuration":"living-room"}"#)
        let room = try #require(try await post(openRoom, session: id).json?["result"]?["scope"]?.intValue)
        let openLight = Self.call(
            2, "open", #"{"scope":\#(room),"connection":"light","configuration":"living-room.ceiling"}"#)
        let light = try #require(try await post(openLight, session: id).json?["result"]?["scope"]?.intValue)
        // Nobody moves the virtual clock: the write waits.
        let set = Self.call(3, "set", #"{"scope":\#(light),"connection":"isOn","value":false}"#)
        Task { [self] in _ = try? await post(set, session: id) }
        while await onLoop({ [front] in front.session(id)?.isQuiet ?? true }) { await Task.yield() }
        let (idle, wait) = (front.settings.sessionIdle, front.settings.answerWait)
        clock.advance(by: idle + .seconds(1))
        await sweep()
        let kept = await onLoop { [front] in front.session(id) != nil }
        #expect(kept)
        clock.advance(by: wait)
        await sweep()
        let ended = await onLoop { [front] in front.session(id) == nil }
        #expect(ended)
    }
}

/// A weak reference, to see that something was freed; behind a lock, so that it may pass between the test and
/// the loop.
final class Weak<Object: AnyObject & Sendable>: Sendable {
    private struct Reference {
        weak var object: Object?
    }
    private let reference: Locked<Reference>

    init(_ object: Object) { reference = Locked(Reference(object: object)) }

    var object: Object? { reference.withLock { $0.object } }
}

@Suite("The scope protocol over HTTP: the session limit", .timeLimit(.minutes(1)))
struct RPCOverHTTPLimitTests {
    @Test func atTheLimitTheQuietestSessionMakesRoomElseHelloIsRefused() async throws {
        let http = try await RPCOverHTTPTests(maxSessions: 2)
        defer { http.task.cancel() }
        let quiet = try await http.hello()
        let watching = try await http.hello()
        let stream = try HTTPStreamReader(port: http.port, path: "/rpc/events?session=\(watching)")
        _ = try await stream.read(until: "retry:")
        // The session with no stream and nothing waiting gives its place up.
        let third = try await http.hello()
        #expect(try await http.post(RPCOverHTTPTests.call(1, "describe", "{}"), session: quiet).status == 404)
        let other = try HTTPStreamReader(port: http.port, path: "/rpc/events?session=\(third)")
        _ = try await other.read(until: "retry:")
        // Both stream: nobody gives way.
        let refused = try await http.request("POST", "/rpc", #"{"jsonrpc":"2.0","id":1,"method":"hello"}"#)
        #expect(refused.status == 503 && refused.json?["error"]?["code"] == -32020)
        #expect(refused.json?["error"]?["message"]?.stringValue?.contains("DELETE /rpc") == true)
    }

    /// Anyone who reaches the listener can open sessions, so those without the token hold their subscriptions
    /// from one budget; the owner's sessions are held only to a session's own limit.
    @Test func sessionsWithoutTheTokenShareOneBudgetOfSubscriptionsThatTheOwnersAreNotHeldTo() async throws {
        let http = try await RPCOverHTTPTests(maxSharedSubscriptions: 3)
        defer { http.task.cancel() }
        let subscribeToName = RPCOverHTTPTests.call(1, "subscribe", #"{"scope":0,"connection":"name"}"#)
        let first = try await http.hello()
        let second = try await http.hello()
        for _ in 0..<2 { #expect(try await http.post(subscribeToName, session: first).json?["result"] != nil) }
        let third = try await http.post(subscribeToName, session: second)
        #expect(third.json?["result"]?["seq"] == 0)
        let refused = try await http.post(subscribeToName, session: second).json?["error"]
        #expect(refused?["code"] == -32020)
        #expect(refused?["message"]?.stringValue?.contains("3 subscriptions together") == true)
        // The owner is not refused for what others hold.
        let owner = try await http.hello(token: RPCOverHTTPTests.token)
        for _ in 0..<4 { #expect(try await http.post(subscribeToName, session: owner).json?["result"] != nil) }
        // Unsubscribing, or ending a session, gives its subscriptions back.
        let subscription = try #require(third.json?["result"]?["subscription"]?.intValue)
        let unsubscribe = #"{"jsonrpc":"2.0","id":2,"method":"unsubscribe","params":{"subscription":\#(subscription)}}"#
        #expect(try await http.post(unsubscribe, session: second).json?["result"] != nil)
        #expect(try await http.post(subscribeToName, session: second).json?["result"] != nil)
        #expect(try await http.request("DELETE", "/rpc", headers: [("Lumen-Session", first)]).status == 204)
        for _ in 0..<2 { #expect(try await http.post(subscribeToName, session: second).json?["result"] != nil) }
        #expect(try await http.post(subscribeToName, session: second).json?["error"]?["code"] == -32020)
        #expect(http.context.sharedSubscriptionCount == 3)
        // Closing a scope ends its subscriptions, and gives them back too.
        #expect(try await http.request("DELETE", "/rpc", headers: [("Lumen-Session", second)]).status == 204)
        let last = try await http.hello()
        let opened = try await http.post(
            RPCOverHTTPTests.call(3, "open", #"{"scope":0,"connection":"room","configuration":"living-room"}"#),
            session: last)
        let room = try #require(opened.json?["result"]?["scope"]?.intValue, "\(opened.body)")
        let inRoom = RPCOverHTTPTests.call(4, "subscribe", #"{"scope":\#(room),"connection":"name"}"#)
        #expect(try await http.post(inRoom, session: last).json?["result"] != nil)
        #expect(http.context.sharedSubscriptionCount == 1)
        _ = try await http.post(RPCOverHTTPTests.call(5, "close", #"{"scope":\#(room)}"#), session: last)
        #expect(http.context.sharedSubscriptionCount == 0)
    }

    @Test func aHelloWithTheTokenIsAnsweredWhenEverySessionStreams() async throws {
        let http = try await RPCOverHTTPTests(maxSessions: 2)
        defer { http.task.cancel() }
        var readers: [HTTPStreamReader] = []
        for _ in 0..<2 {
            let id = try await http.hello()
            readers.append(try HTTPStreamReader(port: http.port, path: "/rpc/events?session=\(id)"))
            _ = try await readers.last!.read(until: "retry:")
        }
        // Anyone who reaches the listener could open these: the one who runs lumend still gets in.
        let owner = try await http.hello(token: RPCOverHTTPTests.token)
        let admitted = await http.onLoop { [front = http.front] in front.session(owner) != nil }
        #expect(admitted)
        let refused = try await http.request("POST", "/rpc", #"{"jsonrpc":"2.0","id":1,"method":"hello"}"#)
        #expect(refused.status == 503)
    }

    @Test func aSessionWhoseStreamJustBrokeIsNotTheFirstToMakeRoom() async throws {
        let http = try await RPCOverHTTPTests(maxSessions: 2)
        defer { http.task.cancel() }
        let watching = try await http.hello()
        do {
            let stream = try HTTPStreamReader(port: http.port, path: "/rpc/events?session=\(watching)")
            _ = try await stream.read(until: "retry:")
            // It streams for ten minutes with no request; another session makes one then.
            http.clock.advance(by: .seconds(600))
            _ = try await http.hello()
            http.clock.advance(by: .seconds(10))
        }
        // Its stream breaks, ten seconds after the other's last request.
        while await http.onLoop({ [front = http.front] in front.session(watching)?.isQuiet == false }) {
            await http.sweep()
        }
        _ = try await http.hello()
        #expect(try await http.post(RPCOverHTTPTests.call(1, "describe", "{}"), session: watching).status == 200)
    }
}

/// An instant that moves only when a test moves it.
final class ManualInstant: Sendable {
    private let offset = Locked(Duration.zero)
    private let start = ContinuousClock.now

    var now: ContinuousClock.Instant { start + offset.withLock { $0 } }

    func advance(by duration: Duration) { offset.withLock { $0 += duration } }
}
