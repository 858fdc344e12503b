import LumenModel
import LumenProtocol
import LumenSimulation

/// Builds scopes from a simulated home, and holds what every scope needs: the home, and the hook a server
/// waits on to make a write durable before it confirms it.
///
/// ```swift
/// let scopeContext = ScopeContext(home: home) { try await store.waitUntilDurable(store.changeMark) }
/// let root = AnyScope(scopeContext.homeScope)
/// ```
public struct ScopeContext: Sendable {
    /// The home.
    public let home: Home
    /// Runs after a write has been applied, before it is confirmed (the state store waits for the disk here);
    /// `nil` when a write is confirmed once applied.
    public let durable: (@Sendable () async throws(LumenError) -> Void)?
    /// The home's fixture, read afresh, for the simulation's `reset`; `nil` when there is none to go back to.
    public let fixture: (@Sendable () throws(LumenError) -> Fixture)?
    /// The front apps pair with (the Hue bridge), for the simulation's `pressLinkButton` and `pairHueUser`;
    /// `nil` when there is none.
    public var pairing: (any PairingControls)?

    /// A scope context; `durable` waits until what was applied is on disk (full durability), and `fixture`
    /// reads the fixture a `reset` goes back to.
    public init(
        home: Home, durable: (@Sendable () async throws(LumenError) -> Void)? = nil,
        fixture: (@Sendable () throws(LumenError) -> Fixture)? = nil
    ) {
        self.home = home
        self.durable = durable
        self.fixture = fixture
    }

    /// Waits, when writes must be on disk before they are confirmed. A server's session calls it before it
    /// answers a write or an action, in the order its answers go out (scopes do not).
    public func commit() async throws(LumenError) {
        if let durable { try await durable() }
    }

    /// The root scope.
    public var homeScope: HomeScope { HomeScope(scopeContext: self) }

    /// Every scope type, as `describe` reports them.
    public static var scopeTypes: JSONValue {
        func describe<S: Scope>(_ type: S.Type) -> (key: String, value: JSONValue) {
            (S.typeName, .object(["connections": .array(S.connections.map(\.description))]))
        }
        return .object(
            JSONObject([
                describe(HomeScope.self), describe(RoomScope.self), describe(LightScope.self),
                describe(SimulationScope.self),
            ]))
    }

    /// A write's completion: its device's confirmation, as the property's value. What it applied is made
    /// durable by whoever answers it (a server's session), with ``commit()``.
    func confirm(_ receipt: CommandReceipt, _ property: LightProperty) -> WriteCompletion {
        // An instant device has answered already: nothing to wait for, and no closure made.
        if case .settled(let result) = receipt {
            return .settled(result.map { $0.value(of: property) ?? .null })
        }
        return WriteCompletion(receipt.ticket) { $0.value(of: property) ?? .null }
    }
}

/// The root scope: the home.
public struct HomeScope: Scope {
    public static let typeName = "home"
    let scopeContext: ScopeContext
    public var entity: Entity? { nil }

    public static let connections: [ConnectionEntry<HomeScope>] = [
        .writable("name") { $0.name },
        .value("roomIDs") { $0.roomIDs },
        .scope("room") { $0.room },
        .scope("simulation") { $0.simulation },
    ]

    var name: WritableConnection<String> {
        let home = scopeContext.home
        return WritableConnection(.home(.name), of: home) { home, name, _ throws(LumenError) in
            try home.setName(name, of: .home)
            return .done(.string(name))
        }
    }

    var roomIDs: Connection<[String]> { Connection(.home(.roomIDs), of: scopeContext.home) }

    var room: ConfiguredConnection<RoomScope, String> {
        ConfiguredConnection { [scopeContext] id async throws(LumenError) in
            let room = RoomID(id)
            guard await scopeContext.home.hasRoom(room) else {
                throw LumenError(
                    .noSuchEntity, "no room '\(id)'; read roomIDs for the rooms there are",
                    data: ["room": .string(id)])
            }
            return RoomScope(scopeContext: scopeContext, id: room)
        }
    }

    var simulation: ConfiguredConnection<SimulationScope, NoConfiguration> {
        ConfiguredConnection { [scopeContext] _ async throws(LumenError) in SimulationScope(scopeContext: scopeContext)
        }
    }
}

/// A room.
public struct RoomScope: Scope {
    public static let typeName = "room"
    let scopeContext: ScopeContext
    /// The room's ID.
    public let id: RoomID
    public var entity: Entity? { .room(id) }

