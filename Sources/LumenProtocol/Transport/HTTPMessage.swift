/// An HTTP request as lumend's HTTP fronts see it: whole, its body read.
package struct HTTPRequest: Sendable {
    /// `GET`, `PUT`, `POST`, …
    package var method: String
    /// The path, without the query (`/api/abc/lights/3`).
    package var path: String
    /// The headers a front may read, by lower-case name (`origin`, `content-type`, …). `host` is the host the
    /// request is for: an absolute-form target's authority (`GET http://host/…`) when it has one, else the field.
    package var headers: [String: String]
    /// The query's arguments a front may read, by name (`session`).
    package var query: [String: String]
    /// The body.
    package var body: [UInt8]
    /// Whether it came over TLS (an HTTPS listener): its page's origin is then `https://` and the host.
    package var isSecure = false

    /// A request.
    package init(
        method: String, path: String, headers: [String: String] = [:], query: [String: String] = [:],
        body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.headers = headers
        self.query = query
        self.body = body
    }
}

/// An HTTP response: its status, headers and body.
package struct HTTPResponse: Sendable {
    /// The status code.
    package var status: Int
    /// The headers, in order.
    package var headers: [(name: String, value: String)]
    /// The body.
    package var body: [UInt8]

    /// A response.
    package init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response.
    package static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [("Content-Type", "application/json")], body: Array(value.serialized().utf8))
    }

    /// A plain-text response.
    package static func text(_ text: String, status: Int) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(text.utf8))
    }
}

/// What a front makes of a request: a response now, or work whose response comes later (a command waiting
/// for its device), during which the connection waits without holding a thread.
package enum HTTPReply: Sendable {
    /// Answered at once.
    case now(HTTPResponse)
    /// Answered when the work is done.
    case later(@Sendable () async -> HTTPResponse)
    /// The head (its body ignored) with the body's first bytes, then the body as it comes, for as long as the
    /// connection stays open: a Server-Sent Events stream.
    case stream(HTTPResponse, any HTTPStreamBody)
}

/// A response body sent as it comes (a Server-Sent Events stream). The server calls it on its own event loop
/// only, and it wakes the server from that loop only.
package protocol HTTPStreamBody: AnyObject, Sendable {
    /// The stream is being sent: `wake` tells the server that there is more to send.
    func start(wake: @escaping @Sendable () -> Void)
    /// At most `maxBytes` to send now: empty when there is nothing yet (the server waits for `wake`), `nil` once
    /// the stream is over. The response's head goes out with the first bytes, so a body that is not ready keeps
    /// its client waiting for the head.
    func next(maxBytes: Int) -> [UInt8]?
    /// Whether the stream let its client go for falling too far behind (``next(maxBytes:)`` then gives `nil`):
    /// the server closes the connection at once rather than wait for a client that is not reading to take what
    /// its socket holds first.
    var isCut: Bool { get }
    /// The connection is closed: the client went, or the server stops.
    func finish()
}
