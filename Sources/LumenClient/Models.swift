import LumenProtocol
import Observation

/// Keeps one scope's values in step with the daemon: subscribes to each, hands every new value to the model,
/// and writes through. Shared by ``HomeModel``, ``RoomModel`` and ``LightModel``.
@MainActor
final class ScopeMirror {
    let client: LumenClient
    let scope: ScopeID
    private var tasks: [Task<Void, Never>] = []

    init(client: LumenClient, scope: ScopeID) {
        self.client = client
        self.scope = scope
    }

    /// Subscribes to `connections`; `update` gets each value as it comes, `ended` once the scope closes.
    func mirror(
        _ connections: [String], update: @escaping @MainActor (String, JSONValue) -> Void,
        ended: @escaping @MainActor ((any Error)?) -> Void
    ) async throws(LumenClientError) {
        var streams: [(String, Subscription)] = []
        for connection in connections {
            streams.append((connection, try await client.subscribe(connection, in: scope)))
        }
        // The first values are in place before the model is handed out.
        for (connection, stream) in streams { update(connection, stream.initialValue) }
        for (connection, stream) in streams {
            tasks.append(
                Task { @MainActor in
                    do {
                        for try await value in stream.dropFirst() { update(connection, value) }
                        ended(nil)
                    } catch {
                        ended(error)
                    }
                })
        }
    }

    func cancel() { tasks.forEach { $0.cancel() } }

    /// Stops mirroring and closes the scope on the daemon.
    func close() async {
        cancel()
        try? await client.close(scope)
    }
}

/// What is known about a write in flight or failed, for a UI to show.
public struct WriteStatus: Sendable, Equatable {
    /// The connections with a write waiting for the device (until the last of their writes is answered).
    public var pending: Set<String> { Set(inFlight.keys) }
    /// The last write that failed, and why.
    public var lastFailure: (connection: String, error: LumenClientError)?
    /// How many writes each pending connection has in flight.
    var inFlight: [String: Int] = [:]

    public static func == (lhs: WriteStatus, rhs: WriteStatus) -> Bool {
        lhs.pending == rhs.pending && lhs.lastFailure?.connection == rhs.lastFailure?.connection
            && lhs.lastFailure?.error == rhs.lastFailure?.error
    }
}

/// A model that writes through to its scope: a write is pending until the daemon confirms it, and its
/// failure is kept; the model shows the confirmed value.
@MainActor
protocol WritesThrough: AnyObject {
    var mirror: ScopeMirror { get }
    var writes: WriteStatus { get set }
    /// Takes a value the daemon confirmed.
    func confirmed(_ connection: String, _ value: JSONValue)
}

extension WritesThrough {
    /// Sends a `set`; the model changes when the daemon confirms it.
    func sendWrite(_ connection: String, _ value: JSONValue, transitionMs: Double? = nil) {
        writes.inFlight[connection, default: 0] += 1
        let mirror = mirror
        Task { @MainActor [weak self] in
            do throws(LumenClientError) {
                let value = try await mirror.client.set(
                    connection, in: mirror.scope, to: value, transitionMs: transitionMs)
                self?.confirmed(connection, value)
            } catch {
                self?.writes.lastFailure = (connection, error)
            }
            self?.answered(connection)
        }
    }

    private func answered(_ connection: String) {
        let left = (writes.inFlight[connection] ?? 1) - 1
        writes.inFlight[connection] = left > 0 ? left : nil
    }
}