    public static let connections: [ConnectionEntry<RoomScope>] = [
        .writable("name") { $0.name },
        .value("lightIDs") { $0.lightIDs },
        .scope("light") { $0.light },
        .action("detectLights", arguments: "none", result: "{isScanning, startedMs, endsMs, found}") {
            $0.detectLights
        },
        .value("isScanning") { $0.isScanning },
        .value("scan") { $0.scan },
        .value("anyOn") { $0.property(.anyOn) as Connection<Bool> },
        .value("allOn") { $0.property(.allOn) as Connection<Bool> },
        .action(
            "setAll", arguments: "{isOn?, brightness?, colorTemperature?, color?, transitionMs?}",
            result: "{lights: [{light, applied | missed, ignored?}]}"
        ) { $0.setAll },
    ]

    var name: WritableConnection<String> {
        let (home, id) = (scopeContext.home, id)
        return WritableConnection(.room(id, .name), of: home) { home, name, _ throws(LumenError) in
            try home.setName(name, of: .room(id))
            return .done(.string(name))
        }
    }

    var lightIDs: Connection<[String]> { property(.lightIDs) }

    var light: ConfiguredConnection<LightScope, String> {
        ConfiguredConnection { [scopeContext, id] lightID async throws(LumenError) in
            let light = LightID(lightID)
            guard await scopeContext.home.hasLight(light), try await scopeContext.home.light(light).room == id else {
                throw LumenError(
                    .noSuchEntity, "no light '\(lightID)' in room '\(id)'; read lightIDs for the lights there are",
                    data: ["room": .string(id.rawValue), "light": .string(lightID)])
            }
            let kind = try await scopeContext.home.light(light).model.kind
            return LightScope(scopeContext: scopeContext, id: light, kind: kind)
        }
    }

    var detectLights: Action {
        Action { [scopeContext, id] _ async throws(LumenError) in
            let scan = try await scopeContext.home.detectLights(in: id)
            return scan.jsonValue(isScanning: true)
        }
    }

    var isScanning: Connection<Bool> { property(.isScanning) }
    var scan: Connection<JSONValue> { property(.scan) }

    func property<Value: ScopeValue>(_ property: RoomProperty) -> Connection<Value> {
        Connection(.room(id, property), of: scopeContext.home)
    }
}

/// A light.
public struct LightScope: Scope {
    public static let typeName = "light"
    let scopeContext: ScopeContext
    /// The light's ID.
    public let id: LightID
    let kind: LightKind
    public var entity: Entity? { .light(id) }

    public static let connections: [ConnectionEntry<LightScope>] = [
        .writable("name") { $0.name },
        .value("model") { $0.model },
        .writable("isOn") { $0.state(.isOn) as WritableConnection<Bool> },
        .writable("brightness") { $0.state(.brightness) as WritableConnection<Double> },
        .writable("colorTemperature") { $0.state(.colorTemperature) as WritableConnection<Int> },
        .writable("color") { $0.state(.color) as WritableConnection<CIEColor> },
        .value("isReachable") { $0.isReachable },
        .value("effect") { $0.effect },
        .action(
            "setState", arguments: "{isOn?, brightness?, colorTemperature?, color?, transitionMs?}",
            result: "{the properties changed, as applied}"
        ) { $0.setState },
    ]

    var name: WritableConnection<String> {
        let (home, id) = (scopeContext.home, id)
        return WritableConnection(.light(id, .name), of: home) { home, name, _ throws(LumenError) in
            try home.setName(name, of: .light(id))
            return .done(.string(name))
        }
    }

    var model: Connection<JSONValue> { Connection(.light(id, .model), of: scopeContext.home) }
    var isReachable: Connection<Bool> { Connection(.light(id, .isReachable), of: scopeContext.home) }
    var effect: Connection<String> { Connection(.light(id, .effect), of: scopeContext.home) }

    /// A writable light property: the write is a device command, confirmed when the light applies it.
    func state<Value: ScopeValue>(_ property: LightProperty) -> WritableConnection<Value> {
        let (home, id, scopeContext) = (scopeContext.home, id, scopeContext)
        return WritableConnection(.light(id, property), of: home) { home, value, options throws(LumenError) in
            var change = LightChange()
            switch property {
            case .isOn: change.isOn = value.jsonValue.boolValue
            case .brightness: change.brightness = value.jsonValue.doubleValue
            case .colorTemperature: change.colorTemperature = value.jsonValue.intValue
            case .color: change.color = value as? CIEColor
            case .name, .model, .isReachable, .effect, .settings: break
            }
            return scopeContext.confirm(try home.send(change, to: id, transitionMs: options.transitionMs), property)
        }
    }
}
