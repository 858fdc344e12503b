import LumenModel
import LumenProtocol

extension HueBridgeState {
    /// The key under which ``resourceIDs`` keeps the UUID of a light.
    static func resourceKey(light: LightID) -> String { "light/" + light.rawValue }
    /// The key of a room of the home.
    static func resourceKey(room: RoomID) -> String { "room/" + room.rawValue }
    /// The key of a group an app created (a zone, in v2), by its number.
    static func resourceKey(group number: Int) -> String { "group/\(number)" }
    /// The key of a scene, by its v1 ID.
    static func resourceKey(scene id: String) -> String { "scene/" + id }
    /// The key of the bridge itself.
    static let bridgeResourceKey = "bridge"

    /// The keys of the scenes and the groups apps created.
    var createdResourceKeys: Set<String> {
        Set(groups.map { Self.resourceKey(group: $0.number) } + scenes.map { Self.resourceKey(scene: $0.id) })
    }

    /// Gives a UUID to every thing the Hue API v2 shows that has none yet: the bridge, the scenes and the groups
    /// apps created and, when `lightsAndRooms`, every numbered light and room; and forgets those of scenes and
    /// groups gone, so that a zone or scene made later never gets a UUID a client may still hold. Returns
    /// whether anything changed.
    ///
    /// Each UUID is drawn from the kernel's random source, as a bridge draws them, and kept: it outlives restarts
    /// and is never given to anything else.
    /// - Parameter gone: the keys of the scenes and groups gone since the UUIDs were last brought up to date,
    ///   when known (a change made to a state that was up to date); `nil` looks at every key.
    @discardableResult
    mutating func giveResourceIDs(lightsAndRooms: Bool, gone: Set<String>? = nil) -> Bool {
        let created = createdResourceKeys
        var changed = false
        // Keys of scenes and groups are found by their first bytes: a record holds a key for every light.
        let stale =
            gone
            ?? Set(
                resourceIDs.keys.filter {
                    $0.utf8.starts(with: "group/".utf8) || $0.utf8.starts(with: "scene/".utf8)
                })
        for key in stale.subtracting(created) where resourceIDs[key] != nil {
            resourceIDs[key] = nil
            changed = true
        }
        var missing: [String] = []
        func want(_ key: String) {
            if resourceIDs[key] == nil { missing.append(key) }
        }
        want(Self.bridgeResourceKey)
        created.forEach(want)
        if lightsAndRooms {
            for light in lightNumbers.keys { want(Self.resourceKey(light: light)) }
            for room in roomNumbers.keys { want(Self.resourceKey(room: room)) }
        }
        guard !missing.isEmpty else { return changed }
        resourceIDs.reserveCapacity(resourceIDs.count + missing.count)
        for (key, uuid) in zip(missing, HueResourceID.random(count: missing.count)) { resourceIDs[key] = uuid }
        return true
    }

    /// Takes from `other` the UUIDs of the bridge, the lights and the rooms this state gives none, unless this
    /// state gives that UUID to something else: restored to a record without them, the bridge keeps the UUIDs
    /// clients hold. Those of scenes and groups are not taken: they stand for what the record has or not. Returns
    /// whether anything changed.
    mutating func keepResourceIDs(of other: HueBridgeState) -> Bool {
        var taken = Set(resourceIDs.values)
        var changed = false
        for (key, uuid) in other.resourceIDs.sorted(by: { $0.key < $1.key })
        where key == Self.bridgeResourceKey || key.hasPrefix("light/") || key.hasPrefix("room/") {
            guard resourceIDs[key] == nil, taken.insert(uuid).inserted else { continue }
            resourceIDs[key] = uuid
            changed = true
        }
        return changed
    }

    /// The kinds of key ``resourceIDs`` keeps besides the bridge's, each followed by what it names.
    static let resourceKinds = ["light/", "room/", "group/", "scene/"]

    /// The `resourceIDs` object at `cursor`, checked: known kinds of key, each value a version 4 UUID, no UUID
    /// given twice.
    static func resourceIDs(_ cursor: JSONCursor?) throws(JSONShapeError) -> [String: String] {
        guard let cursor else { return [:] }
        guard case .object(let object) = cursor.value else {
            throw cursor.error("expected an object of things and their API v2 UUIDs")
        }
        var ids: [String: String] = [:]
        // Each UUID's bits: a set of them is checked more cheaply than one of their text.
        var taken: Set<UInt128> = []
        ids.reserveCapacity(object.members.count)
        taken.reserveCapacity(object.members.count)
        for (key, value) in object.members {
            // A member's cursor, with its path, is made only for an error: a record holds a UUID for every light.
            func problem(_ what: String) -> JSONShapeError {
                JSONCursor(value, path: cursor.path.appending(key)).error(what)
            }
            guard
                key == bridgeResourceKey || resourceKinds.contains(where: { key.hasPrefix($0) && key.count > $0.count })
            else {
                throw problem("expected 'bridge', 'light/ID', 'room/ID', 'group/N' or 'scene/ID', not '\(key)'")
            }
            guard case .string(let uuid) = value else { throw problem("expected a string, got \(value.typeName)") }
            guard let bits = HueResourceID.bits(uuid) else {
                throw problem("expected a version 4 UUID in lower case (xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx)")
            }
            guard taken.insert(bits).inserted else { throw problem("the UUID \(uuid) is given twice") }
            ids[key] = uuid
        }
        return ids
    }
}
