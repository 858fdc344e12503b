import Foundation
import LumenModel
import LumenStore
import LumenTestSupport
import Testing

/// A light's record that its home updates in place while the store holds it.
@Suite("State store: lights updated in place", .timeLimit(.minutes(2)))
struct PendingLightRecordStoreTests {
    let directory = TemporaryDirectory()
    let fileSystem = FaultyFileSystem()
    let origin = FixtureOrigin(id: "t", digest: "d")
    let lamp = LightFixture(
        id: "lab.lamp", name: "Lamp", model: DeviceModel(kind: .onoff, manufacturer: "Lumen", product: "Test"))

    var home: Fixture { Fixture(id: "t", name: "Home", rooms: [RoomFixture(id: "lab", name: "Lab", lights: [lamp])]) }

    func makeStore() -> StateStore {
        let home = home
        return StateStore(directory: directory.path, fileSystem: fileSystem, durability: .full, origin: origin) {
            home
        }
    }

    func lamp(isOn: Bool, name: String = "Lamp") -> LightFixture {
        var light = lamp
        light.name = name
        light.state.isOn = isOn
        return light
    }

    /// The lamp as a restart would load it.
    func loadedLamp() throws -> LightFixture? {
        let outcome = try StateLoader(directory: directory.path).load(
            fixture: home, origin: origin, fixtureIsExplicit: false, reset: false)
        return outcome.fixture.rooms.first?.lights.first
    }

    func journaled() throws -> [[StateRecord]] {
        let bytes = try #require(try fileSystem.readFile(directory.file(StateStore.journalFileName)))
        return StateJournal.read(bytes).batches.map(\.records)
    }

    @Test func updatesMadeWhileItWaitsAreWrittenOnceInIt() async throws {
        let store = makeStore()
        try await store.compact()
        let pending = PendingLightRecord(lamp(isOn: true), room: "lab")
        store.record(pending)
        for index in 0..<5 { #expect(pending.update(state: lamp(isOn: index % 2 == 1).state)) }
        try await store.waitUntilDurable(store.changeMark)
        #expect(pending.isTaken)
        #expect(!pending.update(state: lamp(isOn: true).state))
        #expect(try journaled() == [[.light(lamp(isOn: false), room: "lab")]])
        #expect(try loadedLamp()?.state.isOn == false)
        await store.close()
    }

    @Test func aRecordReplacedWhileItWaitsTakesNoMoreUpdates() async throws {
        let store = makeStore()
        try await store.compact()
        let pending = PendingLightRecord(lamp(isOn: false), room: "lab")
        store.record(pending)
        store.record(.light(lamp(isOn: false, name: "Heater"), room: "lab"))
        // Written into the record set aside, the change would be lost: the update says so instead.
        #expect(!pending.update(state: lamp(isOn: true).state))
        try await store.flush()
        #expect(try journaled() == [[.light(lamp(isOn: false, name: "Heater"), room: "lab")]])
        await store.close()
    }

    @Test func aFailedCommitKeepsTheLightsLatestStateForTheNextAttempt() async throws {
        let store = makeStore()
        try await store.compact()
        fileSystem.inject(.fail(operation: "write", errno: ENOSPC))
        let pending = PendingLightRecord(lamp(isOn: false), room: "lab")
        store.record(pending)
        await #expect(throws: FileSystemError.self) { try await store.flush() }
        // The commit took it: a later change is noted anew, and replaces what was put back.
        #expect(!pending.update(state: lamp(isOn: true).state))
        let again = PendingLightRecord(lamp(isOn: true), room: "lab")
        store.record(again)
        fileSystem.heal()
        try await store.flush()
        #expect(try loadedLamp()?.state.isOn == true)
        await store.close()
    }
}
