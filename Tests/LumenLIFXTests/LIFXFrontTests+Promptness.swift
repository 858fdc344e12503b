import LumenModel
import LumenProtocol
import LumenSimulation
import LumenTestSupport
import Testing

@testable import LumenLIFX

/// How soon a bulb answers: a question at once, as firmware reads its state and replies; a change after the
/// bulb's latency, once the light has taken it.
extension LIFXFrontTests {
    /// The replies to `packet` and how far the virtual clock had to move for them: it moves only when nothing
    /// else can happen, from event to event.
    func repliesAndWait(_ packet: LIFXPacket) async throws -> (replies: [LIFXPacket], waitedMs: Double) {
        let start = await home.nowMilliseconds
        let answered = Locked<[[UInt8]]?>(nil)
        Task { [front] in
            let replies = await front.answer(packet)
            answered.withLock { $0 = replies }
        }
        for _ in 0..<100_000 where answered.withLock({ $0 }) == nil { await Task.yield() }
        for _ in 0..<10_000 where answered.withLock({ $0 }) == nil {
            _ = try await home.advanceToNextEvent()
            await Task.yield()
        }
        let replies = try (answered.withLock { $0 } ?? []).map { try LIFXPacket(bytes: $0) }
        return (replies, await home.nowMilliseconds - start)
    }

    @Test func discoveryIsAnsweredAtOnceWithoutTheBulbsLatency() async throws {
        let (found, waitedMs) = try await repliesAndWait(LIFXPacket(tagged: true, source: 7, sequence: 1, type: 2))
        #expect(found.map(\.type) == [3, 3])
        #expect(waitedMs == 0, "discovery waited for the bulbs' latency")
    }

    @Test func anUnreachableBulbStaysSilentToDiscovery() async throws {
        try await home.setReachable(false, light: "den.bulb")
        let (found, waitedMs) = try await repliesAndWait(LIFXPacket(tagged: true, source: 7, sequence: 1, type: 2))
        #expect(waitedMs == 0)
        #expect(found.map { Array($0.target.prefix(6)) } == [DeviceSerial.of(home: "flat", light: "den.mini")])
    }

    @Test func aQuestionIsAnsweredAtOnceAndAChangeAfterTheLatency() async throws {
        let target = bulbSerial + [0, 0]
        for type: UInt16 in [101, 20, 23, 32, 34, 51] {
            let (answer, waitedMs) = try await repliesAndWait(
                LIFXPacket(source: 1, target: target, sequence: 1, type: type))
            #expect(answer.count == 1 && waitedMs == 0, "type \(type) waited \(waitedMs) ms")
        }
        let on = LIFXPacket(
            source: 1, target: target, wantsAcknowledgement: true, sequence: 2, type: 117,
            payload: [0xFF, 0xFF, 0, 0, 0, 0])
        let (acknowledged, waitedMs) = try await repliesAndWait(on)
        #expect(acknowledged.map(\.type) == [45] && waitedMs == 40, "a change is answered once the light took it")
    }

