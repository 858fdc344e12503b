import LumenProtocol

/// The dashboard: one page of HTML with its script and styles inline, built into the binary, that is a client
/// of the scope protocol over HTTP (`docs/dashboard.md`).
public enum Dashboard {
    /// The page's text, as built in.
    static let html = String(decoding: PackageResources.dashboard_html, as: UTF8.self)

    /// What the page may load and reach: the script and style sheet that carry `nonce`, and lumend's own
    /// `/rpc`; nothing from elsewhere, no script or style slipped into the page, and no other site may frame it.
    static func contentSecurityPolicy(nonce: String) -> String {
        "default-src 'none'; script-src 'nonce-\(nonce)'; style-src 'nonce-\(nonce)'; connect-src 'self'; "
            + "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    /// The page with a new nonce on its one `<script>` and one `<style>`, and the policy that lets only them run.
    static func page(nonce: String) -> HTTPResponse {
        let body =
            html
            .replacing("<script>", with: "<script nonce=\"\(nonce)\">", maxReplacements: 1)
            .replacing("<style>", with: "<style nonce=\"\(nonce)\">", maxReplacements: 1)
        return HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
                ("Content-Security-Policy", contentSecurityPolicy(nonce: nonce)), ("X-Content-Type-Options", "nosniff"),
                ("Referrer-Policy", "no-referrer"),
            ],
            body: Array(body.utf8))
    }

    /// The answer to `request` when it is for the page (`GET /` or `HEAD /`); `nil` for any other path. Each
    /// page has a nonce of its own, 128 bits from the kernel's random source.
    package static func respond(to request: HTTPRequest) -> HTTPResponse? {
        guard request.path == "/" || request.path == "/index.html" else { return nil }
        guard request.method == "GET" || request.method == "HEAD" else {
            return HTTPResponse(status: 405, headers: [("Allow", "GET, HEAD")])
        }
        return page(nonce: .unguessable())
    }
}
