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

    public static func == (left: LIFXLight, right: LIFXLight) -> Bool {
        left.serial == right.serial && left.light == right.light && left.isReachable == right.isReachable
            && left.room == right.room
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(serial) }
}

extension Home {
    /// The lights on the LIFX LAN, in the home's order; given `serial`, only those with that serial (one, unless
    /// two serials collide: they are 24 bits of a digest), so a message to one bulb snapshots that bulb alone
    /// (each LIFX light's serial is still worked out: a hash of a few bytes).
    public func lifxLights(serial: [UInt8]? = nil) -> [LIFXLight] {
        // Every datagram asks this: the serial is checked first, from a digest of the home's ID made once.
        let homeDigest = FNV1a.hash("\(fixtureIdentity.id)/".utf8)
        return roomOrder.flatMap { roomID -> [LIFXLight] in
            guard let room = rooms[roomID] else { return [] }
            return room.lightIDs.compactMap { id -> LIFXLight? in
                let lightSerial = Self.lifxSerial(continuing: homeDigest, light: id)
                guard serial == nil || serial == lightSerial, let index = lights.slot(of: id),
                    governingSettings(at: index).network == .lifxLAN, let light = try? light(id)
                else { return nil }
                return LIFXLight(
                    serial: lightSerial, light: light, isReachable: lights[slot: index].isReachable,
                    room: (roomID, room.name))
            }
        }
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
