import LumenModel
import LumenProtocol
import Synchronization
import Testing

@testable import LumenSimulation

/// Who hears of the home's changes, without a home: observers hear all, watchers only what is watched.
@Suite("Change listeners")
struct ChangeListenersTests {
    /// What each listener heard, as `name: light`.
    final class Heard: Sendable {
        private let lines = Locked<[String]>([])
        func listener(_ name: String) -> Home.Observer {
            { event in self.lines.withLock { $0.append("\(name): \(event.entity)") } }
        }
        var all: [String] { lines.withLock { $0 } }
    }

    static func event(_ light: LightID) -> ChangeEvent {
        ChangeEvent(.property(.light(light, .isOn), true), timeMicros: 0)
    }

    @Test func observersHearEveryChangeAndWatchersOnlyWatchedOnesEachInTheOrderAdded() {
        let heard = Heard()
        var listeners = ChangeListeners()
        #expect(!listeners.hear(watched: true))
        _ = listeners.addWatcher(heard.listener("w1"))
        #expect(listeners.hear(watched: true) && !listeners.hear(watched: false))
        listeners.addObserver(heard.listener("o1"))
        _ = listeners.addWatcher(heard.listener("w2"))
        listeners.addObserver(heard.listener("o2"))
        #expect(listeners.hear(watched: false))
        listeners.tell(Self.event("a"), watched: true)
        listeners.tell(Self.event("b"), watched: false)
        listeners.tellWatchers(Self.event("c"))
        let light = { (id: LightID) in "\(Entity.light(id))" }
        #expect(
            heard.all == [
                "o1: \(light("a"))", "o2: \(light("a"))", "w1: \(light("a"))", "w2: \(light("a"))",
                "o1: \(light("b"))", "o2: \(light("b"))",
                "w1: \(light("c"))", "w2: \(light("c"))",
            ])
    }

    @Test func aWatcherRemovedHearsNothingMoreAndItsRegistrationIsNeverGivenAgain() {
        let heard = Heard()
        var listeners = ChangeListeners()
        let first = listeners.addWatcher(heard.listener("w1"))
        let second = listeners.addWatcher(heard.listener("w2"))
        #expect(first != second)
        listeners.removeWatcher(first)
        listeners.removeWatcher(first)
        let third = listeners.addWatcher(heard.listener("w3"))
        #expect(third != first && third != second)
        #expect(listeners.watcherCount == 2)
        listeners.tellWatchers(Self.event("a"))
        #expect(heard.all.map { $0.prefix(2) } == ["w2", "w3"])
        listeners.removeWatcher(second)
        listeners.removeWatcher(third)
        #expect(!listeners.hear(watched: true))
    }
}
