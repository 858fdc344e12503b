import LumenModel

#if canImport(Glibc)
    import Glibc
#endif

/// One IPv4 address of one of this machine's network interfaces, as `getifaddrs` lists it.
package struct NetworkInterface: Sendable, Hashable {
    /// The interface's index (`if_nametoindex`), as `IP_PKTINFO` names the interface a datagram came in on.
    var index: Int32
    /// The address.
    var address: IPv4Address
    /// Its network mask.
    var netmask: IPv4Address
    /// Whether the interface is loopback (`lo`).
    var isLoopback: Bool

    /// Whether `other` is on this address's network.
    func contains(_ other: IPv4Address) -> Bool {
        address.value & netmask.value == other.value & netmask.value
    }

    /// This machine's IPv4 interface addresses now.
    package static func current() -> [NetworkInterface] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var found: [NetworkInterface] = []
        var entry = list
        while let current = entry?.pointee {
            defer { entry = current.ifa_next }
            guard let address = current.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                let mask = current.ifa_netmask
            else { continue }
            let ipv4 = { (pointer: UnsafeMutablePointer<sockaddr>) in
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    IPv4Address(value: UInt32(bigEndian: $0.pointee.sin_addr.s_addr))
                }
            }
            found.append(
                NetworkInterface(
                    index: Int32(bitPattern: if_nametoindex(current.ifa_name)), address: ipv4(address),
                    netmask: ipv4(mask), isLoopback: current.ifa_flags & UInt32(IFF_LOOPBACK) != 0))
        }
        return found
    }
}
