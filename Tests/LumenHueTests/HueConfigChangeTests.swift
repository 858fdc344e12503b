import LumenModel
import LumenProtocol
import LumenSimulation
import Testing

@testable import LumenHue

/// What an app may change of the bridge's configuration, forgetting a user, and the UPnP description.
@Suite("Hue bridge configuration changes")
struct HueConfigChangeTests {
    @Test func theNameIsTheHomesAndTheLinkButtonCanBePressedButTheRestIsFixed() async throws {
        let bridge = try await HueTestBridge()
        let answer = try await bridge.answer("PUT", "/config", #"{"name": "Upstairs", "linkbutton": true}"#)
        #expect(answer == [["success": ["/config/name": "Upstairs"]], ["success": ["/config/linkbutton": true]]])
        #expect(await bridge.home.name == "Upstairs")
        #expect(await bridge.bridge.isLinkButtonPressed)
        #expect(try await bridge.answer("GET", "/config")["name"] == "Upstairs")
        #expect(try await bridge.errorType("PUT", "/config", #"{"name": "abc"}"#) == 7)
        #expect(try await bridge.errorType("PUT", "/config", #"{"linkbutton": false}"#) == 7)
        let fixed = try await bridge.answer("PUT", "/config", #"{"bridgeid": "X"}"#).arrayValue?.first?["error"]
        #expect(fixed?["type"] == 8 && fixed?["address"] == "/config/bridgeid")
        #expect(try await bridge.errorType("PUT", "/config", #"{"colour": 1}"#) == 6)
    }

    @Test func theBridgesTimeIsTheSimulatedWallClocks() async throws {
        var fixture = try Fixture(json: Array(HueBridgeTests.home.utf8))
        fixture.start = try WallClock(parsing: "2026-12-04T23:00:00+01:00")
        let bridge = try await HueTestBridge(fixture: fixture)
        let config = try await bridge.answer("GET", "/config")
        #expect(config["UTC"]?.stringValue?.hasPrefix("2026-12-04T22:00:0") == true)
        #expect(config["localtime"]?.stringValue?.hasPrefix("2026-12-04T23:00:0") == true)
        #expect(config["timezone"] == "Etc/GMT-1")
        try await bridge.home.advance(byMilliseconds: 7_200_000)
        #expect(
            try await bridge.answer("GET", "/config")["localtime"]?.stringValue?.hasPrefix("2026-12-05T01:00:0") == true
        )
    }

    @Test func aForgottenUserOpensNothingEvenAfterACrash() async throws {
        let bridge = try await HueTestBridge()
        try await bridge.bridge.pairUser("other", deviceType: "other#app")
        let answer = try await bridge.answer("DELETE", "/config/whitelist/other")
        #expect(answer == [["success": "/config/whitelist/other deleted"]])
        #expect(try await bridge.errorType("GET", "/api/other/lights") == 1)
        #expect(try await bridge.errorType("DELETE", "/config/whitelist/other") == 3)
        let again = try await bridge.restarted()
        #expect(await again.bridge.users.map(\.username) == ["tests"])
    }

    @Test func theDescriptionNamesTheBridgeWithoutAUser() async throws {
        let bridge = try await HueTestBridge()
        let request = HTTPRequest(method: "GET", path: "/description.xml", headers: HueBridgeTests.headers)
        guard case .later(let work) = try #require(bridge.bridge.respond(to: request)) else {
            Issue.record("answered at once")
            return
        }
        let response = await work()
        let xml = String(decoding: response.body, as: UTF8.self)
        let config = try await bridge.answer("GET", "/api/config")
        let serial = try #require(config["mac"]?.stringValue).split(separator: ":").joined()
        // A bridge's serial number is its MAC without colons: its bridge ID without the FFFE in the middle.
        let bridgeID = try #require(config["bridgeid"]?.stringValue)
        #expect(serial.count == 12 && serial == (bridgeID.prefix(6) + bridgeID.suffix(6)).lowercased())
        #expect(response.status == 200 && response.headers.contains { $0.value.hasPrefix("text/xml") })
        #expect(
            xml.contains("<serialNumber>\(serial)</serialNumber>") && xml.contains("<modelNumber>BSB002</modelNumber>"))
        #expect(
            xml.contains("<friendlyName>Flat (127.0.0.1)</friendlyName>")
                && xml.contains("<URLBase>http://127.0.0.1/</URLBase>"))
        // A page elsewhere learns nothing of it.
        let foreign = HTTPRequest(method: "GET", path: "/description.xml", headers: ["host": "evil.example"])
        guard case .now(let refused) = try #require(bridge.bridge.respond(to: foreign)) else {
            Issue.record("not refused")
            return
        }
        #expect(refused.status == 403)
    }
}
