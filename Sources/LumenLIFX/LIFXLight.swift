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

    /// Whether it names the bulb at `address` whose serial is `serial`.
    func names(address: IPv4Address, serial: [UInt8]) -> Bool {
        switch self {
        case .every: true
        case .serial(let wanted): wanted == serial
        case .address(let wanted): wanted == address
        case .both(let wanted, let wantedSerial): wanted == address && wantedSerial == serial
        }
    }
}

extension LIFXFront {
    /// The bulbs that `addressee` names, in the home's order, read in one turn of the home, each with its
    /// address: the one its fixture gives (`lifx.address`), else one given by count from ``firstAddress``,
    /// skipping those fixtures give: at the first look, in the home's order, and kept while lumend runs
    /// (``book``), so that a bulb found later takes the next free one and moves no other. Only the bulbs named
    /// are read whole: a message to one bulb looks at that bulb alone.
    public func bulbs(_ addressee: LIFXAddressee = .every) async -> [LIFXLight] {
        await home.reading { home in self.bulbs(addressee, in: home) }
    }

    /// The bulbs that `addressee` names, as ``bulbs(_:)`` reads them, in a turn of `home`: at once from the
    /// ``book`` when it can tell (``named(_:in:book:)``), else by looking at every bulb
    /// (``everyBulb(_:in:book:)``). What the bulbs keep is read first, the first time, so that what is
    /// answered of them is the home's.
    func bulbs(_ addressee: LIFXAddressee, in home: isolated Home) -> [LIFXLight] {
        records.loadOnce(from: home)
        return book.withLock { book in
            named(addressee, in: home, book: book) ?? everyBulb(addressee, in: home, book: &book)
        }
    }

    /// The bulbs that `addressee` names, found by looking at every bulb in the home's order; each bulb that has no
    /// address yet is given one by count, in that order, and the book then knows every bulb.
    func everyBulb(
        _ addressee: LIFXAddressee, in home: isolated Home, book: inout LIFXAddressBook
    ) -> [LIFXLight] {
        var named: [LightID: (address: IPv4Address, serial: [UInt8])] = [:]
        let devices = home.devices(on: .lifxLAN) { id, fixtureAddress in
            let address =
                fixtureAddress ?? book.byLight[id]
                ?? book.count(id, from: firstAddress) { home.fixtureAddressOwner(of: $0) != nil }
            let serial = DeviceSerial.of(id, homeDigest: homeDigest)
            // A book that knows every bulb lists each already: a broadcast's look at them all adds nothing.
            if !book.isComplete { book.list(id, serial: serial) }
            let isNamed = addressee.names(address: address, serial: serial)
            if isNamed { named[id] = (address, serial) }
            return isNamed
        }
        book.isComplete = true
        return devices.compactMap { device in
            named[device.light.id].map {
                LIFXLight(
                    serial: $0.serial, light: device.light, isReachable: device.isReachable,
                    room: (device.light.room, device.roomName), address: $0.address)
            }
        }
    }

    /// The bulbs that `addressee` names, told at once by `book` and the fixtures' addresses, when one bulb at most
    /// is named; `nil` when the book cannot tell (it does not know every bulb, a broadcast names every bulb, an
    /// address or serial names two bulbs), and every bulb is looked at instead, in the home's order.
    func named(_ addressee: LIFXAddressee, in home: isolated Home, book: LIFXAddressBook) -> [LIFXLight]? {
        guard book.isComplete else { return nil }
        let candidates: [LightID]
        switch addressee {
        case .every: return nil
        case .serial(let serial): candidates = book.bySerial[serial] ?? []
        case .address(let address), .both(let address, _):
            // A bulb's address is its fixture's, else the one counted to it: an address names its fixture's light
            // or the light counted to it, whichever has it still.
            candidates = [home.fixtureAddressOwner(of: address), book.byAddress[address]].compactMap { $0 }
        }
        var found: [LIFXLight] = []
        for id in candidates where !found.contains(where: { $0.light.id == id }) {
            guard let bulb = bulb(id, in: home, book: book),
                addressee.names(address: bulb.address, serial: bulb.serial)
            else { continue }
            found.append(bulb)
        }
        // Two bulbs are answered in the home's order, which only looking at every bulb tells.
        return found.count > 1 ? nil : found
    }

    /// The light `id` as a bulb, at the address its fixture gives it or `book` counted to it; `nil` when it is not
    /// on the LIFX LAN or has no address yet.
    func bulb(_ id: LightID, in home: isolated Home, book: LIFXAddressBook) -> LIFXLight? {
        guard let device = home.device(id, on: .lifxLAN), let address = home.fixtureAddress(of: id) ?? book.byLight[id]
        else { return nil }
        return LIFXLight(
            serial: DeviceSerial.of(id, homeDigest: homeDigest), light: device.light, isReachable: device.isReachable,
            room: (device.light.room, device.roomName), address: address)
    }

    /// The next address after the highest counted (`highest`), from `first` on, that is not `taken`; never one
    /// ending in .0 or .255, a LAN's own or its broadcast address.
    static func nextFree(after highest: IPv4Address?, from first: IPv4Address, taken: (IPv4Address) -> Bool)
        -> IPv4Address
    {
        var address = highest.map { max($0.advanced(by: 1), first) } ?? first
        while taken(address) || address.value & 0xFF == 0 || address.value & 0xFF == 0xFF {
            address = address.advanced(by: 1)
        }
        return address
    }
}
