import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import LumenTestSupport
import Synchronization
import Testing

@testable import LumenServer

@Suite("Plain requests in a session", .timeLimit(.minutes(1)))
struct PlainRequestSessionTests {
    /// A session on a home of its own, instant lights on the real clock, so a write is confirmed at once.
    static func session(readsPlainRequests: Bool) throws -> (InProcessSession, Home) {
        let home = Home(fixture: try Fixture(json: Array(TestFixtures.instantHome.utf8)), clock: .real)
        let session = InProcessSession(
            scopeContext: ScopeContext(home: home), limits: ServerLimits(), readsPlainRequests: readsPlainRequests)
        return (session, home)
    }

    static func request(_ id: String, _ method: String, _ params: String) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":{\#(params)}}"#
    }

    /// Requests of the plain shape and near it, right and wrong; scope 1 is the room `lab`, 2 its dimmer, 3 its
    /// plug, 4 its colour light.
    static let lines: [String] = [
        request("1", "get", #""scope":0,"connection":"name""#),
        request("2", "get", #""scope":0,"connection":"roomIDs""#),
        request("3", "get", #""scope":1,"connection":"lightIDs""#),
        request("4", "get", #""scope":2,"connection":"brightness""#),
        request("5", "get", #""scope":3,"connection":"isOn""#),
        request("6", "get", #""scope":2,"connection":"isReachable""#),
        request("7", "get", #""scope":2,"connection":"model""#),
        request("8", "get", #""scope":2,"connection":"nope""#),
        request("9", "get", #""scope":99,"connection":"name""#),
        request("10", "get", #""scope":1.5,"connection":"name""#),
        request("11", "get", #""scope":-0,"connection":"name""#),
        request("12", "get", #""scope":2.0,"connection":"brightness""#),
        request("13", "get", #""scope":1,"connection":"light""#),
        request("14", "get", #""scope":0,"connection":"name","value":1"#),
        request("15", "get", #""scope":0,"connection":"name","transitionMs":0"#),
        request(#""s""#, "set", #""scope":0,"connection":"name","value":"Home 2""#),
        request("16", "get", #""scope":0,"connection":"name""#),
        request("17", "set", #""scope":2,"connection":"brightness","value":75"#),
        request("18", "get", #""scope":2,"connection":"brightness""#),
        request("19", "set", #""scope":2,"connection":"brightness","value":0"#),
        request("20", "set", #""scope":2,"connection":"brightness","value":101"#),
        request("21", "set", #""scope":2,"connection":"brightness","value":"x""#),
        request("22", "set", #""scope":2,"connection":"brightness","value":true"#),
        request("23", "set", #""scope":3,"connection":"isOn","value":true"#),
        request("24", "set", #""scope":3,"connection":"isOn","value":1"#),
        request("25", "set", #""scope":2,"connection":"colorTemperature","value":300"#),
        request("26", "set", #""scope":2,"connection":"isReachable","value":true"#),
        request("27", "set", #""scope":1,"connection":"light","value":"lab.dim""#),
        request("28", "set", #""scope":4,"connection":"isOn","value":false,"transitionMs":0"#),
        request("29", "set", #""scope":4,"connection":"isOn","value":true,"transitionMs":-1"#),
        request("30", "set", #""scope":4,"connection":"isOn","value":true,"transitionMs":1e9"#),
        request("31", "set", #""scope":4,"connection":"isOn","value":true,"transitionMs":3600000.5"#),
        request("32", "set", #""scope":2,"connection":"brightness","value":null"#),
        request("33", "set", #""scope":2,"connection":"brightness","value":40,"extra":1"#),
        request("34", "set", #""scope":2,"connection":"nope","value":40"#),
        request("35", "set", #""scope":9,"connection":"name","value":"x""#),
        request("36", "set", #""scope":0,"connection":"name""#),
        request("37", "open", #""scope":0,"connection":"room""#),
        request(#""abc""#, "get", #""scope":4,"connection":"isOn""#),
        request("1.50", "get", #""scope":4,"connection":"isOn""#),
        request("-0", "get", #""scope":4,"connection":"isOn""#),
        request("1e3", "get", #""scope":4,"connection":"isOn""#),
        request("12345678901234567890", "get", #""scope":4,"connection":"isOn""#),
        request("null", "get", #""scope":4,"connection":"isOn""#),
        request("39", "nope", #""scope":0,"connection":"name""#),
        #"{"jsonrpc":"2.0","method":"set","params":{"scope":3,"connection":"isOn","value":false}}"#,
        request("40", "get", #""scope":3,"connection":"isOn""#),
        #"{ "params" : { "value" : 60 , "connection" : "brightness" , "scope" : 2 } , "method" : "set" , "id" : 41 , "jsonrpc" : "2.0" }"#,
        request("42", "get", #""scope":2,"connection":"brightness""#),
    ]

    /// The plain reader and the parser decode a line into the same call, whatever is wrong with it.
    @Test func aPlainLineDecodesIntoTheCallItsParseDecodesInto() async throws {
        let (session, home) = try Self.session(readsPlainRequests: true)
        var plainLines = 0
        for line in Self.lines {
            let (plain, parsed) = session.readings(of: Array(line.utf8))
            guard let plain else { continue }
            plainLines += 1
            #expect(plain == parsed, "\(line)")
        }
        #expect(plainLines > Self.lines.count / 2, "most of these lines are of the plain shape")
        await session.close()
        await home.shutDown()
    }

    @Test func aSessionAnswersPlainRequestsAsItAnswersTheSameLinesReadAsATree() async throws {
        let (plain, plainHome) = try Self.session(readsPlainRequests: true)
        let (general, generalHome) = try Self.session(readsPlainRequests: false)
        let opens = [
            Self.request(#""r""#, "open", #""scope":0,"connection":"room","configuration":"lab""#),
            Self.request(#""d""#, "open", #""scope":1,"connection":"light","configuration":"lab.dim""#),
            Self.request(#""p""#, "open", #""scope":1,"connection":"light","configuration":"lab.plug""#),
            Self.request(#""c""#, "open", #""scope":1,"connection":"light","configuration":"lab.color""#),
        ]
        for line in opens + Self.lines {
            let bytes = Array(line.utf8) + [0x0A]
            let fromPlain = String(decoding: await plain.feed(bytes), as: UTF8.self)
            let fromGeneral = String(decoding: await general.feed(bytes), as: UTF8.self)
            #expect(fromPlain == fromGeneral, "answered differently: \(line)")
        }
        await plain.close()
        await general.close()
        await plainHome.shutDown()
        await generalHome.shutDown()
    }

    @Test func aPublishedGetIsAnsweredAtOnceAndASetAfterATripToTheHome() async throws {
        let (session, home) = try Self.session(readsPlainRequests: true)
        _ = await session.feed(
            Array(Self.request("1", "open", #""scope":0,"connection":"room","configuration":"lab""#).utf8) + [0x0A])
        _ = await session.feed(
            Array(Self.request("2", "open", #""scope":1,"connection":"light","configuration":"lab.dim""#).utf8)
                + [0x0A])
        // A value is published once the actor has read it; until then a get goes the asynchronous way.
        _ = await session.feed(
            Array(Self.request("3", "get", #""scope":2,"connection":"brightness""#).utf8) + [0x0A])
        /// Whether the session answers a plain line at once (its reply, when so) or leaves work to do first,
        /// asked on the session's loop.
        func answered(_ line: String) async throws -> (reply: [UInt8]?, leftWork: Bool) {
            #expect(PlainRequest(line: Array(line.utf8)) != nil, "a plain line")
            let session = session.session
            return await Task(executorPreference: InProcessSession.loop) {
                let replies = Mutex<[UInt8]?>(nil)
                let sink = RepliesAsFilled { bytes in replies.withLock { $0 = bytes } }
                let processor = JSONRPCProcessor(handler: session)
                let work = processor.processNow(line: Array(line.utf8), replies: sink)
                return (replies.withLock { $0 }, work != nil)
            }.value
        }
        // A write is made on the home's own loop: it is answered after that work.
        let set = Self.request("3", "set", #""scope":2,"connection":"brightness","value":30"#)
        let setAnswer = try await answered(set)
        #expect(setAnswer.leftWork && setAnswer.reply == nil, "a set was answered without going to the home")
        #expect(String(decoding: await session.feed(Array(set.utf8) + [0x0A]), as: UTF8.self).contains(#""value":30"#))
        let get = try await answered(Self.request("4", "get", #""scope":2,"connection":"brightness""#))
        #expect(!get.leftWork, "a get of a published value was not answered at once")
        #expect(try get.reply.map { try JSONParser.parse($0)["result"] } == ["value": 30])
        // An error is answered after, where it is worded with its request's context.
        let error = try await answered(Self.request("5", "get", #""scope":2,"connection":"nope""#))
        #expect(error.leftWork && error.reply == nil, "a get of no connection was answered at once")
        await session.close()
        await home.shutDown()
    }

    /// A write refused as it is made (a light that is off and takes no brightness while off, answering at
    /// once) is answered with the request's context, whichever way its line was read.
    @Test func aWriteRefusedAsItIsMadeNamesItsRequestWhicheverWayItWasRead() async throws {
        let fixture = """
            {"schema": 1, "id": "off", "name": "Off", "seed": 1, "defaults": {"latency": "instant"}, "rooms": [
              {"id": "lab", "name": "Lab", "lights": [
                {"id": "lab.lamp", "name": "Lamp", "kind": "dimmable", "whileOff": "refuse", "state": {"isOn": false}}
              ]}]}
            """
        var answers: [String] = []
        for readsPlain in [true, false] {
            let home = Home(fixture: try Fixture(json: Array(fixture.utf8)), clock: .real)
            let session = InProcessSession(
                scopeContext: ScopeContext(home: home), limits: ServerLimits(), readsPlainRequests: readsPlain)
            for line in [
                Self.request(#""r""#, "open", #""scope":0,"connection":"room","configuration":"lab""#),
                Self.request(#""l""#, "open", #""scope":1,"connection":"light","configuration":"lab.lamp""#),
            ] { _ = await session.feed(Array(line.utf8) + [0x0A]) }
            let set = Self.request("1", "set", #""scope":2,"connection":"brightness","value":20"#)
            answers.append(String(decoding: await session.feed(Array(set.utf8) + [0x0A]), as: UTF8.self))
            await session.close()
            await home.shutDown()
        }
        #expect(answers[0] == answers[1])
        #expect(answers[0].contains("lab.lamp"), "\(answers[0])")
    }
}
