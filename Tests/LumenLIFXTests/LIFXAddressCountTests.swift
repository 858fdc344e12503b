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
        func answeredFrom(reaching reaches: (@Sendable () -> @Sendable (IPv4Address) -> Bool)?) async throws
            -> Set<String>
        {
            let answering = front.respond(to: discovery.bytes, from: { "127.0.0.1:5" }, reaching: reaches)
            let work = try #require(answering)
            let from = Locked<Set<String>>([])
            await work { _, address in from.withLock { _ = $0.insert(address?.description ?? "none") } }
            return from.withLock { $0 }
        }
        #expect(try await answeredFrom(reaching: nil) == ["127.0.0.10", "127.0.0.11", "127.0.0.12", "127.0.0.13"])
        let notTheNewOne: @Sendable (IPv4Address) -> Bool = { $0.description != "127.0.0.13" }
        #expect(try await answeredFrom(reaching: { notTheNewOne }) == ["127.0.0.10", "127.0.0.11", "127.0.0.12"])
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

    /// A serial is 24 bits of a digest, so two bulbs can share one: a message to it is answered by both, in the
    /// home's order, even when the one added later sits in an earlier room.
    @Test func twoBulbsWhoseSerialsCollideAreBothAnsweredInTheHomesOrder() async throws {
        // These two IDs' serials in the home "lan" collide (found by trying IDs in turn).
        let (first, second): (LightID, LightID) = ("den.bulb8345", "den.bulb19510")
        let serial = DeviceSerial.of(home: "lan", light: first)
        #expect(DeviceSerial.of(home: "lan", light: second) == serial)
        let home = Home(fixture: try Fixture(json: Array(Self.home.utf8)), clock: .virtual)
        let front = LIFXFront(
            scopeContext: ScopeContext(home: home), port: 0, firstAddress: try #require(IPv4Address("127.0.0.10")))
        let model = DeviceModel(kind: .color, manufacturer: "LIFX", product: "A19")
        // The first is placed as it comes, and the book then knows every bulb: the second is listed after it.
        try await home.addLight(LightFixture(id: first, name: "First", model: model), to: "den")
        try await home.addLight(LightFixture(id: second, name: "Second", model: model), to: "hall")
        #expect(await front.bulbs(.serial(serial)).map(\.light.id) == [second, first])
        #expect(await front.bulbs(.every).map(\.light.id) == ["hall.a", "hall.b", second, "den.c", first])
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

    /// A bulb that comes is placed at once when the front has seen every bulb, without looking at them all
    /// again; it must land where looking at them all would put it. Two fronts hear the same home: one that places
    /// bulbs at once, and one made to look at every bulb each time, as it did before.
    @Test func aBulbPlacedAtOnceTakesTheAddressLookingAtEveryBulbGives() async throws {
        let home = Home(fixture: try Fixture(json: Array(Self.home.utf8)), clock: .virtual)
        let first = try #require(IPv4Address("127.0.0.10"))
        let atOnce = LIFXFront(scopeContext: ScopeContext(home: home), port: 0, firstAddress: first)
        let looking = LIFXFront(scopeContext: ScopeContext(home: home), port: 0, firstAddress: first)
        func addresses(_ front: LIFXFront) async -> [String: String] {
            Dictionary(uniqueKeysWithValues: await front.bulbs().map { ($0.light.id.rawValue, $0.address.description) })
        }
        func bulb(_ id: LightID, at address: String? = nil) throws -> LightFixture {
            var light = LightFixture(
                id: id, name: "New", model: DeviceModel(kind: .color, manufacturer: "LIFX", product: "A19"))
            light.lifxAddress = try address.map { try #require(IPv4Address($0)) }
            return light
        }
        #expect(await addresses(atOnce) == addresses(looking))
        // Into either room, with an address of its own, one taking another's counted one, one re-added, one that
        // stops and starts being a bulb by its settings; each after the fronts saw every bulb.
        let steps: [() async throws -> Void] = [
            { try await home.addLight(try bulb("hall.n1"), to: "hall") },
            { try await home.addLight(try bulb("den.n2"), to: "den") },
            { try await home.addLight(try bulb("den.n3", at: "127.0.0.20"), to: "den") },
            { try await home.addLight(try bulb("hall.n4", at: "127.0.0.12"), to: "hall") },
            { try await home.removeLight("hall.n1") },
            { try await home.addLight(try bulb("hall.n1"), to: "hall") },
            { try await home.updateSettings(DeviceSettings(network: LightNetwork.none), light: "den.c") },
            { try await home.addLight(try bulb("den.n5"), to: "den") },
            { try await home.updateSettings(DeviceSettings(network: .lifxLAN), light: "den.c") },
            { try await home.addLight(try bulb("hall.n6"), to: "hall") },
            {
                var unseen = try bulb("hall.x")
                unseen.settings = DeviceSettings(network: LightNetwork.none)
                try await home.addLight(unseen, to: "hall")
            },
            // A bulb by its settings now, unseen by either front when the next comes: counted before it, in the
            // home's order.
            {
                try await home.updateSettings(DeviceSettings(network: .lifxLAN), light: "hall.x")
                try await home.addLight(try bulb("den.n7"), to: "den")
            },
        ]
        for step in steps {
            _ = await addresses(atOnce)
            _ = await addresses(looking)
            looking.book.withLock { $0.isComplete = false }
            try await step()
            #expect(await addresses(atOnce) == addresses(looking))
        }
        #expect(
            await addresses(atOnce) == [
                "hall.a": "127.0.0.10", "hall.b": "127.0.0.11", "hall.n4": "127.0.0.12", "hall.n1": "127.0.0.13",
                "den.n2": "127.0.0.14", "den.c": "127.0.0.15", "den.n3": "127.0.0.20", "den.n5": "127.0.0.16",
                "hall.n6": "127.0.0.17", "hall.x": "127.0.0.18", "den.n7": "127.0.0.19",
            ])
    }

    /// A datagram to one bulb finds it at once, by its address or its serial, as looking at every bulb does.
    @Test func aBulbFoundAtOnceIsTheOneLookingAtEveryBulbFinds() async throws {
        let home = Home(fixture: try Fixture(json: Array(Self.home.utf8)), clock: .virtual)
        let front = LIFXFront(
            scopeContext: ScopeContext(home: home), port: 0, firstAddress: try #require(IPv4Address("127.0.0.10")))
        let bulbs = await front.bulbs()
        let unknown = try #require(IPv4Address("127.0.0.99"))
        for bulb in bulbs {
            let other = bulbs.first { $0.light.id != bulb.light.id }!
            let addressees: [LIFXAddressee] = [
                .address(bulb.address), .serial(bulb.serial), .both(bulb.address, serial: bulb.serial),
                .both(bulb.address, serial: other.serial), .address(unknown),
            ]
            for addressee in addressees {
                let atOnce = await home.reading { home in
                    front.book.withLock { book in front.named(addressee, in: home, book: book) }
                }
                let everyBulb = await home.reading { home in
                    front.book.withLock { book in
                        front.everyBulb(addressee, in: home, book: &book)
                    }
                }
                #expect(atOnce?.map(\.light.id) == everyBulb.map(\.light.id))
                #expect(atOnce?.map(\.address) == everyBulb.map(\.address))
            }
        }
    }

    /// A restore that adds bulbs and makes a light a bulb by its settings counts them in the home's order, as
    /// looking at every bulb as each comes does: the front is told of the settings before a later bulb comes.
    @Test func aRestoreCountsTheBulbsItMakesInTheHomesOrder() async throws {
        func home(_ extra: (hall: String, denY: String, attic: String)) -> String {
            """
            {"schema": 1, "id": "lan", "name": "LAN", "seed": 1, "rooms": [
              {"id": "hall", "name": "Hall", "lights": [
                {"id": "hall.a", "name": "A", "kind": "color", "manufacturer": "LIFX"},
                {"id": "hall.b", "name": "B", "kind": "color", "manufacturer": "LIFX", "lifx": {"address": "127.0.0.11"}}\(extra.hall)
              ]},
              {"id": "den", "name": "Den", "lights": [
                {"id": "den.c", "name": "C", "kind": "color", "manufacturer": "LIFX"},
                {"id": "den.y", "name": "Y", "kind": "color", "manufacturer": "LIFX", "network": "\(extra.denY)"}
              ]},
              {"id": "attic", "name": "Attic", "lights": [
                {"id": "attic.w", "name": "W", "kind": "color", "manufacturer": "LIFX"}\(extra.attic)
              ]}
            ]}
            """
        }
        let before = home((hall: "", denY: "none", attic: ""))
        let after = home(
            (
                hall: #", {"id": "hall.n", "name": "N", "kind": "color", "manufacturer": "LIFX"}"#, denY: "lifx-lan",
                attic: #", {"id": "attic.z", "name": "Z", "kind": "color", "manufacturer": "LIFX"}"#
            ))
        let lan = Home(fixture: try Fixture(json: Array(before.utf8)), clock: .virtual)
        let front = LIFXFront(
            scopeContext: ScopeContext(home: lan), port: 0, firstAddress: try #require(IPv4Address("127.0.0.10")))
        func addresses() async -> [String: String] {
            Dictionary(uniqueKeysWithValues: await front.bulbs().map { ($0.light.id.rawValue, $0.address.description) })
        }
        #expect(
            await addresses() == [
                "hall.a": "127.0.0.10", "hall.b": "127.0.0.11", "den.c": "127.0.0.12", "attic.w": "127.0.0.13",
            ])
        try await lan.restore(to: try Fixture(json: Array(after.utf8)))
        // hall.n came first and was counted with every bulb then; den.y became a bulb before attic.z came.
        #expect(
            await addresses() == [
                "hall.a": "127.0.0.10", "hall.b": "127.0.0.11", "den.c": "127.0.0.12", "attic.w": "127.0.0.13",
                "hall.n": "127.0.0.14", "den.y": "127.0.0.15", "attic.z": "127.0.0.16",
            ])
    }

    /// A restore that changes a room's defaults reaches the room's lights, though a light added to a room before
    /// it makes the front look at every bulb while the restore is still under way.
    @Test func aRoomsDefaultsChangedByARestoreReachItsLights() async throws {
        func home(hallExtra: String, denDefaults: String) -> String {
            """
            {"schema": 1, "id": "lan", "name": "LAN", "seed": 1, "rooms": [
              {"id": "hall", "name": "Hall", "lights": [
                {"id": "hall.a", "name": "A", "kind": "color", "manufacturer": "LIFX"}\(hallExtra)
              ]},
              {"id": "den", "name": "Den", \(denDefaults) "lights": [
                {"id": "den.y", "name": "Y", "kind": "color", "manufacturer": "LIFX"}
              ]}
            ]}
            """
        }
        let before = home(hallExtra: "", denDefaults: #""network": "none","#)
        let after = home(
            hallExtra: #", {"id": "hall.n", "name": "N", "kind": "color", "manufacturer": "LIFX"}"#, denDefaults: "")
        let first = try #require(IPv4Address("127.0.0.10"))
        func addresses(_ home: Home) async -> [String] {
            let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 0, firstAddress: first)
            return await front.bulbs().map { "\($0.light.id)=\($0.address)" }
        }
        let lan = Home(fixture: try Fixture(json: Array(before.utf8)), clock: .virtual)
        let front = LIFXFront(scopeContext: ScopeContext(home: lan), port: 0, firstAddress: first)
        #expect(await front.bulbs().map { "\($0.light.id)=\($0.address)" } == ["hall.a=127.0.0.10"])
        try await lan.restore(to: try Fixture(json: Array(after.utf8)))
        let fresh = Home(fixture: try Fixture(json: Array(after.utf8)), clock: .virtual)
        let restored = await front.bulbs().map { "\($0.light.id)=\($0.address)" }
        #expect(restored == ["hall.a=127.0.0.10", "hall.n=127.0.0.11", "den.y=127.0.0.12"])
        #expect(restored == (await addresses(fresh)))
    }
}
