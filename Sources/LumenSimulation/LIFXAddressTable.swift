import LumenModel

/// The LIFX addresses fixtures give lights (`lifx.address`), looked up either way at once: a light's address,
/// and the light an address is given to.
struct LIFXAddressTable {
    /// Each light's address, for the lights that have one.
    private var byLight: [LightID: IPv4Address] = [:]
    /// The light each address is given to.
    private var byAddress: [IPv4Address: LightID] = [:]

    /// Whether no light has an address.
    var isEmpty: Bool { byLight.isEmpty }

    /// The address of `light`, if it has one; set to give it one, or `nil` to take it away.
    subscript(_ light: LightID) -> IPv4Address? {
        get { byLight[light] }
        set {
            // Only if the address is still this light's: a restore may give it to another light before it takes
            // this one's away.
            if let old = byLight[light], byAddress[old] == light { byAddress[old] = nil }
            byLight[light] = newValue
            if let newValue { byAddress[newValue] = light }
        }
    }

    /// The light `address` is given to, if any.
    func owner(of address: IPv4Address) -> LightID? { byAddress[address] }
}
