import LumenProtocol
import Testing

@Suite("Wire messages")
struct WireMessageTests {
    @Test func aRequestIsWrittenAsTheProtocolSpellsIt() throws {
        let bytes = Wire.request(
            id: .int(7), method: WireMethod.get.rawValue, params: ["scope": 0, "connection": "name"])
        let parsed = try JSONParser.parse(bytes)
        #expect(parsed["jsonrpc"] == "2.0")
        #expect(parsed["id"] == 7)
        #expect(parsed["method"] == "get")
        #expect(parsed["params"]?["connection"] == "name")
        let notice = try JSONParser.parse(Wire.request(id: nil, method: "hello", params: nil))
        #expect(notice["id"] == nil && notice["params"] == nil)
    }

    @Test func responsesAndNotificationsReadBackAsWritten() {
        let error = LumenError(.unreachable, "kitchen.spot-1 is unreachable", data: ["light": "kitchen.spot-1"])
        #expect(WireMessage(line: Wire.response(id: "a", .failure(error))) == .response(id: "a", .failure(error)))
        #expect(
            WireMessage(line: Wire.response(id: 1.5, .success(["value": true])))
                == .response(id: 1.5, .success(["value": true])))
        let changed = Wire.notification(.changed, params: ["subscription": 3, "value": 40, "seq": 2])
        #expect(
            WireMessage(line: changed)
                == .notification(method: "changed", params: ["subscription": 3, "value": 40, "seq": 2]))
        let batch = Wire.batch(responses: [
            Wire.response(id: 1, .success(.null)), Wire.response(id: 2, .failure(error)),
        ])
        #expect((try? JSONParser.parse(batch))?.arrayValue?.count == 2)
    }

    @Test func whatIsNeitherAResponseNorANotificationIsNotAMessage() {
        #expect(WireMessage(line: Array("{\"id\":1}".utf8)) == nil)
        #expect(WireMessage(line: Array("not json".utf8)) == nil)
        // A malformed error object still reads as an error, never as a success.
        #expect(
            WireMessage(.object(["id": 1, "error": "bad"]))
                == .response(id: 1, .failure(LumenError(.internalError, "unknown error"))))
    }

    @Test func everyMethodAndNotificationKeepsItsPublishedName() {
        #expect(
            WireMethod.allCases.map(\.rawValue) == [
                "hello", "describe", "open", "close", "get", "set", "call", "subscribe", "unsubscribe",
            ])
        #expect(WireNotification.allCases.map(\.rawValue) == ["changed", "closed", "reload"])
        let codes: [LumenError.Code] = [
            .parseError, .invalidRequest, .methodNotFound, .invalidParams, .internalError, .noSuchScope,
            .noSuchConnection, .wrongConnectionKind, .noSuchEntity, .notSupported, .unreachable, .timedOut, .busy,
            .deviceOff, .limitExceeded, .alreadyExists, .needsVirtualClock, .notPersisted, .shuttingDown,
            .permissionDenied,
        ]
        #expect(
            codes.map(\.rawValue) == [
                -32700, -32600, -32601, -32602, -32603, -32001, -32002, -32003, -32004, -32005, -32010, -32011, -32012,
                -32013, -32020, -32021, -32030, -32040, -32050, -32060,
            ])
    }
}
