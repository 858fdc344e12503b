import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation
import Testing

@testable import LumenLIFX

/// The addresses given by count to LIFX bulbs stay theirs while lumend runs: a bulb added or removed moves no
/// other, as a client that keeps bulbs by address (Home Assistant) needs.
@Suite("LIFX addresses given by count")
struct LIFXAddressCountTests {
    static let home = """
        {"schema": 1, "id": "lan", "name": "LAN", "seed": 1, "rooms": [
          {"id": "hall", "name": "Hall", "lights": [
            {"id": "hall.a", "name": "A", "kind": "color", "manufacturer": "LIFX"},
            {"id": "hall.b", "name": "B", "kind": "color", "manufacturer": "LIFX", "lifx": {"address": "127.0.0.11"}}
          ]},
          {"id": "den", "name": "Den", "lights": [
            {"id": "den.c", "name": "C", "kind": "color", "manufacturer": "LIFX"}
          ]}
        ]}
        """

    @Test func aBulbAddedOrRemovedMovesNoOther() async throws {
        let home = Home(fixture: try Fixture(json: Array(Self.home.utf8)), clock: .virtual)
        let front = LIFXFront(
            scopeContext: ScopeContext(home: home), port: 0, firstAddress: try #require(IPv4Address("127.0.0.10")))
        func addresses() async -> [String: String] {
            Dictionary(
                uniqueKeysWithValues: await front.bulbs().map {
                    ($0.light.id.rawValue, $0.address.description)
                })
        }
        // In the home's order, skipping the address a fixture gives.
        #expect(await addresses() == ["hall.a": "127.0.0.10", "hall.b": "127.0.0.11", "den.c": "127.0.0.12"])
        try await home.removeLight("hall.a")
        try await home.addLight(
            LightFixture(
                id: "hall.new", name: "New", model: DeviceModel(kind: .color, manufacturer: "LIFX", product: "A19")),
            to: "hall")
        #expect(await addresses() == ["hall.b": "127.0.0.11", "den.c": "127.0.0.12", "hall.new": "127.0.0.13"])
    }

    @Test func aBulbAddedWhileRunningAnswersABroadcastFromItsAddressUnlessItsAddressIsNotReached() async throws {
        let home = Home(fixture: try Fixture(json: Array(Self.home.utf8)), clock: .virtual)
        let front = LIFXFront(
            scopeContext: ScopeContext(home: home), port: 0, firstAddress: try #require(IPv4Address("127.0.0.10")))
        _ = await front.bulbs()
        try await home.addLight(
            LightFixture(
                id: "hall.new", name: "New", model: DeviceModel(kind: .color, manufacturer: "LIFX", product: "A19")),
            to: "hall")
        let discovery = LIFXPacket(tagged: true, source: 7, sequence: 1, type: 2)
        func answeredFrom(reaching reaches: (@Sendable (IPv4Address) -> Bool)?) async throws -> Set<String> {
            let answering = front.respond(to: discovery.bytes, from: { "127.0.0.1:5" }, reaching: reaches)
            let work = try #require(answering)
            let from = Locked<Set<String>>([])
            await work { _, address in from.withLock { _ = $0.insert(address?.description ?? "none") } }
            return from.withLock { $0 }
        }
        #expect(try await answeredFrom(reaching: nil) == ["127.0.0.10", "127.0.0.11", "127.0.0.12", "127.0.0.13"])
        let notTheNewOne: @Sendable (IPv4Address) -> Bool = { $0.description != "127.0.0.13" }
        #expect(try await answeredFrom(reaching: notTheNewOne) == ["127.0.0.10", "127.0.0.11", "127.0.0.12"])
    }

    @Test func aBulbThatComesIsGivenItsAddressAndCheckedAtOnce() async throws {
        let home = Home(fixture: try Fixture(json: Array(Self.home.utf8)), clock: .virtual)
        let reports = Locked<[String]>([])
        let front = LIFXFront(
            scopeContext: ScopeContext(home: home), port: 0, firstAddress: try #require(IPv4Address("127.0.0.10")),
            addressProblem: { $0.description == "127.0.0.12" ? "not here" : nil },
            report: { message in reports.withLock { $0.append(message) } })
        func addresses() async -> [String: String] {
            Dictionary(uniqueKeysWithValues: await front.bulbs().map { ($0.light.id.rawValue, $0.address.description) })
        }
        #expect(await addresses()["den.c"] == "127.0.0.12")
        func bulb(_ id: LightID, at address: String?) throws -> LightFixture {
            var light = LightFixture(
                id: id, name: "New", model: DeviceModel(kind: .color, manufacturer: "LIFX", product: "A19"))
            light.lifxAddress = try address.map { try #require(IPv4Address($0)) }
            return light
        }
        // A fixture's address taken by another light is refused; one given by count is the fixture's to take.
        await #expect(throws: LumenError.self) {
            try await home.addLight(try bulb("den.e", at: "127.0.0.11"), to: "den")
        }
        try await home.addLight(try bulb("den.d", at: "127.0.0.12"), to: "den")
        // Checked as the light came, before any datagram: den.d cannot answer here, and den.c moved.
        let said = reports.withLock { $0 }
        #expect(said.count == 2)
        #expect(said.first?.contains("'den.c', counted to it before, answers at 127.0.0.13 now") == true)
        #expect(said.last?.contains("'den.d' answers at 127.0.0.12, which is not an address of this machine") == true)
        #expect(
            await addresses() == [
                "hall.a": "127.0.0.10", "hall.b": "127.0.0.11", "den.c": "127.0.0.13", "den.d": "127.0.0.12",
            ])
        // A bulb given one by count is checked too.
        try await home.addLight(try bulb("den.f", at: nil), to: "den")
        #expect(await addresses()["den.f"] == "127.0.0.14" && reports.withLock { $0.count } == 2)
    }

    @Test func aCountNeverGivesALANsOwnOrBroadcastAddress() async throws {
        let home = Home(fixture: try Fixture(json: Array(Self.home.utf8)), clock: .virtual)
        let front = LIFXFront(
            scopeContext: ScopeContext(home: home), port: 0, firstAddress: try #require(IPv4Address("192.168.1.254")))
        let addresses = await front.bulbs().map(\.address.description)
        #expect(addresses == ["192.168.1.254", "127.0.0.11", "192.168.2.1"])
    }

    /// Many bulbs counted at once, as at start: each takes the next address after the one before, skipping a
    /// LAN's own and broadcast addresses and those fixtures give, the same as counting them one by one gives.
    @Test func manyBulbsCountedAtOnceTakeTheNextFreeAddressesInTurn() async throws {
        let lights = (0..<600).map { index in
            let address = index == 300 ? #", "lifx": {"address": "10.0.1.7"}"# : ""
            return #"{"id": "l\#(index)", "name": "L\#(index)", "kind": "color", "manufacturer": "LIFX"\#(address)}"#
        }
        let text =
            #"{"schema": 1, "id": "lan", "name": "LAN", "rooms": [{"id": "r", "name": "R", "lights": ["#
            + lights.joined(separator: ",") + "]}]}"
        let home = Home(fixture: try Fixture(json: Array(text.utf8)), clock: .virtual)
        let front = LIFXFront(
            scopeContext: ScopeContext(home: home), port: 0, firstAddress: try #require(IPv4Address("10.0.0.250")))
        var expected: [String] = []
        var next = (third: 0, fourth: 250)
        for index in 0..<600 {
            if index == 300 {
                expected.append("10.0.1.7")
                continue
            }
            while next.fourth == 0 || next.fourth == 255 || (next.third, next.fourth) == (1, 7) {
                next = next.fourth == 255 ? (next.third + 1, 0) : (next.third, next.fourth + 1)
            }
            expected.append("10.0.\(next.third).\(next.fourth)")
            next = next.fourth == 255 ? (next.third + 1, 0) : (next.third, next.fourth + 1)
        }
        #expect(await front.bulbs().map(\.address.description) == expected)
    }
}
