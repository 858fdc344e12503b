import LumenProtocol

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
    /// What a front keeps (``Fixture/fronts``), under its name: the Hue bridge's users and numbers; `null` when
    /// it keeps nothing.
    case front(String, JSONValue)
    /// One entry of a front's record (``Fixture/entryFrontNames``: a LIFX bulb's), under the front's name and the
    /// entry's key; `nil` when the entry is gone. The rest of the record stays as it was.
    case frontEntry(String, key: String, JSONValue?)

    /// What a record is about: a later record about the same subject replaces it.
    public enum Subject: Sendable, Hashable {
        /// The home, a room or a light.
        case entity(Entity)
        /// A front's own record, by the front's name.
        case front(String)
        /// One entry of a front's record, by the front's name and the entry's key.
        case frontEntry(String, key: String)
    }

    /// What the record is about.
    public var subject: Subject {
        switch self {
        case .home: .entity(.home)
        case .room(let room, _): .entity(.room(room.id))
        case .light(let light, _): .entity(.light(light.id))
        case .removedRoom(let id): .entity(.room(id))
        case .removedLight(let id): .entity(.light(id))
        case .front(let name, _): .front(name)
        case .frontEntry(let name, let key, _): .frontEntry(name, key: key)
        }
    }
}

extension StateRecord {
    /// The record as JSON, one of `{"home":…}`, `{"room":…,"lightIDs":[…]}`, `{"light":…,"in":"room"}`,
    /// `{"removedRoom":"id"}`, `{"removedLight":"id"}`, a front's under its name, `{"hue":…}`, and one entry of a
    /// front's, `{"lifx":{…},"entry":"den.strip"}` (`{"lifx":null,…}` for an entry gone).
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
        case .front(let name, let record):
            return .object([name: record])
        case .frontEntry(let name, let key, let entry):
            return .object([name: entry ?? .null, "entry": .string(key)])
        }
    }

    private static let keys = Set(
        ["home", "room", "lightIDs", "light", "in", "removedRoom", "removedLight", "entry"] + Fixture.frontNames)

    /// Reads a record written by ``jsonValue``.
    public init(cursor: JSONCursor) throws(JSONShapeError) {
        let object = try cursor.object(allowing: Self.keys)
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
        } else if let key = object.optional("entry") {
            let names = Fixture.frontNames.filter { Fixture.entryFrontNames.contains($0) }
            guard let name = names.first(where: { cursor.value[$0] != nil }) else {
                throw key.error("an entry goes with the record it is of: one of " + names.joined(separator: ", "))
            }
            self = .frontEntry(name, key: try key.string(), object.optional(name)?.value)
        } else if let name = Fixture.frontNames.first(where: { cursor.value[$0] != nil }) {
            // Whole, as every front's was journaled before the LIFX bulbs' went an entry at a time; `null` when a
            // reset or restore left the front none.
            self = .front(name, cursor.value[name]!)
        } else {
            throw cursor.error(
                "expected one of home, room, light, removedRoom, removedLight, "
                    + Fixture.frontNames.joined(separator: ", "))
        }
    }
}

extension Fixture {
    /// The fixture with a batch of records applied: each entity in the batch takes the form its record gives.
    ///
    /// A batch is applied as a whole, so the order of records within it does not matter.
    /// - Throws: ``JSONShapeError`` when the batch does not fit the fixture (a room lists a light that exists
    ///   nowhere, say): the journal does not belong to this snapshot.
    public func applying(_ batch: [StateRecord]) throws(JSONShapeError) -> Fixture {
        try applying(batches: [batch])
    }

    /// The fixture with batches of records applied in order, in one pass: the cost grows with the records
    /// and the lights, not with their product, so a long journal over a big home replays quickly.
    /// - Throws: ``JSONShapeError`` when the result does not hold together.
    public func applying(batches: [[StateRecord]]) throws(JSONShapeError) -> Fixture {
        // Nothing to apply (a clean stop leaves an empty journal): no need to index the whole home.
        guard batches.contains(where: { !$0.isEmpty }) else { return self }
        var replay = Replay(self)
        for batch in batches {
            for record in batch { replay.apply(record) }
        }
        return try replay.fixture(from: self)
    }
}

