import LumenModel
import Testing

@testable import LumenServer

/// The multicast DNS records of a service: what a browser's query is answered with, what is left unanswered,
/// and messages no query should be (a response, a name that points at itself, one cut short).
@Suite("mDNS messages")
struct MDNSMessageTests {
    let bridge = MDNSService(
        instance: "Hue Bridge - E7BBC2", type: "_hue._tcp", host: "001788fffee7bbc2",
        address: IPv4Address("192.168.77.2")!, port: 443,
        properties: [("bridgeid", "001788fffee7bbc2"), ("modelid", "BSB002")])

    /// A query with one question for `name` and `type`.
    func query(_ name: [String], type: UInt16, class: UInt16 = 1, id: UInt16 = 0) -> [UInt8] {
        query([(name.map { Array($0.utf8) }, type, `class`)], id: id)
    }

    /// A query with `questions`, each a name (by its labels' bytes), a type and a class.
    func query(_ questions: [(name: [[UInt8]], type: UInt16, class: UInt16)], id: UInt16 = 0) -> [UInt8] {
        var message: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xFF), 0, 0, 0, UInt8(questions.count), 0, 0, 0, 0, 0, 0]
        for question in questions {
            for label in question.name { message += [UInt8(label.count)] + label }
            message += [0, UInt8(question.type >> 8), UInt8(question.type & 0xFF)]
            message += [UInt8(question.class >> 8), UInt8(question.class & 0xFF)]
        }
        return message
    }

    /// The count at `index` of a message's header (0: questions, 1: answers, 2: authority, 3: additional).
    func count(_ message: [UInt8], _ index: Int) -> Int {
        Int(message[4 + 2 * index]) << 8 | Int(message[5 + 2 * index])
    }

    func contains(_ message: [UInt8], _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return message.indices.contains { message[$0...].starts(with: bytes) }
    }

    @Test func aBrowserAskingForTheTypeIsToldTheInstanceWithItsHostPortPropertiesAndAddress() throws {
        let answer = try #require(bridge.answer(to: query(["_hue", "_tcp", "local"], type: 12)))
        #expect(count(answer, 0) == 0 && count(answer, 1) == 1 && count(answer, 3) == 3)
        #expect(answer[2] == 0x84, "a response, authoritative")
        #expect(contains(answer, "Hue Bridge - E7BBC2") && contains(answer, "bridgeid=001788fffee7bbc2"))
        #expect(answer.suffix(4) == [192, 168, 77, 2])
        // Names are matched without regard to case, as DNS matches them.
        #expect(bridge.answer(to: query(["_HUE", "_tcp", "LOCAL"], type: 12)) != nil)
        #expect(bridge.answer(to: query(["001788fffee7bbc2", "local"], type: 1))?.suffix(4) == [192, 168, 77, 2])
    }

    @Test func aOneShotResolverIsAnsweredAsUnicastDNSWithItsIDAndQuestion() throws {
        let answer = try #require(
            bridge.answer(to: query(["_hue", "_tcp", "local"], type: 12, id: 0x1234), legacy: true))
        #expect(answer[0] == 0x12 && answer[1] == 0x34)
        #expect(count(answer, 0) == 1 && count(answer, 1) == 1)
    }

    /// A resolver matches an answer to its query by the questions, so they come back as they were asked: the
    /// bytes of a label that is not UTF-8 (once read as text, each such byte became three, and the label was cut
    /// to 63 bytes when written back), and the class with its unicast bit.
    @Test func aOneShotAnswerRepeatsItsQuestionsByteForByte() throws {
        let strange = [UInt8](repeating: 0xFF, count: 63)
        let asked = query(
            [([strange, Array("local".utf8)], 1, 0x8001), (["_hue", "_tcp", "local"].map { Array($0.utf8) }, 12, 1)],
            id: 7)
        let answer = try #require(bridge.answer(to: asked, legacy: true))
        #expect(count(answer, 0) == 2)
        #expect(answer[12..<asked.count] == asked[12...])
    }

    /// Questions that point back at a name asked before are repeated as they came, pointers and all: an answer
    /// is never much larger than its query for what the questions hold, so a small query cannot draw a large one.
    @Test func aOneShotAnswerRepeatsCompressedQuestionsCompressed() throws {
        let long = [[UInt8]](repeating: [UInt8](repeating: 0x61, count: 62), count: 4)
        var asked = query([(long, 1, 1), (["_hue", "_tcp", "local"].map { Array($0.utf8) }, 12, 1)])
        // 31 more questions, each a pointer to the long name at offset 12.
        for _ in 0..<31 { asked += [0xC0, 12, 0, 1, 0, 1] }
        asked[5] = 33
        let answer = try #require(bridge.answer(to: asked, legacy: true))
        #expect(count(answer, 0) == 33)
        #expect(answer[12..<asked.count] == asked[12...])
        #expect(answer.count < asked.count + 1_000, "\(answer.count) bytes for a query of \(asked.count)")
    }

    /// A name read from where a pointer leads ends before that pointer: one running on past it would read, in the
    /// answer, what the answer holds there instead of what the query did, so the questions repeated byte for byte
    /// would not be the questions asked.
    @Test func aPointedNameThatRunsPastItsPointerIsNotRead() {
        // The first question: one label of 63 bytes, its last byte 63, at offset 75.
        var asked = query([
            ([[UInt8](repeating: 0x61, count: 62) + [63]], 1, 1),
            (
                ["_hue", "_tcp", "local"].map {
                    Array($0.utf8)
                }, 12, 1
            ),
        ])
        // A third question pointing at that byte, read as a label of 63 bytes running over the questions after it
        // and on into bytes past them, which end it.
        asked += [0xC0, 75, 0, 1, 0, 1] + [UInt8](repeating: 0, count: 32)
        asked[5] = 3
        #expect(bridge.answer(to: asked, legacy: true) == nil)
        #expect(bridge.answer(to: asked) == nil)
    }

    /// A name that points into the header, which holds no name, is not read.
    @Test func aNamePointingIntoTheHeaderIsNotRead() {
        var asked = query(["_hue", "_tcp", "local"], type: 12)
        asked[5] = 2
        asked += [0xC0, 4, 0, 1, 0, 1]
        #expect(bridge.answer(to: asked, legacy: true) == nil)
    }

    /// 64 long questions would make a one-shot answer larger than an mDNS datagram may be; it is not sent. A
    /// querier on port 5353 is answered all the same: its answer repeats no question.
    @Test func aOneShotAnswerLargerThanADatagramIsNotSent() throws {
        let long = [[UInt8]](repeating: [UInt8](repeating: 0x61, count: 63), count: 3) + [Array("local".utf8)]
        let questions =
            [(["_hue", "_tcp", "local"].map { Array($0.utf8) }, UInt16(12), UInt16(1))]
            + [([[UInt8]], UInt16, UInt16)](repeating: (long, 1, 1), count: 63)
        let asked = query(questions)
        #expect(bridge.answer(to: asked, legacy: true).map(\.count) == nil)
        let multicast = try #require(bridge.answer(to: asked))
        #expect(multicast.count < 1_000 && count(multicast, 0) == 0)
    }

    /// The service is in the Internet class: a question for another (Chaos, say) is not about it.
    @Test func onlyQuestionsOfTheInternetClassAreAnswered() {
        #expect(bridge.answer(to: query(["_hue", "_tcp", "local"], type: 12, class: 3)).map(\.count) == nil)
        #expect(bridge.answer(to: query(["_hue", "_tcp", "local"], type: 12, class: 0x8001)) != nil)
        #expect(bridge.answer(to: query(["_hue", "_tcp", "local"], type: 12, class: 255)) != nil)
    }

    @Test func onlyQueriesFromTheLinkAreAnswered() {
        let link = NetworkInterface(
            index: 2, address: IPv4Address("192.168.77.2")!, netmask: IPv4Address("255.255.255.0")!,
            isLoopback: false)
        #expect(MDNSResponder.isOnLink(IPv4Address("192.168.77.40")!, link))
        #expect(!MDNSResponder.isOnLink(IPv4Address("192.168.78.40")!, link))
        #expect(!MDNSResponder.isOnLink(IPv4Address("8.8.8.8")!, link))
    }

    @Test func otherNamesResponsesAndMalformedMessagesAreLeftUnanswered() {
        #expect(bridge.answer(to: query(["_googlecast", "_tcp", "local"], type: 12)) == nil)
        var response = query(["_hue", "_tcp", "local"], type: 12)
        response[2] = 0x84
        #expect(bridge.answer(to: response) == nil)
        // A name whose pointer points at itself, and one pointing forwards: no loop, no answer.
        #expect(bridge.answer(to: [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xC0, 12, 0, 12, 0, 1]) == nil)
        #expect(bridge.answer(to: [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xC0, 20, 0, 12, 0, 1]) == nil)
        let whole = query(["_hue", "_tcp", "local"], type: 12)
        for length in 0..<whole.count { #expect(bridge.answer(to: Array(whole.prefix(length))) == nil) }
        #expect(bridge.answer(to: [0, 0, 0, 0, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 6)) == nil)
    }

    /// A name is at most 255 bytes, its length bytes and the root's zero counted (RFC 1035 §3.1): one a byte
    /// longer is no name, and a one-shot answer repeating it would write one.
    @Test func aNameLongerThan255BytesIsNotRead() {
        func name(_ total: Int) -> [[UInt8]] {
            // Three labels of 63 bytes, then one that brings the name, with its zero, to `total` bytes.
            [[UInt8]](repeating: [UInt8](repeating: 0x61, count: 63), count: 3) + [
                [UInt8](repeating: 0x62, count: total - 3 * 64 - 2)
            ]
        }
        let browse = (["_hue", "_tcp", "local"].map { Array($0.utf8) }, UInt16(12), UInt16(1))
        #expect(bridge.answer(to: query([browse, (name(255), 1, 1)]), legacy: true) != nil)
        #expect(bridge.answer(to: query([browse, (name(256), 1, 1)]), legacy: true).map(\.count) == nil)
    }

    @Test func noMessageCrashesOrLoopsTheReader() {
        // A fixed sequence of messages: random bytes behind a query's header, and a real query with bytes changed.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt8 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
        let real = query(["_hue", "_tcp", "local"], type: 12)
        var answered = 0
        for round in 0..<20_000 {
            var message: [UInt8]
            if round % 2 == 0 {
                message = [0, 0, 0, 0, 0, next() % 4] + [0, 0, 0, 0, 0, 0]
                message += (0..<Int(next() % 64)).map { _ in next() }
            } else {
                message = real
                for _ in 0..<1 + Int(next() % 3) { message[12 + Int(next()) % (real.count - 12)] = next() }
            }
            if bridge.answer(to: message) != nil { answered += 1 }
        }
        #expect(answered < 20_000)
    }

    @Test func theGoodbyeWithdrawsEveryRecord() {
        let goodbye = bridge.announcement(goodbye: true)
        #expect(count(goodbye, 1) == 5)
        // Every TTL is 0: no record stays in a cache.
        var offset = 12
        for _ in 0..<5 {
            _ = MDNSService.readName(goodbye, at: &offset)
            let ttl = goodbye[(offset + 4)..<(offset + 8)]
            #expect(ttl.allSatisfy { $0 == 0 })
            let length = Int(goodbye[offset + 8]) << 8 | Int(goodbye[offset + 9])
            offset += 10 + length
        }
        #expect(offset == goodbye.count)
    }
}
