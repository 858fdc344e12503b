import LumenModel
import LumenProtocol
import LumenSimulation
import Synchronization
import Testing

@testable import LumenHue

/// The Hue API v2 event stream: a change from any front becomes one batch of events.
@Suite(.timeLimit(.minutes(1)))
struct HueEventStreamTests {
    func open(_ bridge: HueTestBridge, key: String? = nil, lastEventID: String? = nil) throws -> any HTTPStreamBody {
        var headers = HueBridgeTests.headers
        headers["hue-application-key"] = key ?? bridge.user
        if let lastEventID { headers["last-event-id"] = lastEventID }
        var request = HTTPRequest(method: "GET", path: "/eventstream/clip/v2", headers: headers)
        request.isSecure = true
        guard case .stream(let head, let body) = try #require(bridge.bridge.respond(to: request)) else {
            Issue.record("not a stream")
            throw CancellationError()
        }
        #expect(head.headers.contains { $0.name == "Content-Type" && $0.value == "text/event-stream" })
        body.start {}
        return body
    }

    /// What the stream has sent by the time `until` holds of it, waiting on the hub's looks between reads.
    func read(_ stream: any HTTPStreamBody, of hub: HueEventHub, until done: (String) -> Bool) async throws -> String {
        var text = ""
        for _ in 0..<1_000 {
            let looks = hub.looksLanded
            guard let bytes = stream.next(maxBytes: 1 << 20) else { break }
            text += String(decoding: bytes, as: UTF8.self)
            if done(text) { return text }
            await hub.lookLanded(after: looks)
        }
        Issue.record("the stream sent only \(text)")
        return text
    }

    /// The `data` of each event the stream sent.
    func batches(_ text: String) throws -> [JSONValue] {
        try text.split(separator: "\n").filter { $0.hasPrefix("data: ") }.map {
            try JSONParser.parse(Array($0.dropFirst(6).utf8))
        }
    }

    /// The `id` of the last batch in `text`.
    func lastID(_ text: String) -> String? {
        text.split(separator: "\n").last { $0.hasPrefix("id: ") }.map { String($0.dropFirst(4)) }
    }

    @Test func aChangeOverV1IsAnUpdateOnTheStream() async throws {
        let bridge = try await HueTestBridge()
        await bridge.bridge.watchHome()
        let stream = try open(bridge)
        // The stream begins once the hub has its first look, which the next is compared with.
        #expect(try await read(stream, of: bridge.bridge.events) { $0.hasPrefix(": hi\n\n") } == ": hi\n\n")
        #expect(try await bridge.answer("PUT", "/lights/1/state", #"{"on": true, "bri": 254}"#).arrayValue?.count == 2)
        let text = try await read(stream, of: bridge.bridge.events) { $0.contains("\"update\"") }
        let events = try batches(text).flatMap { $0.arrayValue ?? [] }
        let update = try #require(events.first { $0["type"] == "update" })
        let lamp = try #require(update["data"]?.arrayValue?.first { $0["type"] == "light" })
        #expect(lamp["id_v1"] == "/lights/1")
        #expect(lamp["on"]?["on"] == true)
        #expect(lamp["dimming"]?["brightness"]?.doubleValue == 100)
        #expect(lamp["metadata"] == nil)
        #expect(text.hasPrefix("id: "))
        stream.finish()
        #expect(bridge.bridge.events.streamCount == 0)
    }

    @Test func aSceneStoredIsAnAddAndFiftyStreamsHearIt() async throws {
        let bridge = try await HueTestBridge()
        await bridge.bridge.watchHome()
        let hub = bridge.bridge.events
        let streams = try (0..<50).map { _ in try open(bridge) }
        for stream in streams { _ = try await read(stream, of: hub) { $0.hasPrefix(": hi") } }
        _ = try await bridge.createScene(#"{"name": "Evening", "type": "GroupScene", "group": "1"}"#)
        var first = ""
        for stream in streams {
            let text = try await read(stream, of: hub) { $0.contains("\"add\"") }
            if first.isEmpty { first = text }
            let added = try batches(text).flatMap { $0.arrayValue ?? [] }.filter { $0["type"] == "add" }
            #expect(added.first?["data"]?.arrayValue?.first?["type"] == "scene")
        }
        // One that comes back having seen that batch is sent the batches after it, and not that one again.
        let lines = first.split(separator: "\n")
        let evening = try #require(lines.firstIndex { $0.hasPrefix("data: ") && $0.contains("Evening") })
        let seen = try #require(lines[..<evening].last { $0.hasPrefix("id: ") }).dropFirst(4)
        _ = try await bridge.createScene(#"{"name": "Night", "type": "GroupScene", "group": "1"}"#)
        _ = try await read(streams[0], of: hub) { $0.contains("Night") }
        let again = try open(bridge, lastEventID: String(seen))
        let replayed = String(decoding: again.next(maxBytes: 1 << 20) ?? [], as: UTF8.self)
        #expect(replayed.contains("Night") && !replayed.contains("Evening"), "\(replayed)")
        // One that saw nothing before is sent nothing old.
        let fresh = try open(bridge)
        #expect(String(decoding: fresh.next(maxBytes: 1 << 20) ?? [], as: UTF8.self).contains("Night") == false)
        for stream in streams + [again, fresh] { stream.finish() }
    }

    @Test func aStreamSaysNothingUntilTheHubHasItsFirstLook() async throws {
        let hub = HueEventHub()
        let (stream, needsLook) = hub.open(lastEventID: nil)
        #expect(needsLook)
        // Its client is not answered 200 yet: a change now is in the look that later ones are compared with.
        #expect(stream.next(maxBytes: 1 << 20) == [])
        #expect(hub.startLook())
        hub.looked(at: [Self.light("a", name: "Lamp")], time: .test)
        #expect(!hub.lookAgain())
        #expect(String(decoding: stream.next(maxBytes: 1 << 20) ?? [], as: UTF8.self) == ": hi\n\n")
        // A stream opened once the hub looks begins at once.
        let (second, _) = hub.open(lastEventID: nil)
        #expect(String(decoding: second.next(maxBytes: 1 << 20) ?? [], as: UTF8.self) == ": hi\n\n")
    }

    @Test func aClientBackWithinTheGraceIsSentWhatItMissedAndNotAfterIt() async throws {
        let clock = Locked(ContinuousClock.now)
        let hub = HueEventHub { clock.withLock { $0 } }
        let (stream, needsLook) = hub.open(lastEventID: nil)
        #expect(needsLook)
        Self.look(hub, "one")
        Self.look(hub, "two")
        let seen = String(decoding: stream.next(maxBytes: 1 << 20) ?? [], as: UTF8.self)
        let id = try #require(lastID(seen))
        stream.finish()
        // Gone, yet the hub goes on looking: the change comes while its client reconnects.
        Self.look(hub, "three")
        clock.withLock { $0 += .seconds(HueEventHub.graceSeconds - 1) }
        let (back, _) = hub.open(lastEventID: id)
        let missed = String(decoding: back.next(maxBytes: 1 << 20) ?? [], as: UTF8.self)
        #expect(missed.hasPrefix(": hi\n\n") && missed.contains("three") && !missed.contains("two"), "\(missed)")
        back.finish()
        // Past the grace the hub stops looking, and forgets what it kept: it would miss what comes meanwhile.
        clock.withLock { $0 += .seconds(HueEventHub.graceSeconds) }
        #expect(!hub.wantsLook())
        #expect(!hub.isWatching)
        let (late, needsLookAgain) = hub.open(lastEventID: id)
        #expect(needsLookAgain)
        #expect(late.next(maxBytes: 1 << 20) == [])
        Self.look(hub, "four")
        #expect(String(decoding: late.next(maxBytes: 1 << 20) ?? [], as: UTF8.self) == ": hi\n\n")
    }

    /// aiohue (Home Assistant's Hue library) reconnects with pauses of 2, 4, 6… seconds and asks with
    /// `Last-Event-ID` until a pause exceeds a minute, some 15 minutes after the stream dropped; only then does it
    /// read everything again. A client back within that is sent what it missed.
    @Test func aClientBackBeforeAiohueWouldReadEverythingAgainIsSentWhatItMissed() async throws {
        let clock = Locked(ContinuousClock.now)
        let hub = HueEventHub { clock.withLock { $0 } }
        let (stream, _) = hub.open(lastEventID: nil)
        Self.look(hub, "one")
        Self.look(hub, "two")
        let id = try #require(lastID(String(decoding: stream.next(maxBytes: 1 << 20) ?? [], as: UTF8.self)))
        stream.finish()
        Self.look(hub, "three")
        // aiohue's pauses, 2 + 4 + … + 60 seconds, before the one that exceeds a minute.
        clock.withLock { $0 += .seconds(stride(from: 2, through: 60, by: 2).reduce(0, +)) }
        Self.look(hub, "four")
        let (back, _) = hub.open(lastEventID: id)
        let missed = String(decoding: back.next(maxBytes: 1 << 20) ?? [], as: UTF8.self)
        #expect(missed.contains("three") && missed.contains("four") && !missed.contains("two"), "\(missed)")
    }

    /// A client back with an ID from an earlier run of lumend (whose virtual clock started at the same time) is
    /// sent every batch kept, all of them newer than anything it saw: no batch of this run has that ID.
    @Test func aClientBackWithAnIDFromAnEarlierRunIsSentEveryBatchKept() async throws {
        let earlier = HueEventHub()
        let (seen, _) = earlier.open(lastEventID: nil)
        for name in ["one", "two", "three", "four"] { Self.look(earlier, name) }
        let id = try #require(lastID(String(decoding: seen.next(maxBytes: 1 << 20) ?? [], as: UTF8.self)))
        let hub = HueEventHub()
        let (stream, _) = hub.open(lastEventID: nil)
        for name in ["one", "two", "three"] { Self.look(hub, name) }
        let (back, _) = hub.open(lastEventID: id)
        let missed = String(decoding: back.next(maxBytes: 1 << 20) ?? [], as: UTF8.self)
        #expect(missed.contains("two") && missed.contains("three"), "\(missed)")
        stream.finish()
    }

    @Test func whatIsKeptForReturningClientsFitsWithinAStreamsLimit() async throws {
        let hub = HueEventHub()
        let (stream, _) = hub.open(lastEventID: nil)
        let large = String(repeating: "x", count: 100_000)
        for index in 0..<24 {
            #expect(hub.startLook())
            hub.looked(at: [Self.light("a", name: "\(index)" + large)], time: .test)
            _ = hub.lookAgain()
            // The client reads as they come.
            #expect(stream.next(maxBytes: 1 << 22) != nil)
        }
        // One that comes back having seen only the first is sent what is kept, not let go.
        let (back, _) = hub.open(lastEventID: "0:0")
        let replay = try #require(back.next(maxBytes: 1 << 22), "the returning stream was let go")
        #expect(replay.count <= HueEventHub.keptBytes + 16)
        #expect(String(decoding: replay, as: UTF8.self).contains("23" + large))
    }

    /// Let go, and saying so: the server then closes its connection at once, not once the socket drains.
    @Test func aStreamWhoseClientFallsBehindIsClosedNotGrown() async throws {
        let hub = HueEventHub()
        let (stream, _) = hub.open(lastEventID: nil)
        #expect(hub.streamCount == 1)
        let batch = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)
        for _ in 0..<(HueEventHub.pendingLimit / batch.count) { stream.send(batch) }
        #expect(!stream.isCut)
        stream.send(batch)
        #expect(stream.isCut)
        #expect(stream.next(maxBytes: 16_384) == nil)
        stream.finish()
        #expect(hub.streamCount == 0)
    }

    /// A client that stops reading costs what its stream holds: batches of a few hundred bytes, as a home that
    /// changes all the time makes, were added to one buffer whose room doubled as it filled, to as much as twice
    /// the limit.
    @Test func aStreamFilledToJustUnderItsLimitHoldsNoMoreThanTheLimit() async throws {
        let hub = HueEventHub()
        let (stream, _) = hub.open(lastEventID: nil)
        _ = stream.begin()
        let batch = [UInt8](repeating: UInt8(ascii: "x"), count: 700)
        for _ in 0..<(HueEventHub.pendingLimit / batch.count - 1) { stream.send(batch) }
        #expect(!stream.isCut)
        #expect(stream.heldBytes <= HueEventHub.pendingLimit + (64 << 10), "\(stream.heldBytes) bytes held")
        stream.finish()
    }

    /// The bytes handed to the connection stayed in the stream until it had sent everything: a client that took
    /// some and then stopped had them held beside a whole limit's worth of new ones.
    @Test func aStreamWhoseClientTookSomeThenStoppedHoldsNoMoreThanTheLimit() async throws {
        let hub = HueEventHub()
        let (stream, _) = hub.open(lastEventID: nil)
        _ = stream.begin()
        let batch = [UInt8](repeating: UInt8(ascii: "x"), count: 700)
        // The socket takes the first chunks of a burst, then no more.
        for _ in 0..<1_000 { stream.send(batch) }
        for _ in 0..<20 { _ = stream.next(maxBytes: 16_384) }
        let waiting = 1_000 * batch.count + 6 - 20 * 16_384
        for _ in 0..<((HueEventHub.pendingLimit - waiting) / batch.count) { stream.send(batch) }
        #expect(!stream.isCut)
        #expect(stream.heldBytes <= HueEventHub.pendingLimit + (64 << 10), "\(stream.heldBytes) bytes held")
        stream.finish()
    }

    @Test func anUnknownKeyOpensNoStream() async throws {
        let bridge = try await HueTestBridge()
        await bridge.bridge.watchHome()
        var request = HTTPRequest(
            method: "GET", path: "/eventstream/clip/v2",
            headers: HueBridgeTests.headers.merging(["hue-application-key": "nobody"]) { $1 })
        request.isSecure = true
        guard case .now(let response) = try #require(bridge.bridge.respond(to: request)) else {
            Issue.record("not refused")
            return
        }
        #expect(response.status == 403)
        #expect(bridge.bridge.events.streamCount == 0)
    }

    @Test func aStreamOpenedAsItsUserIsForgottenEnds() async throws {
        let bridge = try await HueTestBridge()
        await bridge.bridge.watchHome()
        try await bridge.bridge.pairUser("leaving", deviceType: "leaving#app")
        // The key was checked; the user is forgotten, and its streams closed, before the stream is open.
        bridge.bridge.memory.withLock { memory in memory.state.users.removeAll { $0.username == "leaving" } }
        bridge.bridge.events.closeStreams(of: "leaving")
        let stream = bridge.bridge.openEventStream(key: "leaving", lastEventID: nil)
        #expect(stream.next(maxBytes: 1 << 20) == nil, "the stream ended: the key opens nothing any more")
        #expect(!stream.isCut, "ended, not let go for falling behind: what its socket holds still goes out")
        // The same steps for a user still paired leave its stream open.
        let kept = bridge.bridge.openEventStream(key: bridge.user, lastEventID: nil)
        #expect(kept.next(maxBytes: 1 << 20) != nil)
    }

    @Test func anOpenStreamIsUseOfItsKeyAndAForgottenUsersStreamsEnd() async throws {
        let bridge = try await HueTestBridge()
        await bridge.bridge.watchHome()
        try await bridge.bridge.pairUser("other", deviceType: "other#app")
        let stream = try open(bridge)
        // The other app is used after the stream opened: the stream still counts as use, for as long as it is open.
        #expect(try await bridge.answer("GET", "/api/other/lights").objectValue != nil)
        await bridge.bridge.setUserLimit(2)
        try await bridge.bridge.pairUser("third", deviceType: "third#app")
        #expect(await bridge.bridge.users.map(\.username).sorted() == ["tests", "third"])
        // A user forgotten through the bridge has its streams ended at once.
        let theirs = try open(bridge, key: "third")
        _ = try await read(theirs, of: bridge.bridge.events) { $0.hasPrefix(": hi") }
        let answer = try await bridge.answer("DELETE", "/config/whitelist/third")
        #expect(answer.arrayValue?.first?["success"] != nil, "\(answer)")
        #expect(theirs.next(maxBytes: 1 << 20) == nil)
        #expect(stream.next(maxBytes: 1 << 20) != nil)
        stream.finish()
        theirs.finish()
    }

    /// Has `hub` take a look at a home of one light named `name`, as the bridge does after a change.
    static func look(_ hub: HueEventHub, _ name: String) {
        _ = hub.wantsLook()
        guard hub.startLook() else { return }
        hub.looked(at: [light("a", name: name)], time: .test)
        _ = hub.lookAgain()
    }

    /// A light resource named `name`, as the hub compares it.
    static func light(_ id: String, name: String) -> JSONValue {
        .object(["id": .string(id), "type": "light", "metadata": .object(["name": .string(name)])])
    }
}

extension WallTime {
    /// A time for batches whose time does not matter.
    static let test = WallTime(microsecondsSinceEpoch: 1_800_000_000_000_000)
}
