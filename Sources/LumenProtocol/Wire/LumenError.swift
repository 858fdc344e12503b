/// An error a client of Lumen can see, with a stable numeric code.
///
/// The codes are the wire protocol's JSON-RPC error codes (`docs/protocol.md`), so the daemon, the client
/// library and `lumenctl` all speak of the same failure the same way. New codes may be added; existing ones
/// never change meaning.
public struct LumenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public var code: Code
    /// What happened and what to do about it, for people.
    public var message: String
    /// The scope, connection and entity involved, as JSON.
    public var data: JSONObject

    /// An error.
    public init(_ code: Code, _ message: String, data: JSONObject = [:]) {
        self.code = code
        self.message = message
        self.data = data
    }

    public var description: String { "\(message) (\(code.rawValue))" }

    /// The stable error codes.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public var description: String { String(rawValue) }

        /// The line is not valid JSON.
        public static let parseError = Code(rawValue: -32700)
        /// The JSON is not a valid JSON-RPC 2.0 request.
        public static let invalidRequest = Code(rawValue: -32600)
        /// No such method.
        public static let methodNotFound = Code(rawValue: -32601)
        /// A parameter has the wrong type or is out of range.
        public static let invalidParams = Code(rawValue: -32602)
        /// The server failed in a way the client did not cause.
        public static let internalError = Code(rawValue: -32603)
        /// No open scope has that ID.
        public static let noSuchScope = Code(rawValue: -32001)
        /// The scope has no connection of that name.
        public static let noSuchConnection = Code(rawValue: -32002)
        /// The connection is of the wrong kind for the method (e.g. `set` on a read-only value).
        public static let wrongConnectionKind = Code(rawValue: -32003)
        /// No room or light has that ID.
        public static let noSuchEntity = Code(rawValue: -32004)
        /// The device cannot do that (e.g. brightness on an on/off plug).
        public static let notSupported = Code(rawValue: -32005)
        /// The device did not answer: it is unreachable.
        public static let unreachable = Code(rawValue: -32010)
        /// The device did not confirm the command in time.
        public static let timedOut = Code(rawValue: -32011)
        /// The device is taking more commands than it can handle (its rate limit).
        public static let busy = Code(rawValue: -32012)
        /// The device is off and does not take that change while off (a Hue bulb's "device is set to off").
        public static let deviceOff = Code(rawValue: -32013)
        /// A limit of the server was reached (line length, nesting, scopes, subscriptions, sessions).
        public static let limitExceeded = Code(rawValue: -32020)
        /// The entity already exists.
        public static let alreadyExists = Code(rawValue: -32021)
        /// The method needs the virtual clock.
        public static let needsVirtualClock = Code(rawValue: -32030)
        /// The change was applied but could not be written to disk.
        public static let notPersisted = Code(rawValue: -32040)
        /// The server is shutting down; retry after it restarts.
        public static let shuttingDown = Code(rawValue: -32050)
        /// The peer is not allowed to do that.
        public static let permissionDenied = Code(rawValue: -32060)
        /// Over HTTP, no session has that ID: it expired, was ended, or lumend restarted.
        public static let noSuchSession = Code(rawValue: -32070)
    }
}

extension LumenError {
    /// The answer to a request that comes while lumend stops: the one wording, wherever it is found out.
    public static let shuttingDown = LumenError(.shuttingDown, "lumend is shutting down; retry once it is back")
}