/// A light, mirrored from the daemon and written through on assignment: ScopedState's
/// `WritableConnection` served by a real daemon.
///
/// Its properties always hold the values the device confirmed. Assigning one sends a `set`; until the
/// device confirms, the property keeps its old value and ``writes`` lists the write as pending; a failure is
/// kept in ``writes`` too. So a SwiftUI `Toggle("Lamp", isOn: $light.isOn)` shows the real lamp.
///
/// ```swift
/// let light = try await LightModel.open("kitchen.spot-1", in: "kitchen", client: client)
/// light.isOn = false          // sends set; light.isOn turns false when the bulb confirms
/// ```
@MainActor
@Observable
public final class LightModel: WritesThrough {
    /// The light's ID.
    public let id: String
    /// What device it is: `kind`, `manufacturer`, `product`.
    public private(set) var model: JSONValue = .null
    /// Whether the light can be reached.
    public private(set) var isReachable = true
    /// Writes in flight and the last failure.
    public internal(set) var writes = WriteStatus()
    /// Whether the scope has closed (the light was removed, or the connection ended).
    public private(set) var isClosed = false

    private var values: [String: JSONValue] = [:]
    @ObservationIgnored let mirror: ScopeMirror

    init(id: String, mirror: ScopeMirror) {
        self.id = id
        self.mirror = mirror
    }

    /// Opens a light's scope and mirrors it.
    public static func open(_ light: String, in room: String, client: LumenClient) async throws(LumenClientError)
        -> LightModel
    {
        let roomScope = try await client.open("room", in: .root, configuration: .string(room))
        let scope = try await client.open("light", in: roomScope, configuration: .string(light))
        let model = LightModel(id: light, mirror: ScopeMirror(client: client, scope: scope))
        let kind = try await client.get("model", in: scope)["kind"]?.stringValue ?? "onoff"
        var connections = ["name", "model", "isOn", "isReachable"]
        if kind != "onoff" { connections.append("brightness") }
        if kind == "ambiance" || kind == "color" { connections.append("colorTemperature") }
        if kind == "color" { connections.append("color") }
        try await model.mirror.mirror(connections) { [weak model] connection, value in
            model?.receive(connection, value)
        } ended: { [weak model] _ in
            model?.isClosed = true
        }
        return model
    }

    private func receive(_ connection: String, _ value: JSONValue) {
        switch connection {
        case "model": model = value
        case "isReachable": isReachable = value.boolValue ?? isReachable
        default: values[connection] = value
        }
    }

    /// The display name.
    public var name: String {
        get { values["name"]?.stringValue ?? id }
        set { write("name", .string(newValue)) }
    }

    /// On or off.
    public var isOn: Bool {
        get { values["isOn"]?.boolValue ?? false }
        set { write("isOn", .bool(newValue)) }
    }

    /// Brightness, 1–100 (`nil` for an on/off device).
    public var brightness: Double? {
        get { values["brightness"]?.doubleValue }
        set { if let newValue { write("brightness", .double(newValue)) } }
    }

    /// Colour temperature in mireds (`nil` when the device has none).
    public var colorTemperature: Int? {
        get { values["colorTemperature"]?.intValue }
        set { if let newValue { write("colorTemperature", .int(newValue)) } }
    }

    /// Colour, CIE xy (`nil` when the device has none).
    public var color: CIEColor? {
        get { values["color"].flatMap(CIEColor.init(json:)) }
        set { if let newValue { write("color", newValue.jsonValue) } }
    }

    /// Sends a write; the property changes when the device confirms it.
    public func write(_ connection: String, _ value: JSONValue, transitionMs: Double? = nil) {
        sendWrite(connection, value, transitionMs: transitionMs)
    }

    func confirmed(_ connection: String, _ value: JSONValue) { values[connection] = value }

    /// Stops mirroring and closes the scope.
    public func close() async {
        await mirror.close()
        isClosed = true
    }
}

/// A room, mirrored from the daemon.
@MainActor
@Observable
public final class RoomModel: WritesThrough {
    /// The room's ID.
    public let id: String
    /// Its lights' IDs, in order.
    public private(set) var lightIDs: [String] = []
    /// Whether a discovery scan is under way.
    public private(set) var isScanning = false
    /// Whether any of its lights is on.
    public private(set) var anyOn = false
    /// Whether all of its lights are on (an empty room's are not).
    public private(set) var allOn = false
    /// Whether the scope has closed.
    public private(set) var isClosed = false
    /// A rename in flight and the last failure.
    public internal(set) var writes = WriteStatus()
    private var confirmedName = ""
    @ObservationIgnored let mirror: ScopeMirror

