import LumenProtocol

/// A request of the scope protocol, decoded once from its method and parameters: what a session answers.
///
/// Decoding checks the parameters' names and types; what needs the session (whether a scope is open, what a
/// connection takes, whether a value fits) the session checks, so that its errors name where they happened.
enum Call: Sendable {
    case hello
    case describe
    case open(Target, configuration: JSONCursor)
    case get(Target)
    /// `transitionMs` as given (`null` when absent): the session checks it, naming the write it was for.
    case set(Target, value: JSONCursor, transitionMs: JSONCursor)
    case call(Target, arguments: JSONCursor)
    case subscribe(Target)
    case unsubscribe(subscription: Int)
    case close(scope: Int)
    /// Not a call the session can take: answered with this error.
    case refused(LumenError)
    /// A request on a connection (`get`, `set`, `call`, `subscribe`, `open`) whose parameters are wrong:
    /// answered with this error, which the session has name as much of the connection as the request does.
    case refusedOnConnection(LumenError, Named)

    /// A connection of an open scope, as a request names it.
    struct Target: Sendable {
        let scope: Int
        let connection: String
    }

    /// As much of a connection as a request names: what every error of a request on a connection carries,
    /// even one whose parameters cannot be read whole.
    struct Named: Sendable {
        var scope: Int?
        var connection: String?
        /// A `set`'s value, as the client wrote it.
        var value: JSONValue?

        /// What `params` name, read leniently: a member that is missing, given twice or of the wrong type is
        /// left out, as there is no telling what was meant.
        init(leniently params: JSONValue?, value valueKey: String?) {
            let object = params?.objectValue ?? [:]
            func member(_ key: String) -> JSONValue? { object.count(of: key) == 1 ? object[key] : nil }
            scope = member("scope")?.intValue
            connection = member("connection")?.stringValue
            value = valueKey.flatMap(member)
        }

        init(_ target: Target, value: JSONValue? = nil) {
            scope = target.scope
            connection = target.connection
            self.value = value
        }
    }

    /// The connection the call is a request on, as far as it names one; `nil` for calls that are not on a
    /// connection (`hello`, `close`, …).
    var named: Named? {
        switch self {
        case .open(let target, _), .get(let target), .call(let target, _), .subscribe(let target): Named(target)
        case .set(let target, let value, _): Named(target, value: value.value)
        case .refusedOnConnection(_, let named): named
        case .hello, .describe, .unsubscribe, .close, .refused: nil
        }
    }

    /// The call `method` with `params` makes.
    init(method: String, params: JSONValue?) {
        let wireMethod = WireMethod(rawValue: method)
        do throws(LumenError) {
            switch wireMethod {
            case .hello:
                _ = try Params(params, allowing: ["client"])
                self = .hello
            case .describe:
                _ = try Params(params, allowing: [])
                self = .describe
            case .open:
                let params = try Params(params, allowing: ["scope", "connection", "configuration"])
                self = .open(try params.target(), configuration: params.cursor("configuration"))
            case .get:
                self = .get(try Params(params, allowing: ["scope", "connection"]).target())
            case .set:
                let params = try Params(params, allowing: ["scope", "connection", "value", "transitionMs"])
                self = .set(
                    try params.target(), value: params.cursor("value"), transitionMs: params.cursor("transitionMs"))
            case .call:
                let params = try Params(params, allowing: ["scope", "connection", "arguments"])
                self = .call(try params.target(), arguments: params.cursor("arguments"))
            case .subscribe:
                self = .subscribe(try Params(params, allowing: ["scope", "connection"]).target())
            case .unsubscribe:
                self = .unsubscribe(subscription: try Params(params, allowing: ["subscription"]).int("subscription"))
            case .close:
                self = .close(scope: try Params(params, allowing: ["scope"]).int("scope"))
            case nil:
                let names = WireMethod.allCases.map(\.rawValue).joined(separator: ", ")
                self = .refused(LumenError(.methodNotFound, "Method not found: '\(method)'; methods are \(names)"))
            }
        } catch {
            switch wireMethod {
            case .open, .get, .call, .subscribe:
                self = .refusedOnConnection(error, Named(leniently: params, value: nil))
            case .set:
                self = .refusedOnConnection(error, Named(leniently: params, value: "value"))
            default:
                self = .refused(error)
            }
        }
    }
}

/// A request's parameters, read with errors that name the parameter.
struct Params {
    let object: ObjectCursor

    init(_ params: JSONValue?, allowing keys: Set<String>) throws(LumenError) {
        let value = params ?? .object([:])
        guard case .object = value else {
            throw LumenError(.invalidParams, "params must be an object with named members (by name, not by position)")
        }
        do {
            object = try JSONCursor(value, path: JSONPath.root.appending("params")).object(allowing: keys)
        } catch {
            throw LumenError(.invalidParams, "\(error)")
        }
    }

    func target() throws(LumenError) -> Call.Target {
        Call.Target(scope: try int("scope"), connection: try string("connection"))
    }

    func int(_ key: String) throws(LumenError) -> Int {
        do { return try object.required(key).int() } catch {
            throw LumenError(.invalidParams, "\(error)")
        }
    }

    func string(_ key: String) throws(LumenError) -> String {
        do { return try object.required(key).string() } catch {
            throw LumenError(.invalidParams, "\(error)")
        }
    }

    /// The member as a cursor (`null` when absent), for values, configurations and arguments.
    func cursor(_ key: String) -> JSONCursor { object.member(key) }
}
