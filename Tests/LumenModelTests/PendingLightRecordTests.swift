import LumenModel
import LumenProtocol
import Testing

@Suite("Pending light records")
struct PendingLightRecordTests {
    let lamp = LightFixture(
        id: "lab.lamp", name: "Lamp", model: DeviceModel(kind: .dimmable, manufacturer: "Lumen", product: "Test"))

    @Test func updatesBeforeItIsTakenAreWhatItSaves() {
        let pending = PendingLightRecord(lamp, room: "lab")
        var state = lamp.state
        state.isOn = false
        state.brightness = 12
        #expect(pending.update(state: state))
        #expect(!pending.isTaken)
        guard case .light(let light, let room) = pending.take() else {
            Issue.record("expected a light record")
            return
        }
        #expect(light.state == state && light.name == "Lamp" && room == "lab")
    }

    @Test func onceTakenItTakesNoUpdateAndIsNotTakenTwice() {
        let pending = PendingLightRecord(lamp, room: "lab")
        #expect(pending.take() != nil)
        #expect(pending.isTaken)
        var state = lamp.state
        state.isOn.toggle()
        #expect(!pending.update(state: state))
        #expect(pending.take() == nil)
    }

    @Test func aSinkThatHoldsNothingTakesItAtOnce() {
        final class Log: StateRecordSink {
            let records = Locked<[StateRecord]>([])
            func record(_ record: StateRecord) { records.withLock { $0.append(record) } }
        }
        let log = Log()
        let pending = PendingLightRecord(lamp, room: "lab")
        log.record(pending)
        #expect(pending.isTaken)
        #expect(log.records.withLock { $0 } == [.light(lamp, room: "lab")])
    }
}
