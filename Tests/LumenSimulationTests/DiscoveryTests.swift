import LumenModel
import LumenProtocol
import Testing

@testable import LumenSimulation

/// Discovery without a home: which waiting lights a search finds and when, and what each room shows of it.
@Suite("Discovery")
struct DiscoveryTests {
    static func waiting(_ id: LightID, after delayMs: Double) -> PendingLight {
        PendingLight(
            delayMs: delayMs,
            light: LightFixture(
                id: id, name: id.rawValue, model: DeviceModel(kind: .dimmable, manufacturer: "Lumen", product: "Test")))
    }

    static let noJitter = DiscoverySettings(scanDurationMs: 10_000, maxLightsPerScan: 2, jitterMs: 0)

    @Test func aSearchFindsTheEarliestLightsOfEveryRoomUpToItsMostAndOnlyThoseInTime() {
        var discovery = Discovery(Self.noJitter)
        var random = LumenSimulation.SeededRandom(seed: 1)
        let search = discovery.begin(
            at: 1_000,
            rooms: [
                ("hall", [Self.waiting("hall.late", after: 9_000), Self.waiting("hall.never", after: 10_000)]),
                ("den", [Self.waiting("den.first", after: 500), Self.waiting("den.tie", after: 9_000)]),
            ], random: &random)
        #expect(search.scan.id == 1)
        #expect(search.scan.startedMs == 1 && search.scan.endsMs == 10_001)
        #expect(search.endsAt == 10_001_000)
        // At the same moment, the hall's light before the den's: rooms in order.
        #expect(search.finds.map(\.light) == ["den.first", "hall.late"])
        #expect(search.finds.map(\.at) == [501_000, 9_001_000])
        #expect(search.rooms == ["hall", "den"])
    }

    @Test func theJitterIsDrawnFromTheStreamGivenAndKeepsAFindWithinTheSearch() {
        let settings = DiscoverySettings(scanDurationMs: 1_000, maxLightsPerScan: 15, jitterMs: 5_000)
        func plan(seed: UInt64) -> [Int64] {
            var discovery = Discovery(settings)
            var random = LumenSimulation.SeededRandom(seed: seed)
            let waiting = (0..<8).map { Self.waiting(LightID("l\($0)"), after: 500) }
            return discovery.begin(at: 0, rooms: [("hall", waiting)], random: &random).finds.map(\.at)
        }
        #expect(plan(seed: 5) == plan(seed: 5))
        #expect(plan(seed: 5) != plan(seed: 6))
        #expect(plan(seed: 5).allSatisfy { (0..<1_000_000).contains($0) })
        #expect(plan(seed: 5) == plan(seed: 5).sorted())
    }

    @Test func eachRoomShowsItsOwnFindsAndTheLastScanOnceItEnds() throws {
        var discovery = Discovery(Self.noJitter)
        var random = LumenSimulation.SeededRandom(seed: 1)
        #expect(discovery.scanValue(in: "hall") == .object(["isScanning": false]))
        let search = discovery.begin(at: 0, rooms: [("hall", []), ("den", [])], random: &random)
        #expect(discovery.noteFound("hall.lamp", in: "hall")?.found == ["hall.lamp"])
        #expect(discovery.scan(in: "den")?.found == [])
        #expect(discovery.latestSearch(in: ["hall", "den"]).active)
        #expect(discovery.latestSearch(in: ["hall", "den"]).found == ["hall.lamp"])
        // An end for another scan changes nothing.
        #expect(discovery.end(in: "hall", scan: search.scan.id + 1) == nil)
        let ending = discovery.end(in: "hall", scan: search.scan.id)
        let ended = try #require(ending)
        #expect(ended.found == ["hall.lamp"])
        #expect(discovery.scan(in: "hall") == nil)
        #expect(discovery.scanValue(in: "hall") == ended.jsonValue(isScanning: false))
        #expect(discovery.end(in: "hall", scan: search.scan.id) == nil, "ended once")
        _ = discovery.end(in: "den", scan: search.scan.id)
        let latest = discovery.latestSearch(in: ["hall", "den"])
        #expect(!latest.active && latest.endedMs == 10_000 && latest.found == ["hall.lamp"])
    }

    @Test func aRoomAddedDuringASearchJoinsItAndTheNextSearchIsNumberedOn() {
        var discovery = Discovery(Self.noJitter)
        var random = LumenSimulation.SeededRandom(seed: 1)
        let first = discovery.begin(at: 0, rooms: [("hall", [])], random: &random)
        #expect(discovery.runningSearch(in: ["den", "hall"]) == first.scan)
        discovery.join("den", first.scan)
        #expect(discovery.scan(in: "den") == first.scan)
        // A room removed forgets what it showed.
        discovery.forget("den")
        #expect(discovery.scan(in: "den") == nil && discovery.scanValue(in: "den") == .object(["isScanning": false]))
        _ = discovery.end(in: "hall", scan: first.scan.id)
        #expect(discovery.runningSearch(in: ["den", "hall"]) == nil)
        let second = discovery.begin(at: 20_000_000, rooms: [("hall", [])], random: &random)
        #expect(second.scan.id == 2)
    }

    @Test func aSearchLeavesARoomShowingAScanAlreadyAsItIs() {
        var discovery = Discovery(Self.noJitter)
        var random = LumenSimulation.SeededRandom(seed: 1)
        let first = discovery.begin(at: 0, rooms: [("hall", [])], random: &random)
        let second = discovery.begin(at: 0, rooms: [("hall", []), ("den", [])], random: &random)
        #expect(second.rooms == ["den"])
        #expect(discovery.scan(in: "hall") == first.scan)
    }
}
