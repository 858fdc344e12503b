import LumenModel
import LumenProtocol

/// A light as a front that serves it as a device of its own (a LIFX bulb) sees it.
public struct DeviceLight: Sendable {
    /// The light, as its controller sees it.
    public var light: LightSnapshot
    /// Whether it can really be reached: a device that cannot answers nothing.
    public var isReachable: Bool
    /// Its room's name.
    public var roomName: String
}

/// A light as a front that answers for its device shows it: as it will be once its fades land, and what it does
/// besides holding its state.
public struct AcceptedLight: Sendable, Hashable {
    /// The light, with every fade landed.
    public var light: LightSnapshot
    /// Its effect: a colour loop, breathing.
    public var effect: LightEffect
}

extension Home {
    /// The lights reached over `network`, in the home's order, as their controller reports them once it has
    /// accepted a command (``acceptedLight(_:on:)``).
    public func acceptedLights(on network: LightNetwork) -> [AcceptedLight] {
        (0..<lights.count).compactMap { index in
            guard governingSettings(at: index).network == network else { return nil }
            return try? accepted(lights[slot: index].id)
        }
    }

    /// The light `id` if it is reached over `network`, as a controller (a Hue bridge) reports it once it has
    /// accepted a command: with every fade landed, since the fade goes on in the bulb, out of its sight.
    public func acceptedLight(_ id: LightID, on network: LightNetwork) -> AcceptedLight? {
        guard let index = lights.slot(of: id), governingSettings(at: index).network == network else { return nil }
        return try? accepted(id)
    }

    private func accepted(_ id: LightID) throws(LumenError) -> AcceptedLight {
        var light = try light(id)
        if let fades = transitions[id] { light.state = fades.landing(over: light.state) }
        return AcceptedLight(light: light, effect: effects[id]?.effect ?? .none)
    }

    /// The lights reached over `network` that `pick` picks, in the home's order: `pick` is asked of each such
    /// light, with the address its fixture gives it on the LAN (`lifx.address`), and only the lights it picks
    /// are read whole, so that a message to one device looks at that device alone.
    public func devices(
        on network: LightNetwork, picking pick: (_ light: LightID, _ fixtureAddress: IPv4Address?) -> Bool
    ) -> [DeviceLight] {
        var found: [DeviceLight] = []
        for roomID in roomOrder {
            guard let room = rooms[roomID] else { continue }
            for id in room.lightIDs {
                guard let index = lights.slot(of: id), governingSettings(at: index).network == network,
                    pick(id, lifxAddresses.isEmpty ? nil : lifxAddresses[id]), let light = try? light(id)
                else { continue }
                found.append(
                    DeviceLight(light: light, isReachable: lights[slot: index].isReachable, roomName: room.name))
            }
        }
        return found
    }

    /// The addresses fixtures give lights on the LAN (`lifx.address`), which a front that counts addresses for
    /// the others skips.
    public var fixtureAddresses: Dictionary<LightID, IPv4Address>.Values { lifxAddresses.values }

    /// Every room in order, with its name and its lights in order.
    public var roomList: [(id: RoomID, name: String, lights: [LightID])] {
        roomOrder.compactMap { id in rooms[id].map { (id, $0.name, $0.lightIDs) } }
    }

    /// The latest discovery search, which every room shows: under way or not, when it ended (simulation
    /// milliseconds), and the lights it found, in the order found.
    public func latestSearch() -> (active: Bool, endedMs: Double?, found: [LightID]) {
        let scans = roomOrder.compactMap { id in rooms[id].flatMap { $0.scan ?? $0.lastScan } }
        guard let latest = scans.map(\.id).max() else { return (false, nil, []) }
        let these = scans.filter { $0.id == latest }
        let active = roomOrder.contains { rooms[$0]?.scan?.id == latest }
        return (active, active ? nil : these.first?.endsMs, these.flatMap(\.found))
    }

    /// What the front called `name` keeps (``Fixture/fronts``), as it last saved it.
    public func frontRecord(_ name: String) -> JSONValue? { frontRecords[name] }

    /// Keeps `record` as what the front called `name` keeps, and saves it with the home.
    public func saveFrontRecord(_ name: String, _ record: JSONValue) {
        frontRecords[name] = record
        persistenceSink?.record(.front(name, record))
    }
}
