import LumenHue
import LumenModel
import LumenServer

/// The `mdns` target: what anyone on the link may ask lumend's mDNS responder.
extension FuzzTarget {
    /// Reads `bytes` as a multicast DNS query to the Hue bridge's service, as from a querier on port 5353 and
    /// from a one-shot resolver. An answer must be a response (its QR bit set); a one-shot resolver's must carry
    /// the query's ID, by which the resolver matches it.
    static func runMDNS(_ bytes: [UInt8]) {
        if let answer = mdnsService.answer(to: bytes) {
            precondition(answer.count >= 12 && answer[2] & 0x80 != 0, "an answer that is no response: \(answer)")
        }
        if let answer = mdnsService.answer(to: bytes, legacy: true) {
            precondition(answer.count >= 12 && answer[2] & 0x80 != 0, "an answer that is no response: \(answer)")
            precondition(answer[0..<2] == bytes[0..<2], "a one-shot answer with another ID: \(answer) to \(bytes)")
        }
    }

    /// The service the mDNS target answers for: the Hue bridge's, as lumend announces it for the fuzz home.
    static let mdnsService: MDNSService = {
        let bridgeID = HueBridge.bridgeID(homeID: "fuzz")
        return MDNSService(
            instance: "Hue Bridge - \(bridgeID.suffix(6))", type: "_hue._tcp", host: bridgeID.lowercased(),
            address: IPv4Address(value: 0x7F00_0001), port: 443,
            properties: [("bridgeid", bridgeID.lowercased()), ("modelid", "BSB002")])
    }()
}
