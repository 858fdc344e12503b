import LumenProtocol
import Testing

/// Which requests lumend's HTTP fronts take: a page's origin is lumend's own when its scheme is the one the
/// request came by, so the dashboard served over HTTPS may call lumend and no page over plain HTTP may pose as it.
@Suite("HTTP access")
struct HTTPAccessTests {
    func request(origin: String, secure: Bool) -> HTTPRequest {
        var request = HTTPRequest(
            method: "POST", path: "/rpc", headers: ["host": "127.0.0.1:8443", "origin": origin])
        request.isSecure = secure
        return request
    }

    @Test func aPageIsLumendsOwnOnlyOverTheSchemeItsRequestCameBy() {
        let access = HTTPAccess()
        #expect(access.refusal(of: request(origin: "https://127.0.0.1:8443", secure: true)) == nil)
        #expect(access.refusal(of: request(origin: "http://127.0.0.1:8443", secure: false)) == nil)
        #expect(access.refusal(of: request(origin: "http://127.0.0.1:8443", secure: true)) != nil)
        #expect(access.refusal(of: request(origin: "https://127.0.0.1:8443", secure: false)) != nil)
    }
}
