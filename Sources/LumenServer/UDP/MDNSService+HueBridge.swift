import LumenModel

extension MDNSService {
    /// The Hue bridge's service, as a bridge announces itself: `_hue._tcp`, the instance `Hue Bridge - ` and the
    /// bridge ID's last six digits, the host the bridge ID in lower case, and `bridgeid` and `modelid` as its
    /// properties (apps read both before they pair).
    package static func hueBridge(bridgeID: String, address: IPv4Address, port: UInt16) -> MDNSService {
        MDNSService(
            instance: "Hue Bridge - \(bridgeID.suffix(6))", type: "_hue._tcp", host: bridgeID.lowercased(),
            address: address, port: port, properties: [("bridgeid", bridgeID.lowercased()), ("modelid", "BSB002")])
    }
}
