import LumenModel
import LumenProtocol
import Synchronization

/// The `effect` and `alert` each light was last given through the bridge, which the bridge reports back as a
/// bridge does; the simulated light itself neither cycles its colours nor flashes. Kept while lumend runs, one
/// entry a light, as a bridge forgets them on restart.
final class HueLightEffects: Sendable {
    /// A light's last effect and alert.
    struct Entry: Sendable, Hashable {
        /// `none` or `colorloop`.
        var effect = "none"
        /// `none`, `select` or `lselect`.
        var alert = "none"
    }

    private let entries = Mutex<[LightID: Entry]>([:])

    /// Notes what `command` gave for `light`, when it gave either.
    func note(_ command: HueCommand, for light: LightID) {
        guard command.effect != nil || command.alert != nil else { return }
        entries.withLock { entries in
            var entry = entries[light] ?? Entry()
            if let effect = command.effect { entry.effect = effect }
            if let alert = command.alert { entry.alert = alert }
            entries[light] = entry == Entry() ? nil : entry
        }
    }

    /// `light` as the bridge shows it (``HueBridge/json(of:)``), with its effect and alert as last given.
    func shown(_ light: JSONValue, id: LightID) -> JSONValue {
        guard let entry = entries.withLock({ $0[id] }), case .object(var object) = light,
            case .object(var state)? = object["state"]
        else { return light }
        if state["effect"] != nil { state["effect"] = .string(entry.effect) }
        if state["alert"] != nil { state["alert"] = .string(entry.alert) }
        object["state"] = .object(state)
        return .object(object)
    }
}