    init(id: String, mirror: ScopeMirror) {
        self.id = id
        self.mirror = mirror
    }

    /// Opens a room's scope and mirrors it.
    public static func open(_ room: String, client: LumenClient) async throws(LumenClientError) -> RoomModel {
        let scope = try await client.open("room", in: .root, configuration: .string(room))
        let model = RoomModel(id: room, mirror: ScopeMirror(client: client, scope: scope))
        try await model.mirror.mirror(["name", "lightIDs", "isScanning", "anyOn", "allOn"]) {
            [weak model] connection, value in
            guard let model else { return }
            switch connection {
            case "name": model.confirmedName = value.stringValue ?? model.confirmedName
            case "lightIDs": model.lightIDs = value.arrayValue?.compactMap(\.stringValue) ?? []
            case "anyOn": model.anyOn = value.boolValue ?? false
            case "allOn": model.allOn = value.boolValue ?? false
            default: model.isScanning = value.boolValue ?? false
            }
        } ended: { [weak model] _ in
            model?.isClosed = true
        }
        return model
    }

    /// The display name; assigning renames the room on the daemon (``writes`` tracks it), and the name
    /// changes once the daemon confirms.
    public var name: String {
        get { confirmedName }
        set { sendWrite("name", .string(newValue)) }
    }

    func confirmed(_ connection: String, _ value: JSONValue) {
        if connection == "name" { confirmedName = value.stringValue ?? confirmedName }
    }

    /// Starts a discovery scan.
    public func detectLights() async throws(LumenClientError) {
        try await mirror.client.call("detectLights", in: mirror.scope)
    }

    /// Sends one group command to every light of the room (`isOn`, `brightness`, `colorTemperature`,
    /// `color`, `transitionMs`) and returns, per light, what it applied, ignored or missed, once each has.
    ///
    /// ```swift
    /// let lights = try await room.setAll(["isOn": false, "transitionMs": 2_000])
    /// ```
    @discardableResult
    public func setAll(_ change: JSONObject) async throws(LumenClientError) -> [JSONValue] {
        let reply = try await mirror.client.call("setAll", in: mirror.scope, arguments: .object(change))
        return reply["lights"]?.arrayValue ?? []
    }

    /// Stops mirroring and closes the scope.
    public func close() async {
        await mirror.close()
        isClosed = true
    }
}

/// The home, mirrored from the daemon.
@MainActor
@Observable
public final class HomeModel: WritesThrough {
    /// The room IDs, in order.
    public private(set) var roomIDs: [String] = []
    /// A rename in flight and the last failure.
    public internal(set) var writes = WriteStatus()
    private var confirmedName = ""
    @ObservationIgnored let mirror: ScopeMirror

    init(mirror: ScopeMirror) { self.mirror = mirror }

    /// Mirrors the root scope.
    public static func open(client: LumenClient) async throws(LumenClientError) -> HomeModel {
        let model = HomeModel(mirror: ScopeMirror(client: client, scope: .root))
        try await model.mirror.mirror(["name", "roomIDs"]) { [weak model] connection, value in
            guard let model else { return }
            if connection == "name" {
                model.confirmedName = value.stringValue ?? model.confirmedName
            } else {
                model.roomIDs = value.arrayValue?.compactMap(\.stringValue) ?? []
            }
        } ended: { _ in
        }
        return model
    }

    /// The home's name; assigning renames it on the daemon (``writes`` tracks it), and the name changes once
    /// the daemon confirms.
    public var name: String {
        get { confirmedName }
        set { sendWrite("name", .string(newValue)) }
    }

    func confirmed(_ connection: String, _ value: JSONValue) {
        if connection == "name" { confirmedName = value.stringValue ?? confirmedName }
    }

    /// Opens one of the rooms.
    public func room(_ id: String) async throws(LumenClientError) -> RoomModel {
        try await RoomModel.open(id, client: mirror.client)
    }
}
