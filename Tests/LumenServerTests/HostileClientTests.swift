import Foundation
import LumenModel
import LumenProtocol
import LumenTestSupport
import Testing

@testable import LumenServer

@Suite("Hostile and broken clients", .timeLimit(.minutes(2)))
struct HostileClientTests {
    /// Thousands of requests in one write fill the connection's queue, suspend its reading and resume it many
    /// times over: each is answered once, in the order sent, whichever were answered as read and whichever waited.
    @Test func requestsSentInOneGoAreEachAnsweredOnceInOrder() async throws {
        let server = try await TestServer()
        let client = try server.connect()
        let count = 5_000
        let methods = ["get", "describe", "get", "hello"]
        let requests = (1...count).map { id in
            let method = methods[id % methods.count]
            let params = method == "get" ? #","params":{"scope":0,"connection":"name"}"# : ""
            return #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)"\#(params)}"# + "\n"
        }
        let sending = Task { await offload { client.sendRaw(Array(requests.joined().utf8)) } }
        var ids: [Int] = []
        for _ in 1...count {
            let reply = try await client.readJSON()
            #expect(reply["error"] == nil, "\(reply.serialized())")
            ids.append(reply["id"]?.intValue ?? -1)
        }
        await sending.value
        #expect(ids == Array(1...count))
    }

