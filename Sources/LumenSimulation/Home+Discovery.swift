import LumenModel
import LumenProtocol

extension Home {
    /// Starts a discovery scan from a room, as a Hue bridge does, or returns the scan already under way.
    ///
    /// The bridge searches once for the whole home: a scan started from any room is the one search, which every
    /// room shows while it runs, and which finds at most ``DiscoverySettings/maxLightsPerScan`` of the lights
    /// waiting in all rooms, each in its own room. A light is found its `delayMs` into the search, moved by a
    /// jitter drawn from the seed (``DiscoverySettings/jitterMs``), earliest first; those not found wait for a
    /// later search. `isScanning` turns false when the scan ends.
    /// - Returns: the scan, as the room shows it.
    /// - Throws: ``LumenError`` `noSuchEntity` for an unknown room.
    @discardableResult
    public func detectLights(in roomID: RoomID) throws(LumenError) -> DiscoveryScan {
        guard !isShutDown else { throw LumenError.shuttingDown }
        guard let room = rooms[roomID] else { throw Self.noSuchRoom(roomID) }
        if let scan = room.scan { return scan }
        // A room added during a search joins it rather than starting another.
        if let running = roomOrder.lazy.compactMap({ self.rooms[$0]?.scan }).first {
            rooms[roomID]?.scan = running
            schedule(.endScan(roomID, scan: running.id), at: Self.micros(running.endsMs))
            emit(.room(roomID, .isScanning), true)
            emit(.room(roomID, .scan), running.jsonValue(isScanning: true))
            return running
        }
        refreshRealTime()
        let id = nextScanID
        nextScanID += 1
        let duration = Self.micros(discovery.scanDurationMs)
        let scan = DiscoveryScan(
            id: id, startedMs: Double(nowMicros) / 1_000, endsMs: Double(nowMicros + duration) / 1_000, found: [])
        // Every light waiting anywhere, with the moment this search reaches it; the earliest are found first,
        // ties in room order, then fixture order.
        var findable: [(due: Int64, order: Int, room: RoomID, light: LightID)] = []
        for roomID in roomOrder {
            guard let room = rooms[roomID] else { continue }
            for pending in room.undiscovered where Self.micros(pending.delayMs) < duration {
                let jitter = discovery.jitterMs > 0 ? Double.random(in: -1...1, using: &bridgeRandom) : 0
                let delay = min(max(0, Self.micros(pending.delayMs + jitter * discovery.jitterMs)), duration - 1)
                findable.append((delay, findable.count, roomID, pending.light.id))
            }
        }
        findable.sort { ($0.due, $0.order) < ($1.due, $1.order) }
        for found in findable.prefix(discovery.maxLightsPerScan) {
            schedule(.discoverLight(found.room, scan: id, found.light), at: nowMicros + found.due)
        }
        for roomID in roomOrder where rooms[roomID]?.scan == nil {
            rooms[roomID]?.scan = scan
            schedule(.endScan(roomID, scan: id), at: nowMicros + duration)
            emit(.room(roomID, .isScanning), true)
            emit(.room(roomID, .scan), scan.jsonValue(isScanning: true))
        }
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
        tellFronts(.lightAdded(lightID))
    }

    func endScan(in roomID: RoomID, scan: UInt64) {
        guard let room = rooms[roomID], let current = room.scan, current.id == scan else { return }
        rooms[roomID]?.scan = nil
        rooms[roomID]?.lastScan = current
        emit(.room(roomID, .isScanning), false)
        emit(.room(roomID, .scan), current.jsonValue(isScanning: false))
    }
}
