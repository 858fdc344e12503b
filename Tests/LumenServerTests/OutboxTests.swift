import LumenLoop
import LumenModel
import LumenProtocol
import Synchronization
import Testing

@testable import LumenServer

/// Runs `body` on an event loop of its own, where an outbox may be touched, and stops the loop after.
func onTestLoop<T: Sendable>(_ body: @escaping @Sendable (EventLoop) throws -> T) async throws -> T {
    let loop = EventLoop(name: "test-loop")
    let result = await Task(executorPreference: loop) { Result { try body(loop) } }.value
    await loop.shutDown()
    return try result.get()
}

extension Outbox {
    /// Publishes `value` as a change would.
    func publish(_ id: UInt64, value: JSONValue) { publish(id, encodedValue: Array(value.serialized().utf8)) }
}

@Suite("Outbox coalescing", .timeLimit(.minutes(2)))
struct OutboxTests {
    @Test func aSlowReaderGetsTheLatestValueAndSeqShowsWhatItSkipped() async throws {
        try await onTestLoop { loop throws in
            let wakes = Atomic<Int>(0)
            let outbox = Outbox(replyByteLimit: 1 << 20, on: loop) { wakes.add(1, ordering: .relaxed) }
            outbox.addSubscription(7, value: 0)
            // A client behind by more than the coalescing mark: a reply that large waits unsent.
            outbox.enqueue([UInt8](repeating: 0x20, count: Outbox.coalescingBytes))
            for value in 1...100 { outbox.publish(7, value: .int(value)) }
            let lines = String(decoding: outbox.take(maxBytes: 1 << 20), as: UTF8.self).split(separator: "\n")
            #expect(lines.count == 2)
            let notice = try JSONParser.parse(String(lines[1]))
            #expect(notice["params"] == ["subscription": 7, "value": 100, "seq": 100])
            #expect(wakes.load(ordering: .relaxed) == 1)
        }
    }

