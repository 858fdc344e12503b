import LumenHue
import LumenModel
import LumenServer
import LumenService
import LumenSimulation

extension Daemon {
    /// The multicast DNS responder that announces the Hue bridge as a bridge announces itself: `_hue._tcp`,
    /// the instance `Hue Bridge - ` and the bridge ID's last six digits, the host the bridge ID in lower case,
    /// the HTTPS port (else the HTTP one), and `bridgeid` and `modelid` as its properties.
    /// - Throws: ``StartupError`` when the bridge serves no port, or the responder cannot listen on `address`.
    static func mdnsResponder(
        on address: IPv4Address, home: Home, httpFD: Int32?, httpsFD: Int32?, logger: Logger
    ) throws -> MDNSResponder {
        guard let port = (httpsFD ?? httpFD).flatMap(TCPListener.boundPort) else {
            throw StartupError(
                description: "--mdns announces the Hue bridge, which is served only with --http or --https")
        }
        let bridgeID = HueBridge.bridgeID(homeID: home.fixtureID)
        let service = MDNSService(
            instance: "Hue Bridge - \(bridgeID.suffix(6))", type: "_hue._tcp", host: bridgeID.lowercased(),
            address: address, port: port, properties: [("bridgeid", bridgeID.lowercased()), ("modelid", "BSB002")])
        let responder: MDNSResponder
        do { responder = try MDNSResponder(service: service, logger: logger) } catch {
            throw StartupError(
                description: "cannot announce the Hue bridge by mDNS on \(address): \(error); give an address of "
                    + "this machine's LAN interface")
        }
        logger.notice(
            "announcing the Hue bridge by mDNS on \(address) as '\(service.instance)' (_hue._tcp, port \(port))",
            [("mdns", address.description)])
        return responder
    }
}
