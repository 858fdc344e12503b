import LumenModel
import LumenProtocol
import LumenSimulation

/// Records every change a home emits.
final class EventLog: Sendable {
    private let events = Locked<[ChangeEvent]>([])

    func record(_ event: ChangeEvent) { events.withLock { $0.append(event) } }

    var all: [ChangeEvent] { events.withLock { $0 } }

    /// The values a light's property took, with their times in milliseconds.
    func values(_ property: String, of light: LightID) -> [(ms: Double, value: JSONValue)] {
        all.compactMap { event in
            guard event.entity == .light(light), case .property(let key, let value) = event.change, key.name == property
            else { return nil }
            return (Double(event.timeMicros) / 1_000, value)
        }
    }

    /// Every event as one JSON line: the transcript a determinism check compares.
    var transcript: String { all.map { $0.jsonValue.serialized() }.joined(separator: "\n") }
}

/// A home on the virtual clock with its events recorded.
func makeHome(_ json: String, seed: UInt64? = nil) async throws -> (Home, EventLog) {
    let home = Home(fixture: try Fixture(json: Array(json.utf8)), clock: .virtual, seed: seed)
    let log = EventLog()
    await home.addObserver { log.record($0) }
    return (home, log)
}

/// A one-room fixture whose single light has the given extra settings (JSON members).
func singleLight(kind: String = "color", settings: String = "\"latency\": \"instant\"", state: String? = nil) -> String
{
    """
    {"schema": 1, "id": "one", "name": "One", "seed": 3, "rooms": [{"id": "room", "name": "Room", "lights": [
      {"id": "bulb", "name": "Bulb", "kind": "\(kind)", \(settings)\(state.map { ", \"state\": \($0)" } ?? "")}
    ]}]}
    """
}
