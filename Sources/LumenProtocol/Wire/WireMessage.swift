/// A line of the wire protocol as a client reads it: a response to one of its requests, or a notification.
public enum WireMessage: Sendable, Equatable {
    /// The answer to the request with this `id`.
    case response(id: JSONValue, Result<JSONValue, LumenError>)
    /// A notification from the server (no `id`).
    case notification(method: String, params: JSONValue)

    /// Reads a line the server sent; `nil` when it is neither a response nor a notification.
    public init?(line: [UInt8]) {
        guard let message = try? JSONParser.parse(line) else { return nil }
        self.init(message)
    }

    /// Reads a parsed message.
    public init?(_ message: JSONValue) {
        if let method = message["method"]?.stringValue {
            self = .notification(method: method, params: message["params"] ?? .null)
            return
        }
        guard let id = message["id"] else { return nil }
        if let error = message["error"] {
            self = .response(id: id, .failure(LumenError(wire: error)))
        } else if let result = message["result"] {
            self = .response(id: id, .success(result))
        } else {
            return nil
        }
    }
}

/// The bytes of wire messages, written once, as every side sends them (no trailing newline).
public enum Wire {
    /// A request: `{"jsonrpc":"2.0","id":…,"method":…,"params":…}`; no `id` makes it a notification.
    public static func request(id: JSONValue?, method: String, params: JSONValue?) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(96)
        bytes.append(contentsOf: #"{"jsonrpc":"2.0","#.utf8)
        if let id {
            bytes.append(contentsOf: #""id":"#.utf8)
            id.write(to: &bytes)
            bytes.append(UInt8(ascii: ","))
        }
        bytes.append(contentsOf: #""method":"#.utf8)
        JSONValue.string(method).write(to: &bytes)
        if let params {
            bytes.append(contentsOf: #","params":"#.utf8)
            params.write(to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// A response: `{"jsonrpc":"2.0","result":…,"id":…}` or `{"jsonrpc":"2.0","error":{…},"id":…}`.
    public static func response(id: JSONValue, _ result: Result<JSONValue, LumenError>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(96)
        writeResponse(id: id, result, to: &bytes)
        return bytes
    }

    /// A batch's responses, each already written (``response(id:_:)``), as one array.
    public static func batch(responses: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        bytes.reserveCapacity(responses.reduce(2) { $0 + $1.count + 1 })
        for (offset, response) in responses.enumerated() {
            if offset > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: response)
        }
        bytes.append(UInt8(ascii: "]"))
        return bytes
    }

    /// Appends a response to `bytes`.
    public static func writeResponse(id: JSONValue, _ result: Result<JSONValue, LumenError>, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"jsonrpc":"2.0","#.utf8)
        switch result {
        case .success(let value):
            bytes.append(contentsOf: #""result":"#.utf8)
            value.write(to: &bytes)
        case .failure(let error):
            bytes.append(contentsOf: #""error":"#.utf8)
            error.wireValue.write(to: &bytes)
        }
        bytes.append(contentsOf: #","id":"#.utf8)
        id.write(to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }

    /// A notification from the server: `{"jsonrpc":"2.0","method":…,"params":…}`.
    public static func notification(_ method: WireNotification, params: JSONValue) -> [UInt8] {
        request(id: nil, method: method.rawValue, params: params)
    }
}

extension LumenError {
    /// The JSON-RPC error object: `{code, message, data?}`.
    public var wireValue: JSONValue {
        var object: JSONObject = ["code": .int(code.rawValue), "message": .string(message)]
        if data.count > 0 { object["data"] = .object(data) }
        return .object(object)
    }

    /// The error a JSON-RPC error object describes; a malformed one reads as an internal error.
    public init(wire: JSONValue) {
        self.init(
            Code(rawValue: wire["code"]?.intValue ?? Code.internalError.rawValue),
            wire["message"]?.stringValue ?? "unknown error", data: wire["data"]?.objectValue ?? [:])
    }
}
