import LumenModel
import LumenProtocol

/// A light on the LIFX LAN, as its bulb answers for itself.
public struct LIFXLight: Sendable, Hashable {
    /// Its serial: a MAC address in LIFX's `d0:73:d5` range, derived from the home's and the light's IDs.
    public var serial: [UInt8]
    /// The light, as its controller sees it.
    public var light: LightSnapshot
    /// Whether it can really be reached: a bulb that cannot answers nothing.
    public var isReachable: Bool
    /// Its room's ID and name: the bulb's group.
    public var room: (id: RoomID, name: String)
    /// The address it answers at on the LAN: the one its fixture gives (`lifx.address`), else the next free one.
    public var address: IPv4Address

    public static func == (left: LIFXLight, right: LIFXLight) -> Bool {
        left.serial == right.serial && left.light == right.light && left.isReachable == right.isReachable
            && left.room == right.room && left.address == right.address
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(serial) }
}

extension Home {
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

    /// The lights on the LIFX LAN that `addressee` names, in the home's order, each with its address: the one
    /// its fixture gives (`lifx.address`), else one given by count from `first`, skipping those fixtures give:
    /// at the first look, in the home's order, and kept while lumend runs, so that a bulb found later takes the
    /// next free one and moves no other. Only the lights named are snapshotted: a message to one bulb looks at
    /// that bulb alone (each LIFX light's serial is still worked out, a hash of a few bytes).
    public func lifxLights(first: IPv4Address, _ addressee: LIFXAddressee = .every) -> [LIFXLight] {
        // Every datagram asks this: the serial is checked first, from a digest of the home's ID made once.
        let homeDigest = FNV1a.hash("\(fixtureIdentity.id)/".utf8)
        var found: [LIFXLight] = []
        for roomID in roomOrder {
            guard let room = rooms[roomID] else { continue }
            for id in room.lightIDs {
                guard let index = lights.slot(of: id), governingSettings(at: index).network == .lifxLAN else {
                    continue
                }
                let address =
                    (lifxAddresses.isEmpty ? nil : lifxAddresses[id]) ?? lifxCounted[id]
                    ?? countLIFXAddress(for: id, from: first)
                let lightSerial = Self.lifxSerial(continuing: homeDigest, light: id)
                let named =
                    switch addressee {
                    case .every: true
                    case .serial(let serial): serial == lightSerial
                    case .address(let wanted): wanted == address
                    case .both(let wanted, let serial): wanted == address && serial == lightSerial
                    }
                guard named, let light = try? light(id) else { continue }
                found.append(
                    LIFXLight(
                        serial: lightSerial, light: light, isReachable: lights[slot: index].isReachable,
                        room: (roomID, room.name), address: address))
            }
        }
        return found
    }

    /// Gives `light` the next address from `first` that no bulb has, and keeps it; never one ending in .0 or
    /// .255, a LAN's own or its broadcast address.
    private func countLIFXAddress(for light: LightID, from first: IPv4Address) -> IPv4Address {
        let taken = Set(lifxAddresses.values).union(lifxCounted.values)
        var address = lifxCounted.values.max().map { max($0.advanced(by: 1), first) } ?? first
        while taken.contains(address) || address.value & 0xFF == 0 || address.value & 0xFF == 0xFF {
            address = address.advanced(by: 1)
        }
        lifxCounted[light] = address
        return address
    }

    /// A light's LIFX serial: `d0:73:d5` and three bytes of an FNV-1a digest of the home's and light's IDs.
    public static func lifxSerial(home: String, light: LightID) -> [UInt8] {
        lifxSerial(continuing: FNV1a.hash("\(home)/".utf8), light: light)
    }

    /// ``lifxSerial(home:light:)``, from the digest of `"<home>/"`.
    static func lifxSerial(continuing homeDigest: UInt64, light: LightID) -> [UInt8] {
        let hash = FNV1a.hash(light.rawValue.utf8, continuing: homeDigest)
        return [0xD0, 0x73, 0xD5, UInt8(hash >> 16 & 0xFF), UInt8(hash >> 8 & 0xFF), UInt8(hash & 0xFF)]
    }

    /// Asks a light for its state, as a LIFX client's `Get` does: the answer comes after the light's latency,
    /// as a command's would, and counts against its rate limit (a bulb counts every message). Changes nothing
    /// and is not in the command record.
    /// - Returns: a ticket settled with the light's state when the answer comes; `nil` when none will (the
    ///   light cannot be reached, or drops the question).
    /// - Throws: ``LumenError`` `noSuchEntity` for an unknown light, `shuttingDown` while the home stops.
    public func query(_ id: LightID) throws(LumenError) -> CommandTicket? {
        guard !isShutDown else { throw LumenError.shuttingDown }
        guard let index = lights.slot(of: id) else { throw Self.noSuchLight(id) }
        refreshRealTime()
        let settings = governingSettings(at: index)
        if let rate = settings.rateLimitPerSecond, !takeToken(for: id, rate: rate) { return nil }
        let (latency, dropped) = lights[slot: index].drawDelivery(settings)
        guard lights[slot: index].isReachable, !dropped else { return nil }
        let number = nextCommandID
        nextCommandID += 1
        let ticket = CommandTicket()
        queries[number] = (id, ticket)
        queue.schedule(.answerQuery(number), at: nowMicros + latency)
        if clockMode == .real, latency <= 0 { runEvents(notAfter: nowMicros) }
        armRealClock()
        return ticket
    }

    /// Asks a light for its state as a LIFX client's `Get` asks firmware, which answers from memory: at once,
    /// without the light's latency (which models carrying out a change), though the question still counts against
    /// the rate limit and may be lost, as every message to a bulb does. Changes nothing and is not in the command
    /// record.
    /// - Returns: the light's state; `nil` when no answer comes (the light cannot be reached, or drops the
    ///   question).
    /// - Throws: ``LumenError`` `noSuchEntity` for an unknown light, `shuttingDown` while the home stops.
    public func queryAtOnce(_ id: LightID) throws(LumenError) -> LightState? {
        guard !isShutDown else { throw LumenError.shuttingDown }
        guard let index = lights.slot(of: id) else { throw Self.noSuchLight(id) }
        refreshRealTime()
        let settings = governingSettings(at: index)
        if let rate = settings.rateLimitPerSecond, !takeToken(for: id, rate: rate) { return nil }
        // Drawn as for a delayed question, so that the simulation's random sequence does not depend on which
        // messages a client sends as questions.
        let (_, dropped) = lights[slot: index].drawDelivery(settings)
        guard lights[slot: index].isReachable, !dropped else { return nil }
        return lights[slot: index].state
    }

    /// A question reaches its light, which answers with its state, unless it went away meanwhile.
    func answerQuery(_ number: UInt64) {
        guard let (light, ticket) = queries.removeValue(forKey: number) else { return }
        guard let index = lights.slot(of: light), lights[slot: index].isReachable else {
            ticket.settle(.failure(LumenError(.unreachable, "light '\(light)' did not answer")))
            return
        }
        ticket.settle(.success(lights[slot: index].state))
    }
}
