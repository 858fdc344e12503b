import LumenProtocol

/// The dashboard: one page of HTML with its script and styles inline, built into the binary, that is a client
/// of the scope protocol over HTTP (`docs/dashboard.md`).
public enum Dashboard {
    /// What the page may load and reach: its own inline script and styles, and lumend's own `/rpc`; nothing
    /// from elsewhere, and no other site may frame it.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
        + "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The page, as `GET /` answers it.
    public static let page = HTTPResponse(
        status: 200,
        headers: [
            ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-cache"),
            ("Content-Security-Policy", contentSecurityPolicy), ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
        ],
        body: PackageResources.dashboard_html)

    /// The answer to `request` when it is for the page (`GET /` or `HEAD /`); `nil` for any other path.
    public static func respond(to request: HTTPRequest) -> HTTPResponse? {
        guard request.path == "/" || request.path == "/index.html" else { return nil }
        guard request.method == "GET" || request.method == "HEAD" else {
            return HTTPResponse(status: 405, headers: [("Allow", "GET, HEAD")])
        }
        return page
    }
}
