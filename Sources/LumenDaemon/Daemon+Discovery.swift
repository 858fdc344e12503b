import LumenHue
import LumenModel
import LumenServer
import LumenService
import LumenSimulation

extension Daemon {
    /// The multicast DNS responder that announces the Hue bridge as a bridge announces itself
    /// (``MDNSService/hueBridge(bridgeID:address:port:)``), with the port of the listener reachable at `address`
    /// (HTTPS's, else HTTP's). `nil`, said in the log, when no listener is reachable there (bound to loopback, or
    /// to another address): an announcement would send apps to a port that refuses them.
    /// - Throws: ``StartupError`` when the bridge serves no port, or the responder cannot listen on `address`.
    static func mdnsResponder(
        on address: IPv4Address, home: Home, httpFDs: [Int32], httpsFDs: [Int32], logger: Logger
    ) throws -> MDNSResponder? {
        let listeners =
            httpsFDs.map { (scheme: "HTTPS", option: "--https", bound: TCPListener.boundAddress($0)) }
            + httpFDs.map { (scheme: "HTTP", option: "--http", bound: TCPListener.boundAddress($0)) }
        guard !listeners.isEmpty else {
            throw StartupError(
                description: "--mdns announces the Hue bridge, which is served only with --http or --https")
        }
        guard let (scheme, port) = announced(listeners.map { ($0.scheme, $0.bound) }, at: address) else {
            let bound = listeners.map { "\($0.scheme) on \($0.bound?.description ?? "an unknown address")" }
            let option = listeners[0].option
            let port = listeners[0].bound?.port ?? 443
            logger.warning(
                "the Hue bridge is not announced by mDNS: no listener is reachable at \(address) ("
                    + bound.joined(separator: ", ") + "); listen there with \(option) \(address):\(port) or "
                    + "\(option) 0.0.0.0:\(port)",
                [("mdns", address.description)])
            return nil
        }
        if scheme != listeners[0].scheme {
            logger.notice(
                "mDNS announces the Hue bridge's \(scheme) port \(port): its \(listeners[0].scheme) listener is not "
                    + "reachable at \(address)", [("mdns", address.description)])
        }
        let service = MDNSService.hueBridge(
            bridgeID: HueBridge.bridgeID(homeID: home.fixtureID), address: address, port: port)
        let responder: MDNSResponder
        do { responder = try MDNSResponder(service: service, logger: logger) } catch {
            throw StartupError(
                description: "cannot announce the Hue bridge by mDNS on \(address): \(error); give an address of "
                    + "this machine's LAN interface")
        }
        logger.notice(
            "announcing the Hue bridge by mDNS on \(address) as '\(service.instance)' (_hue._tcp, \(scheme) port "
                + "\(port))", [("mdns", address.description)])
        return responder
    }

    /// The first of `listeners` (by scheme, with the address each is bound to) that a client reaches at `address`,
    /// and its port: one bound to `address` itself or to every address (`0.0.0.0`, `::`).
    static func announced(_ listeners: [(scheme: String, bound: TCPAddress?)], at address: IPv4Address) -> (
        scheme: String, port: UInt16
    )? {
        let reachable = ["0.0.0.0", "::", address.description, "::ffff:\(address)"]
        return listeners.first { $0.bound.map { reachable.contains($0.host) } ?? false }.flatMap { listener in
            listener.bound.map { (listener.scheme, $0.port) }
        }
    }
}
