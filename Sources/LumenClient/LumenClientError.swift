import LumenProtocol

/// Why a client call failed: the daemon said no (with a stable code), or the connection is not there.
public enum LumenClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The daemon answered with an error; `error.code` is the protocol's stable code.
    case server(LumenError)
    /// The socket could not be reached (no daemon running, wrong path, no permission).
    case cannotConnect(path: String, reason: String)
    /// The connection was closed (by `disconnect()`, the daemon stopping, or the daemon hanging up).
    /// Reconnecting is up to the caller: the client never reconnects behind your back.
    case disconnected
    /// The daemon sent something this client cannot read.
    case protocolViolation(String)
    /// No answer came within the timeout the call was given; says what was waited for.
    case timedOut(String)

    /// The server's error code, when the daemon answered with an error.
    public var code: LumenError.Code? {
        if case .server(let error) = self { return error.code }
        return nil
    }

    public var description: String {
        switch self {
        case .server(let error): error.message
        case .cannotConnect(let path, let reason):
            "cannot connect to lumend at \(path): \(reason)"
                + (reason.hasPrefix("Permission denied")
                    ? "" : "; is lumend running? (start it, or its socket unit, or pass --socket or set $LUMEN_SOCKET)")
        case .disconnected: "the connection to lumend was closed; connect again"
        case .protocolViolation(let what): "lumend sent something unexpected: \(what)"
        case .timedOut(let what):
            "lumend did not answer \(what); on a virtual-clock lumend a write is answered once the clock passes the "
                + "light's latency: send it from a task of its own, then advance or settle the clock"
        }
    }
}
