import LumenProtocol

extension Fixture {
    /// A problem for each LIFX address (`lifx.address`) given to a second light: two bulbs cannot answer at one
    /// address, as two devices on a LAN cannot.
    func lifxAddressProblems() -> [JSONShapeError] {
        var owners: [IPv4Address: LightID] = [:]
        var problems: [JSONShapeError] = []
        for (roomIndex, room) in rooms.enumerated() {
            let placed =
                room.lights.enumerated().map { ($0.element, ["lights", String($0.offset)]) }
                + room.undiscovered.enumerated().map {
                    ($0.element.light, ["undiscovered", String($0.offset), "light"])
                }
            for (light, steps) in placed {
                guard let address = light.lifxAddress else { continue }
                guard let owner = owners[address] else {
                    owners[address] = light.id
                    continue
                }
                var path = JSONPath.root.appending("rooms").appending(roomIndex)
                for step in steps { path = Int(step).map { path.appending($0) } ?? path.appending(step) }
                problems.append(
                    JSONShapeError(
                        path.appending("lifx").appending("address"),
                        "the LIFX address \(address) is light '\(owner)''s already; each bulb needs its own"))
            }
        }
        return problems
    }
}
