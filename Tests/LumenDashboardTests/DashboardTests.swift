import LumenProtocol
import Testing

@testable import LumenDashboard

/// The page as lumend serves it: one self-contained file, under a policy that lets it reach nothing else.
@Suite("The dashboard page")
struct DashboardTests {
    var page: String {
        String(decoding: Dashboard.respond(to: HTTPRequest(method: "GET", path: "/"))!.body, as: UTF8.self)
    }

    @Test func itIsServedAtTheRootUnderAPolicyThatAllowsNothingFromElsewhere() throws {
        let response = try #require(Dashboard.respond(to: HTTPRequest(method: "GET", path: "/")))
        #expect(response.status == 200)
        let headers = Dictionary(response.headers.map { ($0.name.lowercased(), $0.value) }) { first, _ in first }
        #expect(headers["content-type"] == "text/html; charset=utf-8")
        let policy = try #require(headers["content-security-policy"])
        #expect(policy.hasPrefix("default-src 'none'") && policy.contains("connect-src 'self'"))
        #expect(policy.contains("frame-ancestors 'none'"))
        #expect(Dashboard.respond(to: HTTPRequest(method: "POST", path: "/"))?.status == 405)
        #expect(Dashboard.respond(to: HTTPRequest(method: "GET", path: "/api")) == nil)
    }

    @Test func onlyItsOwnScriptAndStylesRunByAFreshNonce() throws {
        func served() throws -> (policy: String, body: String) {
            let response = try #require(Dashboard.respond(to: HTTPRequest(method: "GET", path: "/")))
            let policy = try #require(response.headers.first { $0.name == "Content-Security-Policy" }?.value)
            return (policy, String(decoding: response.body, as: UTF8.self))
        }
        let (policy, body) = try served()
        #expect(!policy.contains("unsafe-inline"))
        let nonce = try #require(
            policy.split(separator: ";").first { $0.contains("script-src") }?.split(separator: "'nonce-").last?
                .prefix { $0 != "'" })
        #expect(nonce.count >= 32)
        #expect(policy.contains("style-src 'nonce-\(nonce)'"))
        // The page's one script and one style sheet carry it; nothing else on the page is a script or style.
        #expect(body.ranges(of: "<script nonce=\"\(nonce)\">").count == 1)
        #expect(body.ranges(of: "<style nonce=\"\(nonce)\">").count == 1)
        #expect(body.ranges(of: "<script").count == 1 && body.ranges(of: "<style").count == 1)
        #expect(try served().policy != policy, "each page gets a nonce of its own")
    }

    @Test func itLoadsNothingFromElsewhere() {
        // No address of another host, no file of its own to fetch: everything is inline.
        for pattern in ["http://", "https://", "<script src", "@import", "url("] {
            #expect(!page.contains(pattern), "the page refers to '\(pattern)'")
        }
        // What an attribute points at is inline (`data:`) or on the page itself (`#…`).
        for attribute in ["href=\"", "src=\""] {
            for piece in page.split(separator: attribute).dropFirst() {
                #expect(piece.hasPrefix("data:") || piece.hasPrefix("#"), "\(attribute)\(piece.prefix(40))")
            }
        }
        // Inline handlers would need 'unsafe-inline' for attributes too; the script adds its listeners itself.
        for handler in [" onclick=", " onload=", " onchange=", " oninput="] {
            #expect(!page.lowercased().contains(handler), "the page has an inline '\(handler)'")
        }
    }

    @Test func itWritesNoMarkupFromStrings() {
        // Light and room names come from clients: the page sets them as text, never as HTML.
        for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("] {
            #expect(!page.contains(sink), "the page uses \(sink)")
        }
    }
}
