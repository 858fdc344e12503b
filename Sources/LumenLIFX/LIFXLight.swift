import LumenModel
import LumenProtocol
import LumenSimulation

/// A light on the LIFX LAN, as its bulb answers for itself.
public struct LIFXLight: Sendable {
    /// Its serial (``DeviceSerial``), by which a datagram names it.
    public var serial: [UInt8]
    /// The light, as its controller sees it.
    public var light: LightSnapshot
    /// Whether it can really be reached: a bulb that cannot answers nothing.
    public var isReachable: Bool
    /// Its room's ID and name: the bulb's group.
    public var room: (id: RoomID, name: String)
    /// The address it answers at on the LAN: the one its fixture gives (`lifx.address`), else the next free one.
    public var address: IPv4Address
}

/// Which bulbs on the LIFX LAN a datagram reaches.
public enum LIFXAddressee: Sendable, Hashable {
    /// Every bulb: a broadcast.
    case every
    /// The bulb with this serial (one, unless two serials collide: they are 24 bits of a digest).
    case serial([UInt8])
    /// The bulb at this address, whatever target the datagram names.
    case address(IPv4Address)
    /// The bulb at this address if it has this serial (a datagram sent to one bulb naming another reaches
    /// none, as on a LAN).
    case both(IPv4Address, serial: [UInt8])
}

extension LIFXFront {
    /// The bulbs that `addressee` names, in the home's order, read in one turn of the home, each with its
    /// address: the one its fixture gives (`lifx.address`), else one given by count from ``firstAddress``,
    /// skipping those fixtures give: at the first look, in the home's order, and kept while lumend runs
    /// (``counted``), so that a bulb found later takes the next free one and moves no other. Only the bulbs named
    /// are read whole: a message to one bulb looks at that bulb alone.
    public func bulbs(_ addressee: LIFXAddressee = .every) async -> [LIFXLight] {
        await home.reading { home in self.bulbs(addressee, in: home) }
    }

    /// The bulbs that `addressee` names, as ``bulbs(_:)`` reads them, in a turn of `home`: what the bulbs keep is
    /// read first, the first time, so that what is answered of them is the home's.
    func bulbs(_ addressee: LIFXAddressee, in home: isolated Home) -> [LIFXLight] {
        records.loadOnce(from: home)
        return bulbs(addressee, in: home, from: firstAddress)
    }

    /// The bulbs that `addressee` names, as ``bulbs(_:)`` reads them, in a turn of `home`.
    func bulbs(_ addressee: LIFXAddressee, in home: isolated Home, from first: IPv4Address) -> [LIFXLight] {
        counted.withLock { counted in
            var named: [LightID: (address: IPv4Address, serial: [UInt8])] = [:]
            // What is taken and the highest counted, found at the first bulb to count and kept up to date in place
            // as each is counted: looked for again, or the set copied, at each, every bulb would cost a look at
            // every other.
            var taken: (addresses: Set<IPv4Address>, highest: IPv4Address?)?
            let devices = home.devices(on: .lifxLAN) { id, fixtureAddress in
                var address = fixtureAddress ?? counted[id]
                if address == nil {
                    if taken == nil {
                        taken = (Set(home.fixtureAddresses).union(counted.values), counted.values.max())
                    }
                    let next = Self.nextFree(after: taken!.highest, from: first, taken: taken!.addresses)
                    taken!.addresses.insert(next)
                    taken!.highest = max(taken!.highest ?? next, next)
                    (address, counted[id]) = (next, next)
                }
                let serial = DeviceSerial.of(id, homeDigest: homeDigest)
                let isNamed =
                    switch addressee {
                    case .every: true
                    case .serial(let wanted): wanted == serial
                    case .address(let wanted): wanted == address
                    case .both(let wanted, let wantedSerial): wanted == address && wantedSerial == serial
                    }
                if isNamed { named[id] = (address!, serial) }
                return isNamed
            }
            return devices.compactMap { device in
                named[device.light.id].map {
                    LIFXLight(
                        serial: $0.serial, light: device.light, isReachable: device.isReachable,
                        room: (device.light.room, device.roomName), address: $0.address)
                }
            }
        }
    }

    /// The next address after the highest counted (`highest`), from `first` on, that is not `taken`; never one
    /// ending in .0 or .255, a LAN's own or its broadcast address.
    static func nextFree(after highest: IPv4Address?, from first: IPv4Address, taken: Set<IPv4Address>)
        -> IPv4Address
    {
        var address = highest.map { max($0.advanced(by: 1), first) } ?? first
        while taken.contains(address) || address.value & 0xFF == 0 || address.value & 0xFF == 0xFF {
            address = address.advanced(by: 1)
        }
        return address
    }
}
