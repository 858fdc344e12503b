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
    package func detectLights(in roomID: RoomID) throws(LumenError) -> DiscoveryScan {
        guard !isShutDown else { throw LumenError.shuttingDown }
        guard rooms[roomID] != nil else { throw Self.noSuchRoom(roomID) }
        if let scan = discovery.scan(in: roomID) { return scan }
        // A room added during a search joins it rather than starting another.
        if let running = discovery.runningSearch(in: roomOrder) {
            discovery.join(roomID, running)
            show(running, in: roomID, endingAt: Self.micros(running.endsMs))
            return running
        }
        refreshRealTime()
        let waiting = roomOrder.compactMap { id in rooms[id].map { (id: id, waiting: $0.undiscovered) } }
        let search = discovery.begin(at: nowMicros, rooms: waiting, random: &bridge.random)
        for found in search.finds {
            schedule(.discoverLight(found.room, scan: search.scan.id, found.light), at: found.at)
        }
        for roomID in search.rooms { show(search.scan, in: roomID, endingAt: search.endsAt) }
        return search.scan
    }

    /// Has `room` show `scan` under way, until it ends at `end` (simulation microseconds).
    private func show(_ scan: DiscoveryScan, in room: RoomID, endingAt end: Int64) {
        schedule(.endScan(room, scan: scan.id), at: end)
        emit(.room(room, .isScanning), true)
        emit(.room(room, .scan), scan.jsonValue(isScanning: true))
    }

    func discover(_ lightID: LightID, in roomID: RoomID, scan: UInt64) {
        guard var room = rooms[roomID], discovery.scan(in: roomID)?.id == scan,
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
        let shown = discovery.noteFound(lightID, in: roomID)
        rooms[roomID] = room
        insertLight(pending.light, room: roomID)
        emit(.room(roomID, .lightIDs), .array(room.lightIDs.map { .string($0.rawValue) }))
        emitGroupChange(of: roomID, since: before)
        if let shown { emit(.room(roomID, .scan), shown.jsonValue(isScanning: true)) }
        persist(.light(lightID))
        persist(.room(roomID))
        tellFronts(.lightAdded(lightID))
    }

    func endScan(in roomID: RoomID, scan: UInt64) {
        guard rooms[roomID] != nil, let ended = discovery.end(in: roomID, scan: scan) else { return }
        emit(.room(roomID, .isScanning), false)
        emit(.room(roomID, .scan), ended.jsonValue(isScanning: false))
    }
}
