import LumenModel
import LumenProtocol
import LumenSimulation

/// A scope type: a named set of connections over one part of the home.
///
/// Each scope type lists its connections once, in ``connections``; `describe` and the server's dispatch
/// both read that list, so adding a connection is one line:
/// ```swift
/// .writable("isOn") { $0.isOn },
/// ```
public protocol Scope: Sendable {
    /// The type's name on the wire ("home", "room", "light", "simulation").
    static var typeName: String { get }
    /// Every connection of the type, in the order `describe` lists them.
    static var connections: [ConnectionEntry<Self>] { get }
    /// The entity whose removal closes scopes of this type, if any.
    var entity: Entity? { get }
}

/// The kind of a connection, which decides the methods it answers.
public enum ConnectionKind: String, Sendable, Hashable {
    /// `get`, `subscribe`.
    case value
    /// `get`, `subscribe`, `set`.
    case writable
    /// `call`.
    case action
    /// `open`.
    case scope
}

/// A connection of a scope type, with its resolved, type-erased form for one scope instance.
public struct ConnectionEntry<Owner: Scope>: Sendable {
    /// The connection's name.
    public let name: String
    /// Its kind.
    public let kind: ConnectionKind
    /// Its value type (for values), argument type (for actions) or child scope type (for scopes).
    public let type: String
    /// For actions, what they return.
    public let result: String?
    /// For child scopes, what configuration they take.
    public let configuration: String?
    let resolve: @Sendable (Owner) -> AnyConnection

    /// A read-only value.
    public static func value<Value>(_ name: String, _ make: @escaping @Sendable (Owner) -> Connection<Value>) -> Self {
        Self(name: name, kind: .value, type: Value.typeDescription, result: nil, configuration: nil) { owner in
            let connection = make(owner)
            return AnyConnection(
                kind: .value, key: connection.key, get: connection.get, peek: connection.peek)
        }
    }

    /// A writable value.
    public static func writable<Value>(
        _ name: String, _ make: @escaping @Sendable (Owner) -> WritableConnection<Value>
    ) -> Self {
        Self(name: name, kind: .writable, type: Value.typeDescription, result: nil, configuration: nil) { owner in
            let connection = make(owner)
            let write: AnyConnection.Write = { home, json, options throws(LumenError) in
                let value: Value
                // Read from `value` down, whatever path the request gave the value itself, so that an error
                // names the member at fault as the client calls it (`value.x`).
                do throws(JSONShapeError) {
                    value = try Value(json: JSONCursor(json.value, path: valuePath))
                } catch {
                    throw LumenError(.invalidParams, "\(error)", data: ["connection": .string(name)])
                }
                return try connection.write(home, value, options)
            }
            return AnyConnection(
                kind: .writable, key: connection.key, get: connection.get, peek: connection.peek, write: write)
        }
    }

    /// An action, with its argument and result shapes for `describe`.
    public static func action(
        _ name: String, arguments: String = "none", result: String = "object",
        _ make: @escaping @Sendable (Owner) -> Action
    ) -> Self {
        Self(name: name, kind: .action, type: arguments, result: result, configuration: nil) { owner in
            let action = make(owner)
            return AnyConnection(kind: .action, key: nil, action: action)
        }
    }

    /// A child scope opened with a configuration.
    public static func scope<Child, Configuration>(
        _ name: String, _ make: @escaping @Sendable (Owner) -> ConfiguredConnection<Child, Configuration>
    ) -> Self {
        Self(
            name: name, kind: .scope, type: Child.typeName, result: nil,
            configuration: Configuration.typeDescription
        ) { owner in
            let connection = make(owner)
            return AnyConnection(
                kind: .scope, key: nil,
                open: { (json) async throws(LumenError) in
                    let configuration: Configuration
                    do throws(JSONShapeError) { configuration = try Configuration(json: json) } catch {
                        throw LumenError(
                            .invalidParams, "configuration: \(error.message)", data: ["connection": .string(name)])
                    }
                    return AnyScope(try await connection.open(configuration))
                })
        }
    }

    /// The entry as `describe` shows it.
    public var description: JSONValue {
        var object: JSONObject = ["name": .string(name), "kind": .string(kind.rawValue)]
        switch kind {
        case .value, .writable: object["type"] = .string(type)
        case .action:
            object["arguments"] = .string(type)
            object["result"] = .string(result ?? "")
        case .scope:
            object["scope"] = .string(type)
            object["configuration"] = .string(configuration ?? "none")
        }
        return .object(object)
    }
}

/// A connection of one scope instance, with its value type erased to JSON: what a transport serves. (A class:
/// a session looks one up for every request, and a reference is cheaper to hand around than its closures.)
public final class AnyConnection: Sendable {
    /// Its kind.
    public let kind: ConnectionKind
    /// The key its changes are published under.
    public let key: PropertyKey?
    /// Reads the value (values).
    public let get: (@Sendable () async throws(LumenError) -> JSONValue)?
    /// The value when it can be had without waiting for the `Home` actor (`get` otherwise).
    public let peek: (@Sendable () -> JSONValue?)?
    /// Queues a write of a value with options, on the home's actor.
    public typealias Write = @Sendable (isolated Home, JSONCursor, WriteOptions) throws(LumenError) -> WriteCompletion
    /// Queues a write (writable values).
    public let write: Write?
    /// What calling it does (actions).
    public let action: Action?
    /// Opens the child scope (scope connections).
    public let open: (@Sendable (JSONCursor) async throws(LumenError) -> AnyScope)?

    init(
        kind: ConnectionKind, key: PropertyKey?,
        get: (@Sendable () async throws(LumenError) -> JSONValue)? = nil,
        peek: (@Sendable () -> JSONValue?)? = nil,
        write: Write? = nil,
        action: Action? = nil,
        open: (@Sendable (JSONCursor) async throws(LumenError) -> AnyScope)? = nil
    ) {
        self.kind = kind
        self.key = key
        self.get = get
        self.peek = peek
        self.write = write
        self.action = action
        self.open = open
    }
}

/// A scope instance with its type erased: what a session keeps in its scope table.
public final class AnyScope: Sendable {
    /// The scope type's name.
    public let typeName: String
    /// The entity whose removal closes it.
    public let entity: Entity?
    private let lookup: @Sendable (String) -> AnyConnection?

    /// Erases a scope.
    public init<S: Scope>(_ scope: S) {
        typeName = S.typeName
        entity = scope.entity
        let entries = S.connections
        lookup = { name in entries.first { $0.name == name }?.resolve(scope) }
    }

    /// The connection called `name`, or `nil`, built anew: a connection is a recipe fixed by its scope and
    /// name, so whoever holds the scope may keep it.
    public func connection(_ name: String) -> AnyConnection? { lookup(name) }
}

/// Where a `set`'s value is read from, as its errors name it (`value.x`): made once, not for every write.
private let valuePath = JSONPath.root.appending("value")
