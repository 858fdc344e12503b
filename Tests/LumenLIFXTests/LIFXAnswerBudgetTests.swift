import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import Testing

@testable import LumenLIFX

/// Broadcast floods answered within the budget, over a home of many LIFX bulbs on the virtual clock: nothing
/// completes until the test moves the clock, so every answer admitted stays in progress.
@Suite("LIFX answer budget", .serialized)
struct LIFXAnswerBudgetTests {
    /// Where the datagrams come from, as the UDP listener writes it out.
    static let sender: @Sendable () -> String = { "127.0.0.1:51234" }

    static let bulbs = 300

    /// A home of `bulbs` LIFX colour bulbs in one room, each answering 40 ms on and taking every message (no rate
    /// limit of its own to drop the flood before the budget is reached).
    static func homeJSON(bulbs: Int) -> String {
        let lights = (0..<bulbs).map { index in
            #"{"id": "hall.b\#(index)", "name": "B\#(index)", "kind": "color", "manufacturer": "LIFX"}"#
        }
        return """
            {"schema": 1, "id": "many", "name": "Many", "seed": 1,
             "defaults": {"latency": {"kind": "fixed", "ms": 40}, "rateLimitPerSecond": 10000},
             "rooms": [{"id": "hall", "name": "Hall", "lights": [\(lights.joined(separator: ","))]}]}
            """
    }

    let home: Home
    let front: LIFXFront

    init() throws {
        home = Home(fixture: try Fixture(json: Array(Self.homeJSON(bulbs: Self.bulbs).utf8)), clock: .virtual)
        front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
    }

    /// A `SetColor` to every bulb, asking for an acknowledgement and the state.
    static func taggedSetColor(sequence: UInt8) -> LIFXPacket {
        var writer = LIFXWriter()
        writer.uint8(0)
        HSBK(hue: 0, saturation: 65_535, brightness: 65_535, kelvin: 3_500).write(&writer)
        writer.uint32(0)
        return LIFXPacket(
            tagged: true, source: 11, wantsReply: true, wantsAcknowledgement: true, sequence: sequence, type: 102,
            payload: writer.output)
    }

    /// The replies the work `respond` gave sends, once it is done.
    static func replies(of work: @Sendable (@escaping LIFXFront.Send) async -> Void) async -> [[UInt8]] {
        let gathered = Locked<[[UInt8]]>([])
        await work { replies, _ in gathered.withLock { $0 += replies } }
        return gathered.withLock { $0 }
    }

    /// Yields until `done` holds, without moving the clock; `false` if it never does.
    func settle(_ done: () -> Bool) async -> Bool {
        // Generous: a poll of one bulb is admitted in a turn of the home queued behind the turn of every bulb a
        // flood admitted before it, some thousands, which takes a few hundred thousand yields under a sanitizer.
        for _ in 0..<2_000_000 {
            if done() { return true }
            await Task.yield()
        }
        return done()
    }

