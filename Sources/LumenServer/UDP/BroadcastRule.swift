import LumenModel

/// Which broadcasts a LIFX bulb at an address takes, heard on a socket on the wildcard address (which hears them
/// from every network the machine is on).
///
/// Each bulb is judged by its own address, so that a bulb added while lumend runs is judged as one found at start:
/// a bulb on a LAN's address takes that LAN's broadcasts, once: from its own interface only (a macvlan's broadcast
/// arrives on the interface under it too). A bulb on loopback is this machine's alone: it takes a broadcast only
/// from one of the machine's own addresses, whichever interface it looped back on, never one another host sent (a
/// tagged `SetPower` from anyone on the LAN, say).
package struct BroadcastRule: Sendable {
    /// The machine's interfaces.
    let interfaces: [NetworkInterface]
    /// This machine's addresses, beside loopback's.
    let localAddresses: Set<IPv4Address>

    /// The rule on a machine with `interfaces`.
    package init(interfaces: [NetworkInterface]) {
        self.interfaces = interfaces
        localAddresses = Set(interfaces.map(\.address))
    }

    /// Which bulbs, by address, a broadcast that came in on `interface` from `sender` (`192.168.1.20:56700`)
    /// reaches: the sender read once for every bulb a broadcast is offered to.
    package func reaching(interface: Int32, sender: String) -> @Sendable (IPv4Address) -> Bool {
        let address = sender.split(separator: ":").first.flatMap { IPv4Address(String($0)) }
        let fromThisMachine = address.map { $0.isLoopback || localAddresses.contains($0) } ?? false
        let interfaces = self.interfaces
        return { bulb in
            // A LAN bulb takes its own interface's broadcasts; a bulb on no interface's network, any.
            let home =
                interfaces.first(where: { $0.address == bulb }) ?? interfaces.first(where: { $0.contains(bulb) })
            if let home, !home.isLoopback, home.index != interface { return false }
            return !bulb.isLoopback || fromThisMachine
        }
    }
}
