import LumenModel
import LumenProtocol
import LumenSimulation
import LumenTestSupport
import Testing

@testable import LumenHue

/// A value written through one front reads back through the other as the same value, in the reader's units:
/// the scope protocol and the Hue bridge over one light (`den.lamp`, the bridge's light 1).
@Suite("Colours between the scope protocol and the Hue bridge")
struct HueScopeColorTableTests {
    /// One row: what the scope protocol sets, and what the bridge then reports; or what the bridge is sent,
    /// and what the scope protocol then reads.
    struct Row: Sendable, CustomStringConvertible {
        var scope: LightChange
        var hue: String
        var description: String { hue }
    }

    static let rows = [
        Row(scope: LightChange(isOn: true, brightness: 50), hue: #""on": true, "bri": 126"#),
        Row(scope: LightChange(isOn: true, brightness: 100), hue: #""on": true, "bri": 254"#),
        Row(scope: LightChange(isOn: true, colorTemperature: 366), hue: #""on": true, "ct": 366"#),
        Row(scope: LightChange(isOn: true, colorTemperature: 153), hue: #""on": true, "ct": 153"#),
        Row(scope: LightChange(isOn: true, color: CIEColor(x: 0.2, y: 0.3)), hue: #""on": true, "xy": [0.2, 0.3]"#),
        Row(
            scope: LightChange(isOn: true, color: CIEColor(hue: 0.5, saturation: 1)),
            hue: #""on": true, "hue": 32768, "sat": 254"#),
        Row(scope: LightChange(isOn: false), hue: #""on": false"#),
    ]

    /// Makes `change` through the door as a scope session does, moving the clock until it is made.
    func performed(_ change: LightChange, on bridge: HueTestBridge) async throws {
        let context = bridge.bridge.scopeContext
        _ = try await bridge.home.driving { () async -> Result<LightState, LumenError> in
            do throws(LumenError) {
                return .success(try await context.perform(change, to: "den.lamp", transitionMs: 0, from: "session 1"))
            } catch { return .failure(error) }
        }.get()
    }

    /// The light's state as the bridge reports it, only the keys of `row`.
    func reported(_ row: Row, by bridge: HueTestBridge) async throws -> JSONValue {
        let state = try await bridge.answer("GET", "/lights/1")["state"]
        let sent = try JSONParser.parse(Array("{\(row.hue)}".utf8))
        return .object(JSONObject((sent.objectValue ?? [:]).map { (key: $0.key, value: state?[$0.key] ?? .null) }))
    }

    @Test(arguments: rows)
    func writtenThroughTheScopeProtocolReadsBackOnTheBridge(row: Row) async throws {
        let bridge = try await HueTestBridge()
        try await performed(row.scope, on: bridge)
        #expect(try await reported(row, by: bridge) == JSONParser.parse(Array("{\(row.hue)}".utf8)))
    }

    @Test(arguments: rows)
    func writtenThroughTheBridgeReadsBackOnTheScopeProtocol(row: Row) async throws {
        let bridge = try await HueTestBridge()
        // From a state that differs in every property the rows set.
        try await performed(
            LightChange(isOn: true, brightness: 10, color: CIEColor(x: 0.5, y: 0.4)), on: bridge)
        _ = try await bridge.answer("PUT", "/lights/1/state", "{\(row.hue), \"transitiontime\": 0}")
        let state = try await bridge.home.light("den.lamp").state
        #expect(state.isOn == row.scope.isOn ?? true)
        if let brightness = row.scope.brightness {
            // Within one of the bridge's 254 levels.
            #expect(abs(state.brightness - brightness) <= 99.0 / 253, "\(state.brightness)")
        }
        if let mireds = row.scope.colorTemperature {
            #expect(state.colorTemperature == mireds && state.showsColorTemperature)
        }
        if let color = row.scope.color {
            #expect(abs(state.color.x - color.x) < 0.0001 && abs(state.color.y - color.y) < 0.0001, "\(state.color)")
        }
    }
}
