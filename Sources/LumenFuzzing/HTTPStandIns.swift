import LumenProtocol

/// Stand-ins an input of the `http` target may write for the IDs lumend draws at random, which no input could
/// guess: `@light@`, `@room@`, `@grouped_light@`, … (the first API v2 resource of that type the bridge lists, or
/// the last the input made through API v2), `@scene@` (likewise, or the last made through API v1) and
/// `@session@` (the last HTTP session a `hello` opened). A request's framing and limits are read before they
/// are put in, so an ID may make it longer than lumend would take.
/// Each is put in a request's path, header and query values and body (when it is UTF-8) before it is answered.
struct HTTPStandIns {
    private var values: [String: String] = [:]

    /// The request that lists the API v2 resources, as the target's paired user, over TLS to lumend's address.
    static var listing: HTTPRequest {
        var request = HTTPRequest(
            method: "GET", path: "/clip/v2/resource",
            headers: ["hue-application-key": FuzzTarget.hueUser, "host": "127.0.0.1"])
        request.isSecure = true
        return request
    }

    /// Stand-ins for the resources in `resources`, the answer to `GET /clip/v2/resource`.
    init(resources: HTTPResponse?) {
        guard let body = resources?.body, case .array(let data)? = (try? JSONParser.parse(body))?["data"] else {
            preconditionFailure("the bridge did not list its API v2 resources")
        }
        for resource in data {
            if let type = resource["type"]?.stringValue, let id = resource["id"]?.stringValue,
                values["@\(type)@"] == nil
            {
                values["@\(type)@"] = id
            }
        }
    }

    /// `request` with its stand-ins replaced.
    func applied(to request: HTTPRequest) -> HTTPRequest {
        var request = request
        request.path = replaced(request.path)
        request.headers = request.headers.mapValues(replaced)
        request.query = request.query.mapValues(replaced)
        if let body = String(validating: request.body, as: UTF8.self), body.contains("@") {
            request.body = Array(replaced(body).utf8)
        }
        return request
    }

    /// `text` with each stand-in replaced, read once from left to right, so that what an input means does not
    /// hang on the order a dictionary lists them in: at each `@`, a known name up to the next `@` is replaced and
    /// reading goes on after it; any other `@` stays.
    private func replaced(_ text: String) -> String {
        guard text.contains("@") else { return text }
        var result = ""
        var rest = Substring(text)
        while let at = rest.firstIndex(of: "@") {
            result += rest[..<at]
            let afterAt = rest.index(after: at)
            if let close = rest[afterAt...].firstIndex(of: "@"), let value = values["@\(rest[afterAt..<close])@"] {
                result += value
                rest = rest[rest.index(after: close)...]
            } else {
                result += "@"
                rest = rest[afterAt...]
            }
        }
        return result + rest
    }

    /// Learns what `response` to `request` drew: a session a `hello` opened, a scene made.
    mutating func learn(from response: HTTPResponse, to request: HTTPRequest) {
        if let session = response.headers.first(where: { $0.name == "Lumen-Session" }) {
            values["@session@"] = session.value
        }
        guard request.method == "POST", let answer = try? JSONParser.parse(response.body) else { return }
        if request.path.hasSuffix("/scenes"), case .array(let results) = answer,
            let id = results.first?["success"]?["id"]?.stringValue
        {
            values["@scene@"] = id  // API v1
        } else if case .array(let data)? = answer["data"], let made = data.first,
            let type = made["rtype"]?.stringValue, let id = made["rid"]?.stringValue
        {
            values["@\(type)@"] = id  // API v2
        }
    }
}