    @Test func aTaggedFloodIsAnsweredWithinTheBudgetAndTheExcessIsCounted() async throws {
        let (front, budget) = (front, front.budget)
        let messages = LIFXAnswerBudget.maxBroadcasts
        let asked = messages * Self.bulbs
        let broadcastAnswers = LIFXAnswerBudget.maxAnswers * LIFXAnswerBudget.broadcastShare / 4
        #expect(asked > LIFXAnswerBudget.maxAnswers, "the flood asks for more answers than the whole budget")
        var floods: [Task<Int, Never>] = []
        for sequence in 0..<messages {
            let packet = Self.taggedSetColor(sequence: UInt8(sequence))
            let work = try #require(front.respond(to: packet.bytes, from: Self.sender))
            floods.append(Task { await Self.replies(of: work).count })
        }
        // Every bulb answer is either admitted (waiting on its bulb, as the clock stands still) or dropped.
        let admittedOrDropped = await settle {
            budget.inProgress.answers + budget.dropped.load(ordering: .relaxed) == asked
        }
        let dropped = budget.dropped.load(ordering: .relaxed)
        #expect(admittedOrDropped, "in progress \(budget.inProgress), dropped \(dropped)")
        #expect(budget.peak.answers <= broadcastAnswers, "a broadcast took more than its share: \(budget.peak)")
        #expect(budget.peak.bytes <= LIFXAnswerBudget.maxBytes)
        #expect(budget.inProgress.answers == broadcastAnswers, "the budget's broadcast share is full")
        #expect(budget.inProgress.bytes == broadcastAnswers * (36 + 88), "an acknowledgement and a Light.State each")
        #expect(budget.dropped.load(ordering: .relaxed) == asked - broadcastAnswers)

        // A client switching one bulb is still answered from the share kept for it.
        let bulb = DeviceSerial.of(home: "many", light: "hall.b7")
        let get = LIFXPacket(
            source: 12, target: bulb + [0, 0], wantsAcknowledgement: true, sequence: 1, type: 21,
            payload: [0xFF, 0xFF])
        let polled = Locked<[[UInt8]]?>(nil)
        let poll = Task {
            let replies = await front.answer(get)
            polled.withLock { $0 = replies }
        }
        #expect(await settle { budget.inProgress.answers == broadcastAnswers + 1 }, "the poll is admitted")

        // Once the clock moves, every admitted answer is sent and gives its share back.
        for _ in 0..<1_000 where polled.withLock({ $0 }) == nil || budget.inProgress.answers > 0 {
            try await home.advance(byMilliseconds: 10)
            await Task.yield()
        }
        var sent = 0
        for flood in floods { sent += await flood.value }
        await poll.value
        #expect(try polled.withLock { $0 }?.map { try LIFXPacket(bytes: $0).type } == [45])
        #expect(sent == 2 * broadcastAnswers, "each admitted bulb acknowledged and replied")
        #expect(budget.inProgress.answers == 0 && budget.inProgress.bytes == 0)
    }

    @Test func aTaggedQueryFloodGivesBackEveryAnswerItReserved() async throws {
        let (front, budget) = (front, front.budget)
        let messages = LIFXAnswerBudget.maxBroadcasts
        let asked = messages * Self.bulbs
        #expect(asked > LIFXAnswerBudget.maxAnswers, "the flood asks for more answers than the whole budget")
        // `GetColor` to every bulb: a question, each bulb's answer reserved, asked and read in the home's turn and
        // given back once its reply is sent.
        let answered = Locked(0)
        var floods: [Task<Void, Never>] = []
        for sequence in 0..<messages {
            let packet = LIFXPacket(tagged: true, source: 13, sequence: UInt8(sequence), type: 101)
            let work = try #require(front.respond(to: packet.bytes, from: Self.sender))
            floods.append(
                Task {
                    await work { replies, _ in
                        #expect(replies.count == 1, "one Light.State a bulb")
                        answered.withLock { $0 += 1 }
                    }
                })
        }
        for flood in floods { await flood.value }
        let (sent, dropped) = (answered.withLock { $0 }, budget.dropped.load(ordering: .relaxed))
        #expect(sent + dropped == asked, "\(sent) answered and \(dropped) dropped of \(asked)")
        #expect(sent >= Self.bulbs, "the first broadcast fits whole: \(sent) answered")
        #expect(budget.peak.answers <= LIFXAnswerBudget.maxAnswers * LIFXAnswerBudget.broadcastShare / 4)
        #expect(budget.inProgress.answers == 0 && budget.inProgress.bytes == 0, "in progress \(budget.inProgress)")
        #expect(budget.droppedBroadcasts.load(ordering: .relaxed) == 0)
    }