    @Test func repliesAreNeverDroppedAndKeepTheirOrderAroundNotices() async throws {
        try await onTestLoop { loop throws in
            let outbox = Outbox(replyByteLimit: 1 << 20, on: loop) {}
            outbox.addSubscription(1, value: false)
            outbox.enqueue(Array(#"{"id":1}"#.utf8))
            outbox.publish(1, value: true)
            outbox.enqueue(Array(#"{"id":2}"#.utf8))
            outbox.publish(1, value: false)
            let lines = String(decoding: outbox.take(maxBytes: 1 << 20), as: UTF8.self).split(separator: "\n")
            // Little waits unsent: each change is a notice of its own, in its place among the replies.
            #expect(lines.count == 4)
            #expect(lines[0] == #"{"id":1}"#)
            #expect(try JSONParser.parse(String(lines[1]))["params"] == ["subscription": 1, "value": true, "seq": 1])
            #expect(lines[2] == #"{"id":2}"#)
            #expect(try JSONParser.parse(String(lines[3]))["params"] == ["subscription": 1, "value": false, "seq": 2])
        }
    }

    @Test(arguments: [0, 7, 10, 99, 100, 12_345, UInt64.max])
    func numbersAreWrittenInDecimal(value: UInt64) {
        var bytes = Array("x".utf8)
        Outbox.appendDecimal(value, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "x\(value)")
    }

    /// A client is judged by the replies it has left unread before another comes: so a reply larger than the
    /// limit still goes out whole to a client that reads, and what a client that does not read costs is the
    /// limit and one reply.
    @Test func passingTheReplyLimitIsReportedOnceRepliesBeforeOnePassIt() async throws {
        try await onTestLoop { loop throws in
            let outbox = Outbox(replyByteLimit: 100, on: loop) {}
            #expect(outbox.enqueue([UInt8](repeating: 0x20, count: 60)) == nil)
            #expect(outbox.enqueue([UInt8](repeating: 0x20, count: 60)) == nil)
            #expect(outbox.enqueue([UInt8](repeating: 0x20, count: 60)) == .pastLimit(unsent: 122, limit: 100))
            let large = Outbox(replyByteLimit: 100, on: loop) {}
            #expect(large.enqueue([UInt8](repeating: 0x20, count: 250)) == nil)
            #expect(large.enqueue([UInt8](repeating: 0x20, count: 1)) == .pastLimit(unsent: 251, limit: 100))
        }
    }

    /// Each session may leave a little unread on its own; beyond that, every session's unread replies come
    /// from one budget, so that many clients that do not read cannot together hold each one's limit.
    @Test func unreadRepliesPastEachSessionsOwnShareComeFromOneBudget() async throws {
        try await onTestLoop { loop throws in
            let budget = UnsentReplyBudget(ownBytes: 10, sharedBytes: 100)
            let first = Outbox(replyByteLimit: 1 << 20, on: loop, budget: budget) {}
            let second = Outbox(replyByteLimit: 1 << 20, on: loop, budget: budget) {}
            #expect(first.enqueue([UInt8](repeating: 0x20, count: 59)) == nil)
            #expect(first.enqueue([UInt8](repeating: 0x20, count: 59)) == nil)
            #expect(budget.sharedInUse == 110)
            // The budget is spent: a session past its own share is judged not to be reading.
            #expect(first.enqueue([UInt8](repeating: 0x20, count: 1)) == .sharedBudgetSpent(unsent: 120))
            #expect(second.enqueue([UInt8](repeating: 0x20, count: 4)) == nil)
            #expect(second.enqueue([UInt8](repeating: 0x20, count: 19)) == nil)
            #expect(second.enqueue([UInt8](repeating: 0x20, count: 1)) == .sharedBudgetSpent(unsent: 25))
            // What is taken to be written, or freed as a session closes, is given back.
            _ = first.take(maxBytes: 1 << 20)
            #expect(budget.sharedInUse == 17)
            #expect(second.enqueue([UInt8](repeating: 0x20, count: 1)) == nil)
            second.close()
            #expect(budget.sharedInUse == 0)
        }
    }
}

@Suite("Reply places in the outbox", .timeLimit(.minutes(1)))
struct OutboxReplyPlaceTests {
    /// The lines waiting, as text.
    static func lines(_ outbox: Outbox) -> [String] {
        String(decoding: outbox.take(maxBytes: 1 << 20), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func aReplyFilledEarlyWaitsForTheRepliesBeforeItButANoticeDoesNot() async throws {
        try await onTestLoop { loop throws in
            let outbox = Outbox(replyByteLimit: 1 << 20, on: loop) {}
            outbox.addSubscription(1, value: 0)
            let slow = outbox.reserve()
            let fast = outbox.reserve()
            outbox.fillReply(fast, with: Array("fast".utf8))
            outbox.publish(1, value: 1)
            #expect(
                Self.lines(outbox) == [
                    #"{"jsonrpc":"2.0","method":"changed","params":{"subscription":1,"value":1,"seq":1}}"#
                ])
            outbox.fillReply(slow, with: Array("slow".utf8))
            #expect(Self.lines(outbox) == ["slow", "fast"])
        }
    }

    @Test func aHeldReplyKeepsItsPlaceAndWhatComesAfterWaitsForIt() async throws {
        try await onTestLoop { loop throws in
            let outbox = Outbox(replyByteLimit: 1 << 20, on: loop) {}
            outbox.addSubscription(1, value: 0)
            let durable = outbox.reserve()
            let next = outbox.reserve()
            outbox.hold(durable)
            outbox.publish(1, value: 1)
            outbox.fillReply(next, with: Array("next".utf8))
            #expect(Self.lines(outbox).isEmpty, "all of it behind the held reply")
            outbox.fillReply(durable, with: Array("durable".utf8))
            let lines = Self.lines(outbox)
            #expect(lines.count == 3)
            #expect(lines.first == "durable" && lines.last == "next")
            #expect(outbox.pendingReplyBytes == 0)
        }
    }

    @Test func aRequestWithNoReplyLetsTheNextGo() async throws {
        try await onTestLoop { loop throws in
            let outbox = Outbox(replyByteLimit: 1 << 20, on: loop) {}
            let notification = outbox.reserve()
            let request = outbox.reserve()
            outbox.fillReply(request, with: Array("answer".utf8))
            #expect(Self.lines(outbox).isEmpty)
            outbox.fillReply(notification, with: nil)
            #expect(Self.lines(outbox) == ["answer"])
        }
    }
}
