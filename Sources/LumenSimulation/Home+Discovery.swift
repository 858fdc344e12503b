import LumenModel
import LumenProtocol

extension Home {
    /// Starts a discovery scan in a room, as a Hue bridge does, or returns the scan already under way.
    ///
    /// Lights waiting in the room are found as their delays pass, at most
    /// ``DiscoverySettings/maxLightsPerScan`` per scan; those whose delay is longer than the scan wait for a
    /// later one. `isScanning` turns false when the scan ends.
    /// - Returns: the scan.
    /// - Throws: ``LumenError`` `noSuchEntity` for an unknown room.
    @discardableResult
    public func detectLights(in roomID: RoomID) throws(LumenError) -> DiscoveryScan {
        guard !isShutDown else { throw LumenError.shuttingDown }
        guard var room = rooms[roomID] else { throw Self.noSuchRoom(roomID) }
        if let scan = room.scan { return scan }
        refreshRealTime()
        let id = nextScanID
        nextScanID += 1
        let duration = Self.micros(discovery.scanDurationMs)
        let scan = DiscoveryScan(
            id: id, startedMs: Double(nowMicros) / 1_000, endsMs: Double(nowMicros + duration) / 1_000, found: [])
        room.scan = scan
        rooms[roomID] = room
        // The earliest lights are found first; ties keep fixture order (a stable sort).
        let findable = room.undiscovered.enumerated()
            .filter { Self.micros($0.element.delayMs) < duration }
            .sorted { ($0.element.delayMs, $0.offset) < ($1.element.delayMs, $1.offset) }
            .prefix(discovery.maxLightsPerScan)
        for (_, pending) in findable {
            schedule(.discoverLight(roomID, scan: id, pending.light.id), at: nowMicros + Self.micros(pending.delayMs))
        }
        schedule(.endScan(roomID, scan: id), at: nowMicros + duration)
        emit(.room(roomID, .isScanning), true)
        emit(.room(roomID, .scan), scan.jsonValue(isScanning: true))
        return scan
    }

    func discover(_ lightID: LightID, in roomID: RoomID, scan: UInt64) {
        guard var room = rooms[roomID], room.scan?.id == scan,
            let index = room.undiscovered.firstIndex(where: { $0.light.id == lightID })
        else { return }
        let pending = room.undiscovered.remove(at: index)
        // A harness may have added a light with the same ID meanwhile; the real one wins, the found one is lost.
        guard lights[lightID] == nil else {
            rooms[roomID] = room
            persist(.room(roomID))
            return
        }
        let before = room.groupState
        room.lightIDs.append(lightID)
        room.scan?.found.append(lightID)
        rooms[roomID] = room
        insertLight(pending.light, room: roomID)
        emit(.room(roomID, .lightIDs), .array(room.lightIDs.map { .string($0.rawValue) }))
        emitGroupChange(of: roomID, since: before)
        if let scan = room.scan { emit(.room(roomID, .scan), scan.jsonValue(isScanning: true)) }
        persist(.light(lightID))
        persist(.room(roomID))
    }

    func endScan(in roomID: RoomID, scan: UInt64) {
        guard let room = rooms[roomID], let current = room.scan, current.id == scan else { return }
        rooms[roomID]?.scan = nil
        rooms[roomID]?.lastScan = current
        emit(.room(roomID, .isScanning), false)
        emit(.room(roomID, .scan), current.jsonValue(isScanning: false))
    }
}