    /// A change to one bulb whose answer does not fit is dropped once: counted once, and never sent to the light.
    @Test func aChangeToOneBulbThatDoesNotFitIsDroppedOnceAndNotSent() async throws {
        // Room for no answer at all: an acknowledgement alone is 36 bytes.
        let budget = LIFXAnswerBudget(maxAnswers: 256, maxBytes: 8)
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700, budget: budget)
        let bulb = try #require(await front.bulbs().first)
        let on = LIFXPacket(
            source: 11, target: bulb.serial + [0, 0], wantsAcknowledgement: true, sequence: 1, type: 117,
            payload: [0xFF, 0xFF, 0, 0, 0, 0])
        await front.answer(on, at: bulb.address, from: { "lifx test" }) { _, _ in }
        #expect(budget.dropped.load(ordering: .relaxed) == 1)
        #expect(await home.commandRecords(light: bulb.light.id).isEmpty)
    }

    @Test func answersWithLargerRepliesAreHeldByTheirBytes() async throws {
        // Answers of an acknowledgement and a Light.State (124 bytes) fill a broadcast's 21 KiB of 28 KiB at 173,
        // before its 192 answers. A change, not a question: a question is answered at once and holds nothing.
        let budget = LIFXAnswerBudget(maxAnswers: 256, maxBytes: 28 * 1_024)
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700, budget: budget)
        let set = Self.taggedSetColor(sequence: 1)
        let flood = Task { await front.answer(set, at: nil, from: { "lifx test" }) { _, _ in } }
        #expect(await settle { budget.inProgress.answers + budget.dropped.load(ordering: .relaxed) == Self.bulbs })
        let share = 28 * 1_024 * LIFXAnswerBudget.broadcastShare / 4
        #expect(budget.inProgress.answers == share / 124 && budget.inProgress.bytes <= share)
        #expect(budget.dropped.load(ordering: .relaxed) == Self.bulbs - share / 124)
        for _ in 0..<1_000 where budget.inProgress.answers > 0 {
            try await home.advance(byMilliseconds: 10)
            await Task.yield()
        }
        await flood.value
        #expect(budget.inProgress.answers == 0 && budget.inProgress.bytes == 0)
    }

    @Test func aBroadcastBeyondThoseInProgressIsDroppedAsItIsReadWithNoWorkMadeAndItsSenderUnread() async throws {
        let budget = LIFXAnswerBudget(maxBroadcasts: 2)
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700, budget: budget)
        // Changes, which wait for their bulbs as the clock stands still; a question would be answered at once.
        let get = LIFXPacket(
            tagged: true, source: 5, wantsAcknowledgement: true, sequence: 1, type: 21, payload: [0xFF, 0xFF])
        let floods = try (0..<2).map { _ in
            let work = try #require(front.respond(to: get.bytes, from: Self.sender))
            return Task { await Self.replies(of: work).count }
        }
        #expect(await settle { budget.inProgress.answers == 2 * Self.bulbs })
        let unread: @Sendable () -> String = {
            Issue.record("the sender of a broadcast beyond those in progress was read")
            return "127.0.0.1:51234"
        }
        let beyond = front.respond(
            to: get.bytes, from: unread,
            reaching: {
                Issue.record("a broadcast beyond those in progress was asked which bulbs it reaches")
                return { _ in true }
            })
        #expect(beyond == nil, "no work is made for a broadcast beyond those in progress")
        #expect(budget.droppedBroadcasts.load(ordering: .relaxed) == 1 && budget.dropped.load(ordering: .relaxed) == 0)
        for _ in 0..<1_000 where budget.inProgress.answers > 0 {
            try await home.advance(byMilliseconds: 10)
            await Task.yield()
        }
        var answered = 0
        for flood in floods { answered += await flood.value }
        #expect(answered == 2 * Self.bulbs)
        // Their places given back, broadcasts are answered again.
        #expect(await settle { budget.inProgress.answers == 0 })
        let work = try #require(front.respond(to: get.bytes, from: Self.sender), "a broadcast is taken again")
        let again = Task { await Self.replies(of: work).count }
        #expect(await settle { budget.inProgress.answers == Self.bulbs })
        for _ in 0..<1_000 where budget.inProgress.answers > 0 {
            try await home.advance(byMilliseconds: 10)
            await Task.yield()
        }
        #expect(await again.value == Self.bulbs)
    }
}
