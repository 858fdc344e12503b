import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

@testable import LumenHue

/// The Hue API v2 event stream: a change from any front becomes one batch of events.
@Suite struct HueEventStreamTests {
    func open(_ bridge: HueTestBridge, lastEventID: String? = nil) throws -> any HTTPStreamBody {
        var headers = HueBridgeTests.headers
        headers["hue-application-key"] = bridge.user
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

    /// What the stream has sent by the time `until` holds of it, waiting on the hub's looks.
    func read(_ stream: any HTTPStreamBody, until done: (String) -> Bool) async throws -> String {
        var text = ""
        for _ in 0..<2_000 {
            text += String(decoding: stream.next(maxBytes: 1 << 20) ?? [], as: UTF8.self)
            if done(text) { return text }
            try await Task.sleep(for: .milliseconds(1))
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

    @Test func aChangeOverV1IsAnUpdateOnTheStream() async throws {
        let bridge = try await HueTestBridge()
        await bridge.bridge.watchHome()
        let stream = try open(bridge)
        // The hub's first look, which the next is compared with.
        for _ in 0..<1_000 where bridge.bridge.events.isWaitingForFirstLook {
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(try await bridge.answer("PUT", "/lights/1/state", #"{"on": true, "bri": 254}"#).arrayValue?.count == 2)
        let text = try await read(stream) { $0.contains("\"update\"") }
        #expect(text.hasPrefix(": hi\n\n"))
        let events = try batches(text).flatMap { $0.arrayValue ?? [] }
        let update = try #require(events.first { $0["type"] == "update" })
        let lamp = try #require(update["data"]?.arrayValue?.first { $0["type"] == "light" })
        #expect(lamp["id_v1"] == "/lights/1")
        #expect(lamp["on"]?["on"] == true)
        #expect(lamp["dimming"]?["brightness"]?.doubleValue == 100)
        #expect(lamp["metadata"] == nil)
        #expect(text.contains("\nid: "))
        stream.finish()
        #expect(bridge.bridge.events.streamCount == 0)
    }

    @Test func aSceneStoredIsAnAddAndFiftyStreamsHearIt() async throws {
        let bridge = try await HueTestBridge()
        await bridge.bridge.watchHome()
        let streams = try (0..<50).map { _ in try open(bridge) }
        for _ in 0..<1_000 where bridge.bridge.events.isWaitingForFirstLook {
            try await Task.sleep(for: .milliseconds(1))
        }
        _ = try await bridge.createScene(#"{"name": "Evening", "type": "GroupScene", "group": "1"}"#)
        var first = ""
        for stream in streams {
            let text = try await read(stream) { $0.contains("\"add\"") }
            if first.isEmpty { first = text }
            let added = try batches(text).flatMap { $0.arrayValue ?? [] }.filter { $0["type"] == "add" }
            #expect(added.first?["data"]?.arrayValue?.first?["type"] == "scene")
        }
        // One that comes back having seen that batch is sent the batches after it, and not that one again.
        let lines = first.split(separator: "\n")
        let evening = try #require(lines.firstIndex { $0.hasPrefix("data: ") && $0.contains("Evening") })
        let seen = try #require(lines[..<evening].last { $0.hasPrefix("id: ") }).dropFirst(4)
        _ = try await bridge.createScene(#"{"name": "Night", "type": "GroupScene", "group": "1"}"#)
        _ = try await read(streams[0]) { $0.contains("Night") }
        let again = try open(bridge, lastEventID: String(seen))
        let replayed = String(decoding: again.next(maxBytes: 1 << 20) ?? [], as: UTF8.self)
        #expect(replayed.contains("Night") && !replayed.contains("Evening"), "\(replayed)")
        // One that saw nothing before is sent nothing old.
        let fresh = try open(bridge)
        #expect(String(decoding: fresh.next(maxBytes: 1 << 20) ?? [], as: UTF8.self).contains("Night") == false)
        for stream in streams + [again, fresh] { stream.finish() }
    }

    @Test func aStreamWhoseClientFallsBehindIsClosedNotGrown() async throws {
        let hub = HueEventHub()
        let (stream, _) = hub.open(lastEventID: nil)
        #expect(hub.streamCount == 1)
        let batch = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)
        for _ in 0..<(HueEventHub.pendingLimit / batch.count + 1) { stream.send(batch) }
        #expect(stream.next(maxBytes: 16_384) == nil)
        stream.finish()
        #expect(hub.streamCount == 0)
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
}
