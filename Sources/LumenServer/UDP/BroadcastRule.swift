import LumenModel

/// Which broadcasts a LIFX bulb at an address takes, heard on a socket on the wildcard address (which hears them
/// from every network the machine is on).
///
/// Each bulb is judged by its own address, so that a bulb added while lumend runs is judged as one found at start:
/// a bulb on a LAN's address takes that LAN's broadcasts, once: from its own interface only (a macvlan's broadcast
/// arrives on the interface under it too). A bulb on loopback is this machine's alone: it takes a broadcast only
/// from one of the machine's own addresses, whichever interface it looped back on, never one another host sent (a
/// tagged `SetPower` from anyone on the LAN, say).
public struct BroadcastRule: Sendable {
    /// The machine's interfaces.
    let interfaces: [NetworkInterface]
    /// This machine's addresses, beside loopback's.
    let localAddresses: Set<IPv4Address>

    /// The rule on a machine with `interfaces`.
    public init(interfaces: [NetworkInterface]) {
        self.interfaces = interfaces
        localAddresses = Set(interfaces.map(\.address))
    }

    /// Whether a broadcast that came in on `interface` from `sender` (`192.168.1.20:56700`) reaches the bulb at
    /// `bulb`.
    public func reaches(_ bulb: IPv4Address, interface: Int32, sender: String) -> Bool {
        if let chosen = NetworkInterface.broadcastInterfaces(for: [bulb], among: interfaces),
            !chosen.contains(interface)
        {
            return false
        }
        guard bulb.isLoopback else { return true }
        guard let host = sender.split(separator: ":").first, let address = IPv4Address(String(host)) else {
            return false
        }
        return address.isLoopback || localAddresses.contains(address)
    }
}
