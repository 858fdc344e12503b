import LumenModel

/// Which broadcasts the bulbs at some addresses take, heard on a socket on the wildcard address (which hears
/// them from every network the machine is on).
///
/// Bulbs on a LAN's addresses take that LAN's broadcasts, once: from their own interfaces only (a macvlan's
/// broadcast arrives on the interface under it too). Bulbs on loopback are this machine's alone: they take a
/// broadcast only from one of its own addresses, whichever interface it looped back on, never one another host
/// sent (a tagged `SetPower` from anyone on the LAN, say).
public struct BroadcastRule: Sendable {
    /// The interfaces whose broadcasts count; `nil` for any.
    let interfaces: Set<Int32>?
    /// Whether only this machine's own broadcasts count.
    let localOnly: Bool
    /// This machine's addresses, beside loopback's.
    let localAddresses: Set<IPv4Address>

    /// The rule for bulbs at `bulbs`, on a machine with `interfaces`.
    public init(bulbs: [IPv4Address], interfaces: [NetworkInterface]) {
        self.interfaces = NetworkInterface.broadcastInterfaces(for: bulbs, among: interfaces)
        localOnly = bulbs.contains(where: \.isLoopback)
        localAddresses = Set(interfaces.map(\.address))
    }

    /// Whether a broadcast that came in on `interface` from `sender` (`192.168.1.20:56700`) counts.
    public func accepts(interface: Int32, sender: String) -> Bool {
        if let interfaces, !interfaces.contains(interface) { return false }
        guard localOnly else { return true }
        guard let host = sender.split(separator: ":").first, let address = IPv4Address(String(host)) else {
            return false
        }
        return address.isLoopback || localAddresses.contains(address)
    }
}
