import LumenProtocol
import Testing

@testable import LumenModel

/// A light's `lifx.address`: the address its bulb answers at on the LIFX LAN.
@Suite("Fixture LIFX addresses")
struct FixtureLIFXAddressTests {
    /// A home whose two lights carry `first` and `second` as their `lifx` objects.
    static func home(_ first: String, _ second: String = "{}") -> String {
        """
        {"schema": 1, "id": "flat", "name": "Flat", "rooms": [{"id": "den", "name": "Den", "lights": [
          {"id": "a", "name": "A", "kind": "color", "manufacturer": "LIFX", "lifx": \(first)},
          {"id": "b", "name": "B", "kind": "color", "manufacturer": "LIFX", "lifx": \(second)}
        ]}]}
        """
    }

    @Test func anAddressIsReadAndWrittenBack() throws {
        let fixture = try Fixture(json: Array(Self.home(#"{"address": "192.168.1.50"}"#).utf8))
        #expect(fixture.rooms[0].lights[0].lifxAddress == IPv4Address("192.168.1.50"))
        #expect(fixture.rooms[0].lights[1].lifxAddress == nil)
        #expect(try Fixture(json: Array(fixture.prettyJSON().utf8)) == fixture, "kept in snapshots")
    }

    @Test(arguments: [
        (#"{"address": "192.168.1"}"#, "expected the bulb's IPv4 address, like 192.168.1.50; not '192.168.1'"),
        (#"{"address": "192.168.01.5"}"#, "not '192.168.01.5'"),
        (#"{"address": "0.0.0.0"}"#, "0.0.0.0 is no device's address"),
        (#"{"address": "255.255.255.255"}"#, "the broadcast address"),
        (#"{"address": "239.1.2.3"}"#, "a multicast or reserved address"),
        (#"{"port": 1}"#, "port"),
    ])
    func aBadAddressIsRefusedWithItsPath(lifx: String, message: String) {
        do {
            _ = try Fixture(json: Array(Self.home(lifx).utf8))
            Issue.record("\(lifx) loaded")
        } catch {
            #expect(error.description.contains("rooms[0].lights[0].lifx"), "got: \(error.description)")
            #expect(error.description.contains(message), "got: \(error.description)")
        }
    }

    @Test func twoLightsCannotShareAnAddress() {
        let same = #"{"address": "10.0.0.5"}"#
        do {
            _ = try Fixture(json: Array(Self.home(same, same).utf8))
            Issue.record("loaded")
        } catch {
            #expect(
                error.description.contains("rooms[0].lights[1].lifx.address")
                    && error.description.contains("the LIFX address 10.0.0.5 is light 'a''s already"),
                "got: \(error.description)")
        }
    }

    @Test func anAddressReadsAsADottedQuad() {
        #expect(IPv4Address("127.0.0.10")?.advanced(by: 1).description == "127.0.0.11")
        #expect(IPv4Address("10.0.0.255")?.advanced(by: 1).description == "10.0.1.0")
        #expect(IPv4Address("1.2.3.4.5") == nil && IPv4Address("a.b.c.d") == nil && IPv4Address("256.0.0.1") == nil)
    }
}
