/// The methods a client calls, as the wire protocol names them (`docs/protocol.md`).
///
/// New methods may be added; these names never change.
public enum WireMethod: String, Sendable, Hashable, CaseIterable {
    /// `{client?}` → `{server, version, protocol, root}`.
    case hello
    /// `{}` → every scope type with its connections.
    case describe
    /// `{scope, connection, configuration?}` → `{scope, type}`.
    case open
    /// `{scope}` → `{}`.
    case close
    /// `{scope, connection}` → `{value}`.
    case get
    /// `{scope, connection, value, transitionMs?}` → `{value}`, once the device confirmed.
    case set
    /// `{scope, connection, arguments?}` → `{value}`.
    case call
    /// `{scope, connection}` → `{subscription, value, seq}`.
    case subscribe
    /// `{subscription}` → `{}`.
    case unsubscribe
}

/// The notifications the server sends, as the wire protocol names them.
public enum WireNotification: String, Sendable, Hashable, CaseIterable {
    /// `{subscription, value, seq}`: a subscribed value changed.
    case changed
    /// `{scope, reason}`: the server closed a scope (its entity went away, or the session ends).
    case closed
    /// `{reason}`: over HTTP, an events stream resumed after notices it can no longer be given; the client reads
    /// its values again.
    case reload
}