    @Test func badLinesGetTheirErrorAndTheSessionCarriesOn() async throws {
        let server = try await TestServer()
        let client = try server.connect()
        // Each with the id it is answered under: null where none can be read.
        let cases: [([UInt8], Int, JSONValue)] = [
            (Array("garbage".utf8), -32700, .null),
            ([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D], -32700, .null),  // invalid UTF-8
            ([0x7B, 0x00, 0x7D], -32700, .null),  // a NUL byte
            (
                Array((String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)).utf8), -32020,
                .null
            ),
            (Array(#"{"jsonrpc":"1.0","id":1,"method":"hello"}"#.utf8), -32600, 1),
            (Array(#"{"jsonrpc":"2.0","id":{},"method":"hello"}"#.utf8), -32600, .null),
        ]
        for (line, code, id) in cases {
            client.sendRaw(line + [0x0A])
            let reply = try await client.readJSON()
            #expect(reply["error"]?["code"]?.intValue == code, "\(reply.serialized())")
            #expect(reply["id"] == id)
        }
        #expect(try await client.result("hello")["server"] == "lumend")
    }

    @Test func aTenMebibyteLineIsRefusedAndTheRestOfItSkipped() async throws {
        let server = try await TestServer()
        let client = try server.connect()
        let other = try server.connect()
        let huge = [UInt8](repeating: UInt8(ascii: "a"), count: 10 << 20)
        // A blocking send: on a thread of its own, not one of the pool the server's tasks need.
        let sender = Task { await offload { client.sendRaw(Array(#"{"x":""#.utf8) + huge + Array("\"}\n".utf8)) } }
        let reply = try await client.readJSON()
        #expect(reply["error"]?["code"] == -32020)
        #expect(reply["error"]?["message"]?.stringValue?.contains("longer than 1048576 bytes") == true)
        await sender.value
        // Others were served meanwhile, and this client can go on.
        #expect(try await other.result("hello")["server"] == "lumend")
        #expect(try await client.result("hello")["server"] == "lumend")
    }

    @Test func aClientThatSendsHalfALineAndWaitsHoldsUpNobody() async throws {
        let server = try await TestServer()
        let stuck = try server.connect()
        stuck.sendRaw(Array(#"{"jsonrpc":"2.0","id":1,"meth"#.utf8))
        let other = try server.connect()
        #expect(try await other.result("hello")["server"] == "lumend")
        // When the rest arrives, the line is answered.
        stuck.send(#"od":"hello"}"#)
        #expect(try await stuck.readJSON()["result"]?["server"] == "lumend")
    }

    @Test func aClientThatStopsReadingIsDisconnectedAndSlowsNobody() async throws {
        var limits = ServerLimits()
        limits.maxPendingReplyBytes = 64 * 1_024
        let server = try await TestServer(limits: limits)
        let reader = try server.connect()
        let greedy = try server.connect()
        _ = try await greedy.result("hello")
        #expect(server.server.sessionCount == 2)
        // Ask for far more than the kernel buffers and the reply limit hold, never reading.
        let request = Array((#"{"jsonrpc":"2.0","id":1,"method":"describe"}"# + "\n").utf8)
        let sender = Task {
            await offload {
                var batch: [UInt8] = []
                for _ in 0..<200 { batch += request }
                for _ in 0..<10 { greedy.sendRaw(batch) }
            }
        }
        #expect(try await reader.result("hello")["server"] == "lumend")
        #expect(await greedy.waitForHangUp())
        await sender.value
        #expect(try await reader.result("hello")["server"] == "lumend")
        #expect(server.server.sessionCount == 1)
    }

    /// Clients that do not read hold, past a share each, one budget together, not each its own limit: here each
    /// asks for a quarter of its limit, which alone would keep it served.
    @Test func clientsThatStopReadingAreDisconnectedOnceTogetherTheyHoldTheSharedBudget() async throws {
        var limits = ServerLimits()
        limits.ownUnsentReplyBytes = 4 * 1_024
        limits.maxSharedUnsentReplyBytes = 64 * 1_024
        let server = try await TestServer(limits: limits)
        let reader = try server.connect()
        let replyBytes = try await reader.result("describe").serialized().utf8.count
        let count = limits.maxPendingReplyBytes / 4 / replyBytes
        let request = Array((#"{"jsonrpc":"2.0","id":1,"method":"describe"}"# + "\n").utf8)
        let greedy = try (0..<2).map { _ in try server.connectAsAnotherUser() }
        let senders = greedy.map { (client, _) in
            Task { await offload { for _ in 0..<count { client.sendRaw(request) } } }
        }
        for (client, _) in greedy { #expect(await client.waitForHangUp()) }
        for sender in senders { await sender.value }
        #expect(server.server.context.unsentReplies.sharedInUse == 0)
        #expect(try await reader.result("hello")["server"] == "lumend")
        withExtendedLifetime(greedy) {}
    }

    /// The owner's sessions (root's and lumend's user's) draw on no budget others share: others cannot lock them
    /// out of subscribing or disconnect them for what they leave unread.
    @Test func theOwnersSessionsDrawOnNoSharedBudget() async throws {
        let server = try await TestServer()
        let context = server.server.context
        let loop = server.server.eventLoops.loops[0]
        for (uid, owns) in [(UInt32(0), true), (getuid(), true), (4_242, false)] {
            let peer = PeerCredentials(pid: 1, uid: uid, gid: uid)
            let session = Session(
                id: 3_000, context: context, simulationRefusal: server.server.simulationRefusal(peer),
                isOwner: server.server.isOwner(peer), eventLoop: loop
            ) {}
            #expect(session.isOwner == owns)
            #expect((session.outbox.budget === context.unsentReplies) == !owns, "uid \(uid)")
        }
    }

    /// The reply limit is for clients that do not read: a client that asks for one reply larger than it (a
    /// large home's snapshot) and reads it gets it.
    @Test func aReplyLargerThanTheReplyLimitReachesAClientThatReadsIt() async throws {
        var limits = ServerLimits()
        limits.maxPendingReplyBytes = 1_024
        let server = try await TestServer(limits: limits)
        let client = try server.connect()
        let described = try await client.result("describe")
        #expect(described.serialized().utf8.count > 1_024)
        #expect(try await client.result("hello")["server"] == "lumend")
        // Requests sent together, each large reply followed by a small one: each is judged on its own.
        client.sendRaw(
            Array(
                String(
                    repeating: #"{"jsonrpc":"2.0","id":"d","method":"describe"}"# + "\n"
                        + #"{"jsonrpc":"2.0","id":"h","method":"hello"}"# + "\n", count: 3
                ).utf8))
        for _ in 0..<3 {
            #expect(try await client.readJSON()["id"] == "d")
            #expect(try await client.readJSON()["id"] == "h")
        }
        #expect(server.server.sessionCount == 1)
    }

    /// A batch is one reply, and a line of a mebibyte can hold thousands of requests: once a batch's replies
    /// pass the reply limit, the requests after are not carried out, each answered -32020 under its own ID so
    /// that the client can send them again.
    @Test func aBatchStopsBeingCarriedOutOnceItsRepliesPassTheLimit() async throws {
        var limits = ServerLimits()
        limits.maxPendingReplyBytes = 8 * 1_024
        let server = try await TestServer(limits: limits)
        let client = try server.connect()
        let describes = (0..<100).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"describe"}"# }
        let rename =
            #"{"jsonrpc":"2.0","id":"rename","method":"set","params":{"scope":0,"connection":"name","value":"R"}}"#
        client.send("[" + (describes + [rename]).joined(separator: ",") + "]")
        let replies = try #require(try await client.readJSON().arrayValue)
        #expect(replies.map { $0["id"] } == (0..<100).map { JSONValue.int($0) } + ["rename"])
        let answered = replies.prefix { $0["result"] != nil }
        #expect((1...5).contains(answered.count), "\(answered.count) answered")
        for reply in replies.dropFirst(answered.count) {
            #expect(reply["error"]?["code"] == -32020)
        }
        let message = replies.last?["error"]?["message"]?.stringValue
        #expect(message == "not carried out: this batch's replies passed 8192 bytes; send the rest in another batch")
        #expect(try await client.result("get", ["scope": 0, "connection": "name"])["value"] != "R")
        #expect(server.server.sessionCount == 1)
    }

    @Test func clientsThatConnectAndHangUpAtOnceDoNotHurtTheServer() async throws {
        let server = try await TestServer()
        for round in 0..<200 {
            let client = try server.connect()
            if round % 2 == 0 { client.send(#"{"jsonrpc":"2.0","id":1,"method":"hello"}"#) }
        }
        #expect(try await server.connect().result("hello")["server"] == "lumend")
    }

    @Test func batchesAreAnsweredAsOneArrayEvenWithWritesInside() async throws {
        let server = try await TestServer()
        let client = try server.connect()
        let plug = try await client.openLight("lab", "lab.plug")
        let simulation = try await client.openSimulation()
        client.send(
            #"[{"jsonrpc":"2.0","id":"s","method":"set","params":{"scope":\#(plug.serialized()),"connection":"isOn","value":true}},"#
                + #"{"jsonrpc":"2.0","method":"hello"},{"jsonrpc":"2.0","id":"g","method":"get","params":{"scope":0,"connection":"name"}}]"#
        )
        // The batch's one reply comes before the advance's, which its write waits for.
        client.send(
            #"{"jsonrpc":"2.0","id":"advance","method":"call","params":{"scope":\#(simulation.serialized()),"connection":"advance","arguments":{"ms":0}}}"#
        )
        let reply = try await client.readJSON()
        #expect(reply.arrayValue?.map { $0["id"] } == ["s", "g"])
        #expect(reply.arrayValue?.first?["result"] == ["value": true])
    }

    @Test func anErrorEchoesAHugeInputOnlyInPart() async throws {
        let server = try await TestServer()
        let client = try server.connect()
        let huge = String(repeating: "x", count: 900_000)
        // A send this big blocks until the server reads it: off the shared threads the server accepts on.
        await offload {
            client.send(
                #"{"jsonrpc":"2.0","id":1,"method":"open","params":{"scope":0,"connection":"room","configuration":"\#(huge)"}}"#
            )
        }
        let line = try await client.readLine()
        #expect(line.utf8.count < 4_096, "a \(line.utf8.count)-byte reply")
        let reply = try JSONParser.parse(Array(line.utf8))
        #expect(reply["error"]?["code"] == -32004)
        #expect(reply["error"]?["message"]?.stringValue?.contains("more characters") == true)
    }
}
