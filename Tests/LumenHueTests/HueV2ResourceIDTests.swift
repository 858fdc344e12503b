import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import Testing

@testable import LumenHue

/// The Hue API v2's UUIDs: drawn once, kept in the bridge's record, the same after a restart, never given again.
@Suite struct HueV2ResourceIDTests {
    let v2 = HueV2Tests()

    func ids(_ bridge: HueTestBridge) async throws -> [String: String] {
        let all = try await v2.v2(bridge, "GET", "/clip/v2/resource").json["data"]?.arrayValue ?? []
        var byLink: [String: String] = [:]
        for resource in all {
            let type = resource["type"]?.stringValue ?? ""
            let v1 = resource["id_v1"]?.stringValue ?? ""
            let owner = resource["owner"]?["rid"]?.stringValue ?? ""
            byLink["\(type) \(v1) \(owner)"] = resource["id"]?.stringValue
        }
        return byLink
    }

    /// The UUIDs made from a thing's name (a light's `device`, a room's `grouped_light`) are held by clients, so
    /// the digits ``HueResourceID/format(_:_:)`` writes must never change: checked against the plain way of writing
    /// 128 bits in hex, with the version and variant marked.
    @Test(arguments: [
        (UInt64(0), UInt64(0)), (UInt64.max, UInt64.max), (0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210),
        (0x00F0_0F00_F00F_0FF0, 0x8000_0000_0000_0001),
    ])
    func aUUIDIsTheBitsInHexWithItsVersionAndVariant(high: UInt64, low: UInt64) {
        // Version 4 in the top digit of the third group; the RFC 4122 variant in the top two bits of the fourth.
        let marked = [high & ~0xF000 | 0x4000, low & ~(0xC000 << 48) | (0x8000 << 48)]
        let plain = marked.map { word in
            let digits = String(word, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
        var expected = ""
        for (index, digit) in plain.enumerated() {
            if [8, 12, 16, 20].contains(index) { expected += "-" }
            expected.append(digit)
        }
        let uuid = HueResourceID.format(high, low)
        #expect(uuid == expected)
        #expect(HueResourceID.bits(uuid) == UInt128(marked[0]) << 64 | UInt128(marked[1]))
    }

    /// UUIDs drawn many at once, as a first start draws one for every light, are as many as asked, each a
    /// version 4 UUID, and all different.
    @Test(arguments: [0, 1, 2, 1_000])
    func uuidsDrawnAtOnceAreVersion4AndDistinct(count: Int) {
        let uuids = HueResourceID.random(count: count)
        #expect(uuids.count == count)
        #expect(uuids.allSatisfy { HueResourceID.bits($0) != nil })
        #expect(Set(uuids).count == count)
    }

    @Test func theUUIDsAreKeptInTheRecordAndHoldAcrossARestart() async throws {
        let bridge = try await HueTestBridge()
        let before = try await ids(bridge)
        #expect(before.count > 10)
        let kept = await bridge.bridge.state.resourceIDs
        let lamp = try #require(kept[HueBridgeState.resourceKey(light: LightID("den.lamp"))])
        #expect(try await v2.light(bridge, named: "Lamp")["id"]?.stringValue == lamp)
        // The record written carries them, and a bridge started from it shows the same ones.
        let restarted = try await bridge.restarted()
        #expect(try await ids(restarted) == before)
        // Another bridge over the same fixture draws its own: they are not computed from what the fixture says.
        let other = try await HueTestBridge()
        #expect(try await v2.light(other, named: "Lamp")["id"]?.stringValue != lamp)
    }

    @Test func aRecordWithoutUUIDsGetsThemOnceAndSavesThem() async throws {
        let old = HueBridgeTests.home.replacing(
            #""seed": 4,"#,
            with: #""seed": 4, "hue": {"users": [{"username": "tests", "devicetype": "t#t", "createdMs": 0}], "#
                + #""lights": {"den.lamp": 1, "den.plug": 2, "hall.spot": 3}, "rooms": {"den": 1, "hall": 2}},"#)
        let fixture = try Fixture(json: Array(old.utf8))
        #expect(try HueBridgeState(record: fixture.fronts["hue"]).resourceIDs.isEmpty)
        let bridge = try await HueTestBridge(fixture: fixture)
        let first = try await ids(bridge)
        #expect(try await ids(bridge) == first)
        #expect(bridge.records.withLock { $0.contains { $0.jsonValue.serialized().contains("resourceIDs") } })
        let restarted = try await bridge.restarted(from: fixture)
        #expect(try await ids(restarted) == first)
    }

    @Test func aZoneOrSceneMadeAfterOneWentGetsAUUIDOfItsOwn() async throws {
        let bridge = try await HueTestBridge()
        let made = try await bridge.answer("POST", "/groups", #"{"name": "Up", "type": "Zone", "lights": ["1"]}"#)
        let number = try #require(made.arrayValue?.first?["success"]?["id"]?.stringValue)
        let zone = try #require(try await v2.resources(bridge, "zone").first?["id"]?.stringValue)
        let den = try #require(try await v2.resources(bridge, "room").first { $0["metadata"]?["name"] == "Den" })
        let lamp = try await v2.light(bridge, named: "Lamp")["id"]!.stringValue!
        let body = """
            {"metadata": {"name": "Read"}, "group": {"rid": "\(den["id"]!.stringValue!)", "rtype": "room"}, \
            "actions": [{"target": {"rid": "\(lamp)", "rtype": "light"}, "action": {"on": {"on": true}}}]}
            """
        let scene = try #require(
            try await v2.v2(bridge, "POST", "/clip/v2/resource/scene", body).json["data"]?.arrayValue?.first?["rid"]?
                .stringValue)
        _ = try await bridge.answer("DELETE", "/groups/\(number)")
        #expect(try await v2.v2(bridge, "DELETE", "/clip/v2/resource/scene/\(scene)").status == 200)
        // After a restart the zone's number is free again, as on a bridge: the zone made under it is another one.
        let restarted = try await bridge.restarted()
        let again = try await restarted.answer("POST", "/groups", #"{"name": "Up", "type": "Zone", "lights": ["1"]}"#)
        #expect(again.arrayValue?.first?["success"]?["id"]?.stringValue == number)
        let newZone = try #require(try await v2.resources(restarted, "zone").first?["id"]?.stringValue)
        #expect(newZone != zone)
        let newScene = try #require(
            try await v2.v2(restarted, "POST", "/clip/v2/resource/scene", body).json["data"]?.arrayValue?.first?["rid"]?
                .stringValue)
        #expect(newScene != scene)
        let kept = Set(await restarted.bridge.state.resourceIDs.values)
        #expect(!kept.contains(zone) && !kept.contains(scene))
    }

    @Test func aRecordsUUIDsAreChecked() throws {
        func read(_ ids: String) throws -> HueBridgeState {
            try HueBridgeState(
                record: try JSONParser.parse(Array(#"{"resourceIDs": \#(ids)}"#.utf8)))
        }
        let uuid = "0f8fad5b-d9cb-469f-a165-70867728950e"
        #expect(try read(#"{"light/a": "\#(uuid)"}"#).resourceIDs == ["light/a": uuid])
        #expect(throws: JSONShapeError.self) { try read(#"{"light/a": "nope"}"#) }
        #expect(throws: JSONShapeError.self) { try read(#"{"sensor/a": "\#(uuid)"}"#) }
        #expect(throws: JSONShapeError.self) { try read(#"{"light/a": "\#(uuid)", "light/b": "\#(uuid)"}"#) }
    }
}
