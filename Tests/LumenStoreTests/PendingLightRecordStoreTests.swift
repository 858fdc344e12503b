import Foundation
import LumenModel
import LumenStore
import LumenTestSupport
import Synchronization
import Testing

/// A light's record that its home updates in place while the store holds it.
@Suite("State store: lights updated in place", .timeLimit(.minutes(2)))
struct PendingLightRecordStoreTests {
    let directory = TemporaryDirectory()
    let fileSystem = FaultyFileSystem()
    let origin = FixtureOrigin(id: "t", digest: "d")
    let lamp = LightFixture(
        id: "lab.lamp", name: "Lamp", model: DeviceModel(kind: .dimmable, manufacturer: "Lumen", product: "Test"))

    var home: Fixture { Fixture(id: "t", name: "Home", rooms: [RoomFixture(id: "lab", name: "Lab", lights: [lamp])]) }

    func makeStore() -> StateStore {
        let home = home
        return StateStore(directory: directory.path, fileSystem: fileSystem, durability: .full, origin: origin) {
            home
        }
    }

    /// A store that commits only when asked to (a flush, a waiter): what it holds stays pending meanwhile,
    /// however slowly the test runs.
    func makeWaitingStore() -> StateStore {
        let home = home
        return StateStore(
            directory: directory.path, fileSystem: fileSystem, durability: .relaxed, origin: origin,
            relaxedDelay: .seconds(600)
        ) { home }
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
        let store = makeWaitingStore()
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

    /// A home's thread brings the lamp's record up to date as fast as it can (noting a new one whenever a
    /// commit took the last), while flushes come from another: whatever was written before a flush began is
    /// on disk when it returns, and what loads at the end is the last state written.
    @Test func whatWasWrittenBeforeAFlushIsOnDiskWhenItReturns() async throws {
        let store = makeStore()
        try await store.compact()
        let written = Atomic<Int>(-1)
        let stop = Atomic<Bool>(false)
        // The update's number, in a brightness a load can tell apart (up to 980,000 of them).
        @Sendable func state(_ index: Int) -> LightState {
            var state = lamp.state
            state.brightness = 1 + Double(index) / 10_000
            return state
        }
        func index(_ light: LightFixture?) -> Int {
            Int((((light?.state.brightness ?? 0) - 1) * 10_000).rounded())
        }
        let lamp = lamp
        // A writer that never pauses: on a thread of its own, so it holds none of the pool the store needs.
        let writer = Task {
            await offload {
                var pending: PendingLightRecord?
                var index = 0
                while !stop.load(ordering: .acquiring), index < 980_000 {
                    if pending?.update(state: state(index)) != true {
                        var light = lamp
                        light.state = state(index)
                        pending = PendingLightRecord(light, room: "lab")
                        store.record(pending!)
                    }
                    written.store(index, ordering: .releasing)
                    index += 1
                }
            }
        }
        // On a loaded machine its thread may start late: the flushes are to race a writer already writing.
        while written.load(ordering: .acquiring) < 0 { await Task.yield() }
        for flush in 0..<20 {
            let before = written.load(ordering: .acquiring)
            try await store.flush()
            let loaded = index(try loadedLamp())
            #expect(loaded >= before, "flush \(flush): \(loaded) loaded, \(before) written before it")
            if loaded < before { break }
        }
        stop.store(true, ordering: .releasing)
        await writer.value
        try await store.flush()
        let last = written.load(ordering: .acquiring)
        #expect(last > 0)
        #expect(index(try loadedLamp()) == last)
        await store.close()
    }

    @Test func aRecordReplacedWhileItWaitsTakesNoMoreUpdates() async throws {
        let store = makeWaitingStore()
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
