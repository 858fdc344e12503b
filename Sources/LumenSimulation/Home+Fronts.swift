import LumenModel

/// A light as a front that answers for its device sees it.
package struct DeviceLight: Sendable {
    /// The light, as its controller sees it.
    package var light: LightSnapshot
    /// Its state with every fade landed: what a controller that accepted a command reports (a Hue bridge),
    /// since the fade goes on in the bulb, out of its sight.
    package var landedState: LightState
    /// What it does besides holding its state: a colour loop, breathing.
    package var effect: LightEffect
    /// The timed effect its fades play (a sunrise, a sunset), while they run.
    package var timedEffect: TimedEffect?
    /// Whether it can really be reached: a device that cannot answers nothing.
    package var isReachable: Bool
    /// Its room's name.
    package var roomName: String
    /// The family whose rules it follows.
    package var family: DeviceFamily

    /// The colour temperatures it takes, in mireds (``DeviceFamily/colorTemperatureRange(of:)``).
    package var colorTemperatureRange: ClosedRange<Int> { family.colorTemperatureRange(of: light.model) }
}

extension Home {
    /// The lights reached over `network` that `pick` picks, in the home's order: `pick` is asked of each such
    /// light, with the address its fixture gives it on the LAN (`lifx.address`), and only the lights it picks
    /// are read whole, so that a message to one device looks at that device alone.
    package func devices(
        on network: LightNetwork,
        picking pick: (_ light: LightID, _ fixtureAddress: IPv4Address?) -> Bool = { _, _ in true }
    ) -> [DeviceLight] {
        var found: [DeviceLight] = []
        for roomID in roomOrder {
            guard let room = rooms[roomID] else { continue }
            for id in room.lightIDs {
                guard let index = lights.slot(of: id), governingSettings(at: index).network == network,
                    pick(id, lifxAddresses.isEmpty ? nil : lifxAddresses[id])
                else { continue }
                found.append(device(at: index, roomName: room.name))
            }
        }
        return found
    }

    /// The light `id`, if it is reached over `network`.
    package func device(_ id: LightID, on network: LightNetwork) -> DeviceLight? {
        guard let index = lights.slot(of: id), governingSettings(at: index).network == network,
            let roomName = rooms[lights[slot: index].room]?.name
        else { return nil }
        return device(at: index, roomName: roomName)
    }

    private func device(at index: LightTable.Slot, roomName: String) -> DeviceLight {
        let id = lights[slot: index].id
        let light = snapshot(at: index)
        let fades = transitions.isEmpty ? nil : transitions[id]
        return DeviceLight(
            light: light, landedState: fades?.landing(over: light.state) ?? light.state,
            effect: effects[id]?.effect ?? .none, timedEffect: fades?.runningTimedEffect,
            isReachable: lights[slot: index].isReachable, roomName: roomName,
            family: governingSettings(at: index).family)
    }

    /// The light whose fixture gives it `address` on the LAN (`lifx.address`), if any: an address a front that
    /// counts addresses for the others skips.
    package func fixtureAddressOwner(of address: IPv4Address) -> LightID? { lifxAddresses.owner(of: address) }

    /// The address the light's fixture gives it on the LAN (`lifx.address`), if any.
    package func fixtureAddress(of light: LightID) -> IPv4Address? { lifxAddresses[light] }

    /// Every room in order, with its name and its lights in order.
    package var roomList: [(id: RoomID, name: String, lights: [LightID])] {
        roomOrder.compactMap { id in rooms[id].map { (id, $0.name, $0.lightIDs) } }
    }

    /// The latest discovery search, which every room shows: under way or not, when it ended (simulation
    /// milliseconds), and the lights it found, in the order found.
    package func latestSearch() -> (active: Bool, endedMs: Double?, found: [LightID]) {
        discovery.latestSearch(in: roomOrder)
    }
}
