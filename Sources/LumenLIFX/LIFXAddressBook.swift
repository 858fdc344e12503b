import LumenModel

/// What the front knows of where its bulbs are: the addresses it gave by count to bulbs whose fixture gives them
/// none, and the lights each serial names, each looked up at once. Addresses counted are kept while lumend runs,
/// so that a bulb added or removed moves no other.
struct LIFXAddressBook {
    /// Each counted light's address.
    private(set) var byLight: [LightID: IPv4Address] = [:]
    /// The light each counted address was given to.
    private(set) var byAddress: [IPv4Address: LightID] = [:]
    /// The highest address counted: the next one counted comes after it.
    private(set) var highest: IPv4Address?
    /// The lights each serial names (one, unless two serials collide: they are 24 bits of a digest), of every
    /// bulb seen; a light that is no bulb any more stays listed, and is checked as each one is.
    private(set) var bySerial: [[UInt8]: [LightID]] = [:]
    /// Whether every bulb of the home has its address and is listed by its serial: true once they were all looked
    /// at, until the home tells of a light that may be a bulb not yet seen (``LIFXFront/hear(_:in:)``). Only then
    /// does a lookup in the book tell every bulb an address or serial names.
    var isComplete = false

    /// Gives `light` the next free address by count, after the highest counted, from `first` on, skipping those
    /// that are `taken` (by a fixture) and those counted.
    @discardableResult
    mutating func count(_ light: LightID, from first: IPv4Address, skipping taken: (IPv4Address) -> Bool)
        -> IPv4Address
    {
        let address = LIFXFront.nextFree(after: highest, from: first) { byAddress[$0] != nil || taken($0) }
        byLight[light] = address
        byAddress[address] = light
        highest = max(highest ?? address, address)
        return address
    }

    /// Takes back the address counted to `light`: a fixture gives it to another.
    mutating func forget(_ light: LightID) {
        guard let address = byLight.removeValue(forKey: light) else { return }
        byAddress[address] = nil
        // Worked out again only when the highest went: rare (a fixture's address taken over), so it may look at all.
        if address == highest { highest = byLight.values.max() }
    }

    /// Lists `light` under its `serial`, once.
    mutating func list(_ light: LightID, serial: [UInt8]) {
        if bySerial[serial]?.contains(light) != true { bySerial[serial, default: []].append(light) }
    }
}
