import LumenModel

@testable import LumenLIFX

extension HSBK {
    /// The colour of a light in `state`, as a generic LIFX bulb of `kind` reports it (``init(_:model:)``).
    init(_ state: LightState, kind: LightKind) {
        self.init(state, model: DeviceModel(kind: kind, manufacturer: "LIFX", product: ""))
    }
}