extension Fixture {
    /// A front's record (``entryFrontNames``) with the entry `key` set to `entry` (removed for `nil`); `nil` once
    /// it holds no entry, as a front that never saved one has no record.
    public static func record(_ record: JSONValue?, setting key: String, to entry: JSONValue?) -> JSONValue? {
        var object = record?.objectValue ?? JSONObject()
        object[key] = entry
        return object.members.isEmpty ? nil : .object(object)
    }
}

/// The home being rebuilt from a snapshot and journal records: every light by ID, every room's fields and
/// light order, and the order of the rooms.
private struct Replay {
    var name: String
    var roomOrder: [RoomID] = []
    var rooms: [RoomID: RoomFixture] = [:]
    /// Each room's lights, in order.
    var roomLights: [RoomID: [LightID]] = [:]
    var lights: [LightID: LightFixture] = [:]
    /// The room whose list holds each light.
    var listedIn: [LightID: RoomID] = [:]
    var fronts: [String: JSONValue]

    init(_ fixture: Fixture) {
        name = fixture.name
        fronts = fixture.fronts
        for room in fixture.rooms {
            roomOrder.append(room.id)
            var header = room
            header.lights = []
            rooms[room.id] = header
            roomLights[room.id] = room.lights.map(\.id)
            for light in room.lights {
                lights[light.id] = light
                listedIn[light.id] = room.id
            }
        }
    }

    mutating func apply(_ record: StateRecord) {
        switch record {
        case .home(let name, let roomIDs):
            self.name = name
            roomOrder = roomIDs
        case .room(var room, let lightIDs):
            room.lights = []
            if rooms[room.id] == nil, !roomOrder.contains(room.id) { roomOrder.append(room.id) }
            rooms[room.id] = room
            // The room's own list is the truth for its order; lights it names are in it, wherever they were.
            for light in roomLights[room.id] ?? [] where listedIn[light] == room.id { listedIn[light] = nil }
            for light in lightIDs {
                if let other = listedIn[light], other != room.id { roomLights[other]?.removeAll { $0 == light } }
                listedIn[light] = room.id
            }
            roomLights[room.id] = lightIDs
        case .light(let light, let room):
            lights[light.id] = light
            guard listedIn[light.id] != room else { return }
            if let other = listedIn[light.id] { roomLights[other]?.removeAll { $0 == light.id } }
            roomLights[room, default: []].append(light.id)
            listedIn[light.id] = room
        case .front(let name, let record):
            fronts[name] = record == .null ? nil : record
        case .frontEntry(let name, let key, let entry):
            fronts[name] = Fixture.record(fronts[name], setting: key, to: entry)
        case .removedRoom(let id):
            rooms[id] = nil
            roomOrder.removeAll { $0 == id }
            for light in roomLights.removeValue(forKey: id) ?? [] where listedIn[light] == id {
                listedIn[light] = nil
            }
        case .removedLight(let id):
            lights[id] = nil
            if let room = listedIn.removeValue(forKey: id) { roomLights[room]?.removeAll { $0 == id } }
        }
    }

    /// The rebuilt home, with what `base` has that records never touch (settings, discovery, faults).
    func fixture(from base: Fixture) throws(JSONShapeError) -> Fixture {
        var result = base
        result.name = name
        result.fronts = fronts
        result.rooms = []
        var placed = Set<LightID>()
        for (index, id) in roomOrder.enumerated() {
            guard var room = rooms[id] else {
                throw JSONShapeError(.root, "the home lists room '\(id)', which the state does not hold")
            }
            let path = JSONPath.root.appending("rooms").appending(index)
            for lightID in roomLights[id] ?? [] {
                guard let light = lights[lightID] else {
                    throw JSONShapeError(path, "room '\(id)' lists light '\(lightID)', which the state does not hold")
                }
                guard placed.insert(lightID).inserted else {
                    throw JSONShapeError(path, "light '\(lightID)' is listed twice")
                }
                room.lights.append(light)
            }
            result.rooms.append(room)
        }
        if let stray = lights.keys.first(where: { !placed.contains($0) }) {
            throw JSONShapeError(.root, "light '\(stray)' belongs to no room of the state")
        }
        if let stray = rooms.keys.first(where: { !roomOrder.contains($0) }) {
            throw JSONShapeError(.root, "room '\(stray)' is not in the home's room order")
        }
        try result.validate()
        return result
    }
}
