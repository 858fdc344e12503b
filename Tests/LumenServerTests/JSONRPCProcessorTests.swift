import LumenModel
import LumenProtocol
import LumenServer
import Synchronization
import Testing

/// A handler that answers `later` with an outcome that comes later, `after` after work, and counts what it
/// was asked.
final class LaterHandler: RPCHandler {
    let answered = Atomic<Int>(0)
    let laterSent = Atomic<Int>(0)

    func decode(method: String, params: JSONValue?) -> String { method }

    func answer(_ method: String, reply: Reply) -> RPCWork? {
        answered.add(1, ordering: .relaxed)
        switch method {
        case "later":
            Task {
                reply.send(.success("settled"))
                self.laterSent.add(1, ordering: .relaxed)
            }
        case "after": return { reply.send(.success("worked")) }
        default: reply.send(.success("handled"))
        }
        return nil
    }
}

@Suite("Answering at once", .timeLimit(.minutes(1)))
struct JSONRPCProcessorTests {
    @Test func aRequestAnsweredLaterIsHandedOverOnceAndAnsweredWhenItSettles() async throws {
        let handler = LaterHandler()
        let processor = JSONRPCProcessor(handler: handler)
        let (replies, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        let left = processor.processNow(
            line: Array(#"{"jsonrpc":"2.0","id":7,"method":"later"}"#.utf8),
            replies: RepliesAsFilled { continuation.yield($0) })
        #expect(left == nil, "nothing left for the asynchronous path")
        var iterator = replies.makeAsyncIterator()
        let reply = try JSONParser.parse(try #require(await iterator.next()))
        #expect(reply == ["jsonrpc": "2.0", "result": "settled", "id": 7])
        #expect(handler.answered.load(ordering: .relaxed) == 1, "handed over once")
        // Told once the reply was handed over (which happens just before).
        while handler.laterSent.load(ordering: .relaxed) == 0 { await Task.yield() }
        #expect(handler.laterSent.load(ordering: .relaxed) == 1)
    }

    @Test func aNotificationAnsweredLaterIsWorkedButNotAnswered() async throws {
        let handler = LaterHandler()
        let processor = JSONRPCProcessor(handler: handler)
        let replies = Locked<Int>(0)
        let left = processor.processNow(
            line: Array(#"{"jsonrpc":"2.0","method":"later"}"#.utf8),
            replies: RepliesAsFilled { _ in replies.withLock { $0 += 1 } })
        #expect(left == nil)
        while handler.laterSent.load(ordering: .relaxed) == 0 { await Task.yield() }
        #expect(replies.withLock { $0 } == 0)
        #expect(handler.answered.load(ordering: .relaxed) == 1)
    }

    /// Work the next requests wait for is left to the caller, which answers once it is done.
    @Test func workARequestNeedsFirstIsLeftPendingAndThenAnswered() async throws {
        let processor = JSONRPCProcessor(handler: LaterHandler())
        let replies = Locked<[[UInt8]]>([])
        let reply: @Sendable ([UInt8]) -> Void = { bytes in replies.withLock { $0.append(bytes) } }
        let pending = try #require(
            processor.processNow(
                line: Array(#"{"jsonrpc":"2.0","id":1,"method":"after"}"#.utf8), replies: RepliesAsFilled(reply)))
        #expect(replies.withLock { $0 }.isEmpty, "not answered before its work is done")
        await processor.finish(pending)
        let answers = try replies.withLock { $0 }.map { try JSONParser.parse($0) }
        #expect(answers == [["jsonrpc": "2.0", "result": "worked", "id": 1]])
    }
}

@Suite("A large batch, parsed in slices", .timeLimit(.minutes(1)))
struct LargeBatchTests {
    /// A batch of `count` `hello`s, its `broken`th element (if any) not JSON: long enough to be parsed in slices.
    func batch(_ count: Int, broken: Int? = nil) -> [UInt8] {
        let elements = (0..<count).map { index in
            index == broken
                ? #"{"jsonrpc":"2.0","id":\#(index),"method":hello}"#
                : #"{"jsonrpc":"2.0","id":\#(index),"method":"hello"}"#
        }
        return Array(("[" + elements.joined(separator: ", ") + "]").utf8)
    }

    func replies(to line: [UInt8], handler: LaterHandler) async -> [JSONValue] {
        let processor = JSONRPCProcessor(handler: handler)
        let replies = Locked<[[UInt8]]>([])
        await processor.process(line: line, replies: RepliesAsFilled { reply in replies.withLock { $0.append(reply) } })
        return replies.withLock { $0 }.compactMap { try? JSONParser.parse($0) }
    }

    @Test func itIsAnsweredAsTheSameBatchParsedWholeWouldBe() async throws {
        let line = batch(1_000)
        #expect(JSONRPCProcessor<LaterHandler>.isLargeBatch(line))
        let handler = LaterHandler()
        let answer = try #require(await replies(to: line, handler: handler).first)
        #expect(answer.arrayValue?.count == 1_000)
        #expect(answer.arrayValue?.last == ["jsonrpc": "2.0", "result": "handled", "id": 999])
        #expect(handler.answered.load(ordering: .relaxed) == 1_000)
    }

    @Test func anElementThatIsNotJSONMakesTheWholeLineAParseErrorAndNothingIsCarriedOut() async throws {
        let line = batch(1_000, broken: 900)
        let handler = LaterHandler()
        let answers = await replies(to: line, handler: handler)
        #expect(answers.count == 1)
        #expect(answers.first?["error"]?["code"] == -32700)
        // Where in the line, as a parse of the whole line would say.
        let whole = Array(line)
        let offset = try #require(whole.indices.first { whole[$0...].starts(with: Array("hello}".utf8)) })
        #expect(answers.first?["error"]?["message"]?.stringValue?.hasSuffix("at byte \(offset)") == true, "\(answers)")
        #expect(answers.first?["id"] == .null)
        #expect(handler.answered.load(ordering: .relaxed) == 0)
    }
}
