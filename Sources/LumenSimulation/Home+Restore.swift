import LumenModel
import LumenProtocol

extension Home {
    /// Brings the running home to `target` (its fixture, for a reset, or a checkpoint): rooms and lights that
    /// are not in it go (their scopes close), those only in it come, and every name, light state, setting and
    /// reachability becomes the target's, each announced as a change and saved as one. Fades stop where the
    /// target puts the light, and scans end. What the fronts keep (``Fixture/fronts``: the LIFX bulbs' locations,
    /// groups, zones and the rest, the Hue bridge's numbers, scenes and groups) becomes the target's too, saved,
    /// and each front reads its own again (``FrontNews/restored(previous:)``); the Hue bridge keeps the
    /// apps paired now besides the target's, as they live outside the simulation. The clock goes on; commands
    /// already on their way to a light are not recalled, as at a real bridge: settle the clock first for a clean
    /// start.
    /// - Throws: ``LumenError`` `shuttingDown` once the home is stopping.
    package func restore(to target: Fixture) throws(LumenError) {
        guard !isShutDown else { throw LumenError.shuttingDown }
        refreshRealTime()
        let wanted = Dictionary(
            target.rooms.flatMap { room in room.lights.map { ($0.id, (room: room.id, light: $0)) } },
            uniquingKeysWith: { first, _ in first })
        let targetRooms = Set(target.rooms.map(\.id))
        // The home's own settings; every light's are worked out afresh.
        defaults = target.defaults
        discovery.settings = target.discovery
        bridge.settings = target.bridge
        for room in roomOrder {
            for id in rooms[room]!.lightIDs {
                if let slot = lights.slot(of: id) { lights[slot: slot].governingSettings = nil }
            }
        }
        tellFronts(.settingsChanged(nil))
        // What goes: rooms not in the target, and lights not in it, in another room, or of another model.
        for id in roomOrder where !targetRooms.contains(id) { try removeRoom(id) }
        for id in roomOrder.flatMap({ rooms[$0]!.lightIDs }) {
            guard let light = lights[id] else { continue }
            if let place = wanted[id], place.room == light.room, place.light.model == light.model { continue }
            try removeLight(id)
        }
        // Addresses first, and the defaults and lights waiting to be found of the rooms that stay (a new room's
        // come with it): a light that comes may take the address one that stays gives up, the target gives no
        // address twice, and a light that comes has the fronts look at every light, whose settings must then be
        // the target's already, in a room further on too.
        for (id, place) in wanted where lights[id] != nil { lifxAddresses[id] = place.light.lifxAddress }
        for room in target.rooms where rooms[room.id] != nil {
            rooms[room.id]?.defaults = room.defaults
            rooms[room.id]?.undiscovered = room.undiscovered
        }
        // What comes, and what stays becomes the target's.
        for room in target.rooms {
            if rooms[room.id] == nil {
                try addRoom(id: room.id, name: room.name)
                rooms[room.id]?.defaults = room.defaults
                rooms[room.id]?.undiscovered = room.undiscovered
            }
            try setName(room.name, of: .room(room.id))
            if let scan = discovery.scan(in: room.id) { endScan(in: room.id, scan: scan.id) }
            for light in room.lights {
                if lights[light.id] == nil {
                    try addLight(light, to: room.id, asSaved: true)
                } else {
                    try restore(light)
                }
            }
            reorder(room.id, as: room.lights.map(\.id))
            persist(.room(room.id))
        }
        if roomOrder != target.rooms.map(\.id) {
            roomOrder = target.rooms.map(\.id)
            emit(.home(.roomIDs), .array(roomOrder.map { .string($0.rawValue) }))
        }
        try setName(target.name, of: .home)
        persist(.home)
        restoreFrontRecords(to: target.fronts)
    }

    /// The most checkpoints kept at once: each is a copy of the whole home.
    package static let maxCheckpoints = Checkpoints.limit

    /// Keeps the home as it is now under `name` (replacing one of that name), to ``restore(checkpoint:)``
    /// later. Checkpoints live as long as the process, at most ``maxCheckpoints`` of them.
    /// - Throws: ``LumenError`` `invalidParams` for a name that breaks the rules of IDs
    ///   (``EntityID/validate(_:)``), `limitExceeded` for a new name when ``maxCheckpoints`` are kept.
    package func checkpoint(_ name: String) throws(LumenError) {
        try checkpoints.keep(snapshot(), as: name)
    }

    /// Forgets the checkpoint `name`, making room for another.
    /// - Throws: ``LumenError`` `noSuchEntity` for a checkpoint never taken.
    package func dropCheckpoint(_ name: String) throws(LumenError) {
        try checkpoints.drop(name)
    }

    /// Brings the home back to the checkpoint `name`, as ``restore(to:)`` does.
    /// - Throws: ``LumenError`` `noSuchEntity` for a checkpoint never taken.
    package func restore(checkpoint name: String) throws(LumenError) {
        try restore(to: checkpoints.fixture(named: name))
    }

    /// A light that stays, brought to its target's name, state, settings and reachability.
    private func restore(_ target: LightFixture) throws(LumenError) {
        try setName(target.name, of: .light(target.id))
        // Its LIFX address is the target's already (``restore(to:)`` gives every light that stays its own first),
        // and the fronts were told then that addresses may have moved.
        if (lightSettings[target.id] ?? DeviceSettings()) != target.settings {
            setOwnSettings(target.settings.isEmpty ? nil : target.settings, of: target.id)
        }
        try setReachable(target.isReachable, light: target.id)
        guard let slot = lights.slot(of: target.id) else { return }
        // A fade under way stops: its next steps find the light moved on.
        dropTransitions(of: target.id)
        _ = lights[slot: slot].startTransition()
        setState(at: slot, to: target.state)
        persistLight(at: slot, savedState: target.state)
    }

    /// Puts a room's lights in `order`, announcing it when it changed.
    private func reorder(_ id: RoomID, as order: [LightID]) {
        guard let room = rooms[id], room.lightIDs != order else { return }
        rooms[id]?.lightIDs = order
        emit(.room(id, .lightIDs), .array(order.map { .string($0.rawValue) }))
    }
}
