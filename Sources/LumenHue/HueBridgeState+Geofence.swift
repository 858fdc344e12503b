import LumenProtocol

extension HueBridgeState {
    /// A geofence client, as API v2 keeps it: a phone telling the bridge whether its owner is at home, or, as
    /// aiohue uses one, a name renamed every minute so that its event stream is never silent for long.
    struct GeofenceClient: Sendable, Hashable {
        /// Its UUID, drawn when it was made.
        var id: String
        /// 1 to 32 characters.
        var name: String
        /// Whether its owner is at home: kept, though the resource does not show it and nothing in the home follows
        /// it.
        var isAtHome: Bool

        /// `{"id", "name", "isAtHome"}`.
        var jsonValue: JSONValue {
            ["id": .string(id), "name": .string(name), "isAtHome": .bool(isAtHome)]
        }
    }

    /// The most geofence clients kept, as a bridge's table is bounded: an app that makes one at each start without
    /// deleting any fills it, and is then refused until it deletes one.
    static let geofenceClientLimit = 64

    /// Reads the `geofenceClients` array ``jsonValue`` writes (none when `nil`).
    static func geofenceClients(_ cursor: JSONCursor?) throws(JSONShapeError) -> [GeofenceClient] {
        guard let cursor else { return [] }
        let clients = try cursor.array().map { element throws(JSONShapeError) in
            let fields = try element.object(allowing: ["id", "name", "isAtHome"])
            let id = try fields.required("id")
            guard let uuid = try? id.string(), HueResourceID.bits(uuid) != nil else {
                throw id.error("expected a version 4 UUID in lower case")
            }
            let name = try fields.required("name")
            guard let text = try? name.string(), HueValues.isName(text) else {
                throw name.error("expected a name of 1 to 32 characters")
            }
            return GeofenceClient(id: uuid, name: text, isAtHome: try fields.required("isAtHome").bool())
        }
        guard clients.count <= geofenceClientLimit else {
            throw cursor.error("at most \(geofenceClientLimit) geofence clients are kept; remove some")
        }
        guard Set(clients.map(\.id)).count == clients.count else {
            throw cursor.error("a geofence client's ID is given twice; give each its own")
        }
        return clients
    }
}