    /// A bulb takes its messages in the order they came: a question sent after a change still on its way (a
    /// client's `set_color(rapid=True)` then `get_color()`) is answered once the bulb took the change, with the
    /// state it left.
    @Test func aQuestionAfterAChangeOnItsWayIsAnsweredOnceTheBulbTookIt() async throws {
        let given = HSBK(hue: 43_690, saturation: 65_535, brightness: 32_768, kelvin: 3_500)
        var set = setColor(given, sequence: 1)
        set.wantsAcknowledgement = false
        let changing = Task { [front] in await front.answer(set) }
        // On its way once the home waits for it.
        for _ in 0..<100_000 where await home.waitingOnSimulation == 0 { await Task.yield() }
        #expect(await home.waitingOnSimulation > 0, "the change was never sent")
        let (answer, waitedMs) = try await repliesAndWait(
            LIFXPacket(source: 8, target: bulbSerial + [0, 0], sequence: 2, type: 101))
        _ = try await home.driving { await changing.value }
        #expect(waitedMs == 40, "answered \(waitedMs) ms after it was asked, not once the change was taken")
        var reader = LIFXReader(try #require(answer.first).payload)
        #expect(HSBK(&reader) == given)
        // With nothing on its way, at once again.
        let (again, waitedAgain) = try await repliesAndWait(
            LIFXPacket(source: 8, target: bulbSerial + [0, 0], sequence: 3, type: 101))
        #expect(again.count == 1 && waitedAgain == 0)
    }

    /// A change and a query read in one go, their tasks started one after the other on one loop as the UDP server
    /// starts them, reach the bulb in that order: the query is answered with the colour the change gave.
    @Test func aChangeAndAQueryReadInOneGoReachTheBulbInThatOrder() async throws {
        let given = HSBK(hue: 21_845, saturation: 65_535, brightness: 40_000, kelvin: 3_500)
        var set = setColor(given, sequence: 1)
        set.wantsAcknowledgement = false
        let get = LIFXPacket(source: 8, target: bulbSerial + [0, 0], sequence: 2, type: 101)
        let replies = try await front.repliesReadInOneGo([set, get], movingClockOf: home)
        #expect(replies.map(\.type) == [107])
        var reader = LIFXReader(try #require(replies.first).payload)
        #expect(HSBK(&reader) == given, "the query was answered before the change reached the bulb")
    }

    /// A query and a change read in one go reach the bulb in that order too: the query is answered with the colour
    /// from before, not overtaken by the change read after it.
    @Test func aQueryAndAChangeReadInOneGoReachTheBulbInThatOrder() async throws {
        let before = try await color(of: "den.bulb")
        let get = LIFXPacket(source: 8, target: bulbSerial + [0, 0], sequence: 1, type: 101)
        var set = setColor(HSBK(hue: 21_845, saturation: 65_535, brightness: 40_000, kelvin: 3_500), sequence: 2)
        set.wantsAcknowledgement = false
        let replies = try await front.repliesReadInOneGo([get, set], movingClockOf: home)
        var reader = LIFXReader(try #require(replies.first { $0.type == 107 }).payload)
        #expect(HSBK(&reader) == before, "the query was overtaken by the change read after it")
    }

    /// A wave and a query read in one go reach the bulb in that order: the query is answered with the wave the
    /// bulb draws (a pulse shows the wave's colour first), not the colour from before; a wave that changes the
    /// light and one that comes back alike.
    @Test func aWaveAndAQueryReadInOneGoReachTheBulbInThatOrder() async throws {
        let red = HSBK(hue: 0, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
        let kept = Self.waveform(
            red, transient: false, periodMs: 1_000, cycles: 1, shape: .pulse, to: "den.bulb", of: "flat")
        #expect(try await colorReadInOneGo(after: kept) == red, "a SetWaveform's pulse")
        let blue = HSBK(hue: 43_690, saturation: 65_535, brightness: 32_768, kelvin: 3_500)
        let back = waveformOptional(
            blue, fields: [.hue, .saturation, .brightness, .kelvin], transient: true, periodMs: 1_000, sequence: 3)
        #expect(try await colorReadInOneGo(after: back) == blue, "a transient SetWaveformOptional's pulse")
    }

    /// A `SetColor` read in one go after a wave ends the wave, as one sent after it is answered does: the bulb
    /// shows the colour set, not the wave over it; a wave that comes back and one that changes the light alike.
    @Test(arguments: [true, false]) func aSetColorReadInOneGoAfterAWaveEndsIt(transient: Bool) async throws {
        let red = HSBK(hue: 0, saturation: 65_535, brightness: 65_535, kelvin: 3_500)
        let blue = HSBK(hue: 43_690, saturation: 65_535, brightness: 32_768, kelvin: 3_500)
        let wave =
            transient
            ? waveformOptional(
                red, fields: [.hue, .saturation, .brightness, .kelvin], transient: true, periodMs: 2_000, shape: .saw,
                sequence: 1)
            : Self.waveform(red, transient: false, periodMs: 2_000, cycles: 1, shape: .saw, to: "den.bulb", of: "flat")
        _ = try await front.repliesReadInOneGo([wave, setColor(blue, sequence: 2)], movingClockOf: home)
        try await home.advance(byMilliseconds: 500)
        let read = try await color(of: "den.bulb")
        #expect(read == blue, "the wave still drawn over the colour set after it: \(read)")
    }

    /// A message that keeps something for the bulb (its label, its location) and a query read in one go reach the
    /// bulb in that order: the query reports what the message kept, and not what one sent after the query keeps.
    @Test func aLabelOrLocationAndAQueryReadInOneGoReachTheBulbInThatOrder() async throws {
        let target = bulbSerial + [0, 0]
        func setLabel(_ label: String, sequence: UInt8) -> LIFXPacket {
            LIFXPacket(
                source: 8, target: target, sequence: sequence, type: 24,
                payload: Array(label.utf8) + [UInt8](repeating: 0, count: 32 - label.utf8.count))
        }
        let getLabel = LIFXPacket(source: 8, target: target, sequence: 2, type: 23)
        var replies = try await front.repliesReadInOneGo(
            [setLabel("Desk", sequence: 1), getLabel, setLabel("Shelf", sequence: 3)], movingClockOf: home)
        let label = try #require(replies.first { $0.type == 25 })
        #expect(String(decoding: label.payload.prefix { $0 != 0 }, as: UTF8.self) == "Desk")
        func setLocation(_ id: UInt8, sequence: UInt8) -> LIFXPacket {
            LIFXPacket(
                source: 8, target: target, sequence: sequence, type: 49,
                payload: [UInt8](repeating: id, count: 16) + Array("Home".utf8) + [UInt8](repeating: 0, count: 28 + 8))
        }
        let getLocation = LIFXPacket(source: 8, target: target, sequence: 5, type: 48)
        replies = try await front.repliesReadInOneGo(
            [setLocation(7, sequence: 4), getLocation, setLocation(9, sequence: 6)], movingClockOf: home)
        #expect(
            try #require(replies.first { $0.type == 50 }).payload.prefix(16) == [UInt8](repeating: 7, count: 16)[...])
    }

    /// A change's own state reply tells what the bulb had as it took the change, not what a message read after it
    /// gave: a label asked to reply, then another, read in one go.
    @Test func aChangesOwnReplyTellsWhatTheBulbHadAsItTookIt() async throws {
        func setLabel(_ label: String, sequence: UInt8, reply: Bool) -> LIFXPacket {
            LIFXPacket(
                source: 8, target: bulbSerial + [0, 0], wantsReply: reply, sequence: sequence, type: 24,
                payload: Array(label.utf8) + [UInt8](repeating: 0, count: 32 - label.utf8.count))
        }
        let replies = try await front.repliesReadInOneGo(
            [setLabel("Desk", sequence: 1, reply: true), setLabel("Shelf", sequence: 2, reply: false)],
            movingClockOf: home)
        let label = try #require(replies.first { $0.type == 25 })
        #expect(String(decoding: label.payload.prefix { $0 != 0 }, as: UTF8.self) == "Desk")
    }

    /// The colour a `GetColor` read in one go right after `packet` reports.
    func colorReadInOneGo(after packet: LIFXPacket) async throws -> HSBK {
        let get = LIFXPacket(source: 8, target: bulbSerial + [0, 0], sequence: 9, type: 101)
        let replies = try await front.repliesReadInOneGo([packet, get], movingClockOf: home)
        var reader = LIFXReader(try #require(replies.first { $0.type == 107 }).payload)
        return HSBK(&reader)
    }
}
