import LumenModel

/// Something the simulation does at a set time.
enum SimulationEvent: Sendable, Hashable {
    /// A command reaches its device and takes effect.
    case applyCommand(UInt64)
    /// A command that the device never confirmed fails.
    case failCommand(UInt64, LumenErrorCodeBox)
    /// A transition moves one step.
    case transitionStep(LightID, generation: UInt32)
    /// A discovery scan finds a light.
    case discoverLight(RoomID, scan: UInt64, LightID)
    /// A discovery scan ends.
    case endScan(RoomID, scan: UInt64)
    /// A scheduled fault begins or ends.
    case fault(index: Int, begins: Bool)
    /// The controller notices that a light it has not reached for a while is unreachable.
    case reportUnreachable(LightID, spell: UInt32)
    /// A question to a light reaches it, which answers with its state.
    case answerQuery(UInt64)
    /// A light's breathing (``LightEffect/breathing``) may have run its course.
    case endBreathing(LightID)
    /// Someone sleeping on the simulation's clock wakes (``Home/sleep(milliseconds:)``).
    case wake(UInt64)

    /// Whether this is work under way, which settling the clock waits for: anything but a scheduled fault.
    var isWork: Bool {
        if case .fault = self { false } else { true }
    }
}

/// `LumenError.Code` is a struct of static constants; this keeps the event enum `Hashable` and small.
struct LumenErrorCodeBox: Sendable, Hashable {
    let rawValue: Int
}

struct ScheduledEvent: Sendable {
    let due: Int64
    let sequence: UInt64
    let event: SimulationEvent

    /// The defined order of events: by due time, then by the order they were scheduled in.
    func precedes(_ other: ScheduledEvent) -> Bool {
        due != other.due ? due < other.due : sequence < other.sequence
    }
}

/// A binary min-heap of events: O(log n) to schedule and to take the next one.
struct EventQueue: Sendable {
    private var heap: [ScheduledEvent] = []
    private var nextSequence: UInt64 = 0
    /// Events that are work under way (a command, a fade, a scan), not the fixture's schedule of faults.
    private(set) var pendingWork = 0

    var count: Int { heap.count }
    var nextDue: Int64? { heap.first?.due }

    mutating func schedule(_ event: SimulationEvent, at due: Int64) {
        if event.isWork { pendingWork += 1 }
        heap.append(ScheduledEvent(due: due, sequence: nextSequence, event: event))
        nextSequence += 1
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Takes the first event due at or before `time`.
    mutating func popDue(notAfter time: Int64) -> ScheduledEvent? {
        guard let first = heap.first, first.due <= time else { return nil }
        if first.event.isWork { pendingWork -= 1 }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < heap.count, heap[left].precedes(heap[smallest]) { smallest = left }
                if right < heap.count, heap[right].precedes(heap[smallest]) { smallest = right }
                if smallest == parent { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return first
    }
}
