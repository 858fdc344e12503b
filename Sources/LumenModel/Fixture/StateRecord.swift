/// The saved form of one entity as it is now, or the news that it is gone: what the state journal holds.
///
/// A snapshot is a whole ``Fixture``; between snapshots the journal holds batches of records, each saying
/// what one entity now is. Applying every batch, in order, to the snapshot gives the home as
/// ``Fixture`` would save it at the time of the last batch (``Fixture/applying(_:)``).
///
/// ```swift
/// var state = try Fixture(json: snapshotBytes)
/// state = try state.applying([.light(entry, room: "kitchen")])
/// ```
public enum StateRecord: Sendable, Hashable {
    /// The home's own fields: its name and the order of its rooms.
    case home(name: String, roomIDs: [RoomID])
    /// A room's own fields (``RoomFixture/lights`` left empty) and the order of its lights.
    case room(RoomFixture, lightIDs: [LightID])
    /// A light, and the room it is in.
    case light(LightFixture, room: RoomID)
    /// A room that no longer exists.
    case removedRoom(RoomID)
    /// A light that no longer exists.
    case removedLight(LightID)

    /// The entity the record is about.
    public var entity: Entity {
        switch self {
        case .home: .home
        case .room(let room, _): .room(room.id)
        case .light(let light, _): .light(light.id)
        case .removedRoom(let id): .room(id)
        case .removedLight(let id): .light(id)
        }
    }
}

extension StateRecord {
    /// The record as JSON, one of `{"home":…}`, `{"room":…,"lightIDs":[…]}`, `{"light":…,"in":"room"}`,
    /// `{"removedRoom":"id"}`, `{"removedLight":"id"}`.
    public var jsonValue: JSONValue {
        switch self {
        case .home(let name, let roomIDs):
            return .object([
                "home": .object(["name": .string(name), "roomIDs": .array(roomIDs.map { .string($0.rawValue) })])
            ])
        case .room(let room, let lightIDs):
            var header = room
            header.lights = []
            guard case .object(var object) = header.jsonValue else { return .null }
            object["lights"] = nil
            return .object(["room": .object(object), "lightIDs": .array(lightIDs.map { .string($0.rawValue) })])
        case .light(let light, let room):
            return .object(["light": light.jsonValue, "in": .string(room.rawValue)])
        case .removedRoom(let id):
            return .object(["removedRoom": .string(id.rawValue)])
        case .removedLight(let id):
            return .object(["removedLight": .string(id.rawValue)])
        }
    }

    /// Reads a record written by ``jsonValue``.
    public init(cursor: JSONCursor) throws(JSONShapeError) {
        let object = try cursor.object(allowing: [
            "home", "room", "lightIDs", "light", "in", "removedRoom", "removedLight",
        ])
        func ids<ID>(_ key: String, _ make: (String) -> ID) throws(JSONShapeError) -> [ID] {
            try object.required(key).array().map { element throws(JSONShapeError) in
                let id = try element.string()
                try Fixture.checkID(id, at: element.path)
                return make(id)
            }
        }
        if let home = object.optional("home") {
            let fields = try home.object(allowing: ["name", "roomIDs"])
            let roomIDs = try fields.required("roomIDs").array().map { element throws(JSONShapeError) in
                RoomID(try element.string())
            }
            self = .home(name: try fields.required("name").string(), roomIDs: roomIDs)
        } else if let room = object.optional("room") {
            self = .room(try RoomFixture(cursor: room), lightIDs: try ids("lightIDs") { LightID($0) })
        } else if let light = object.optional("light") {
            let room = try object.required("in")
            let roomID = try room.string()
            try Fixture.checkID(roomID, at: room.path)
            self = .light(try LightFixture(cursor: light), room: RoomID(roomID))
        } else if let room = object.optional("removedRoom") {
            self = .removedRoom(RoomID(try room.string()))
        } else if let light = object.optional("removedLight") {
            self = .removedLight(LightID(try light.string()))
        } else {
            throw cursor.error("expected one of home, room, light, removedRoom, removedLight")
        }
    }
}

extension Fixture {
    /// The fixture with a batch of records applied: each entity in the batch takes the form its record gives.
    ///
    /// A batch is applied as a whole, so the order of records within it does not matter; batches must be
    /// applied in the order they were written.
    /// - Throws: ``JSONShapeError`` when the batch does not fit the fixture (a room lists a light that exists
    ///   nowhere, say): the journal does not belong to this snapshot.
    public func applying(_ batch: [StateRecord]) throws(JSONShapeError) -> Fixture {
        var lights: [LightID: (light: LightFixture, room: RoomID)] = [:]
        for room in rooms {
            for light in room.lights { lights[light.id] = (light, room.id) }
        }
        var headers: [RoomID: (room: RoomFixture, lightIDs: [LightID]?)] = [:]
        var roomOrder: [RoomID] = []
        for room in rooms {
            var header = room
            header.lights = []
            headers[room.id] = (header, nil)
            roomOrder.append(room.id)
        }
        var homeName = name
        var newRoomOrder: [RoomID]?
        for record in batch {
            switch record {
            case .home(let name, let roomIDs):
                homeName = name
                newRoomOrder = roomIDs
            case .room(var room, let lightIDs):
                room.lights = []
                if headers[room.id] == nil { roomOrder.append(room.id) }
                headers[room.id] = (room, lightIDs)
            case .light(let light, let room):
                lights[light.id] = (light, room)
            case .removedRoom(let id):
                headers[id] = nil
            case .removedLight(let id):
                lights[id] = nil
            }
        }
        let order = (newRoomOrder ?? roomOrder).filter { headers[$0] != nil }
        var placed = Set<LightID>()
        var result = self
        result.name = homeName
        result.rooms = []
        for (roomIndex, id) in order.enumerated() {
            guard let (header, lightIDs) = headers[id] else { continue }
            let path = JSONPath.root.appending("rooms").appending(roomIndex)
            // A room whose record is not in the batch keeps its lights' order; lights that joined it come last.
            let ids = lightIDs ?? keptOrder(of: id, lights: lights, batch: batch)
            var room = header
            for lightID in ids {
                guard let entry = lights[lightID], entry.room == id else {
                    throw JSONShapeError(path, "room '\(id)' lists light '\(lightID)', which the state does not hold")
                }
                guard placed.insert(lightID).inserted else {
                    throw JSONShapeError(path, "light '\(lightID)' is listed twice")
                }
                room.lights.append(entry.light)
            }
            result.rooms.append(room)
        }
        if let stray = lights.keys.first(where: { !placed.contains($0) }) {
            throw JSONShapeError(.root, "light '\(stray)' belongs to no room of the state")
        }
        try result.validate()
        return result
    }

    /// The lights of a room the batch did not rewrite: those it had that still belong to it, then newcomers.
    private func keptOrder(
        of id: RoomID, lights: [LightID: (light: LightFixture, room: RoomID)], batch: [StateRecord]
    ) -> [LightID] {
        let had = (rooms.first { $0.id == id }?.lights.map(\.id) ?? []).filter { lights[$0]?.room == id }
        var known = Set(had)
        var joined: [LightID] = []
        for case .light(let light, let room) in batch where room == id && known.insert(light.id).inserted {
            joined.append(light.id)
        }
        return had + joined
    }
}
