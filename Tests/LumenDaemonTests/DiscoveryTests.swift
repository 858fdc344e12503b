import LumenModel
import LumenServer
import Testing

@testable import LumenDaemon

/// Which listener the Hue bridge's mDNS announcement names: one a client reaches at the announced address.
@Suite("mDNS announcement's listener")
struct DiscoveryTests {
    let lan = IPv4Address("192.168.1.20")!

    @Test func aListenerOnLoopbackOrAnotherAddressIsNotAnnounced() {
        #expect(Daemon.announced([("HTTPS", TCPAddress(host: "127.0.0.1", port: 443))], at: lan) == nil)
        #expect(Daemon.announced([("HTTPS", TCPAddress(host: "192.168.1.21", port: 443))], at: lan) == nil)
        #expect(Daemon.announced([("HTTPS", nil)], at: lan) == nil)
    }

    @Test func theHTTPSListenerIsAnnouncedWhenReachableElseTheHTTPOne() {
        let both: [(scheme: String, bound: TCPAddress?)] = [
            ("HTTPS", TCPAddress(host: "0.0.0.0", port: 8443)), ("HTTP", TCPAddress(host: "192.168.1.20", port: 80)),
        ]
        #expect(Daemon.announced(both, at: lan).map { "\($0.scheme) \($0.port)" } == "HTTPS 8443")
        let httpOnly: [(scheme: String, bound: TCPAddress?)] = [
            ("HTTPS", TCPAddress(host: "127.0.0.1", port: 8443)), ("HTTP", TCPAddress(host: "192.168.1.20", port: 80)),
        ]
        #expect(Daemon.announced(httpOnly, at: lan).map { "\($0.scheme) \($0.port)" } == "HTTP 80")
        #expect(Daemon.announced([("HTTPS", TCPAddress(host: "::", port: 443))], at: lan)?.port == 443)
    }
}
