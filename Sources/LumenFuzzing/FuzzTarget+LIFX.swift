import LumenLIFX
import LumenModel
import LumenProtocol
import LumenScopes
import LumenSimulation

/// The `lifx` target: what anyone on the network may send lumend's LIFX socket.
extension FuzzTarget {
    /// One datagram the target read, the work that answers it, and what every reply must be.
    struct LIFXExchange: Sendable {
        var work: @Sendable (_ send: @escaping LIFXFront.Send) async -> Void
        var packet: LIFXPacket
        /// The address of each bulb that may answer, by serial.
        var answerers: [[UInt8]: IPv4Address]
    }

    /// Reads `bytes` as LIFX datagrams, each a byte saying where it is sent (its low seven bits 0: broadcast; n:
    /// the n-th bulb's address, counting round; its high bit: the datagram's target made the serial of the bulb
    /// after that one) and then the datagram, as long as its header's first two bytes say (what is left, when
    /// fewer). Each is answered as lumend's socket answers it, in the order read, the home's clock
    /// moved until every answer is sent. Every reply must be a LIFX packet that names the message it answers and
    /// comes from a bulb the message reached, sent from that bulb's address: a client drops any other.
    static func runLIFX(_ bytes: [UInt8]) async {
        let home = Home(fixture: clientHome, clock: .virtual, seed: 1)
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 56_700)
        let bulbs = await front.bulbs()
        var exchanges: [LIFXExchange] = []
        var rest = bytes[...]
        while let byte = rest.popFirst() {
            let size = rest.count >= 2 ? Int(rest[rest.startIndex]) | Int(rest[rest.startIndex + 1]) << 8 : rest.count
            var datagram = Array(rest.prefix(max(size, 1)))
            rest = rest.dropFirst(datagram.count)
            let destination = Int(byte & 0x7F)
            let bulb = destination == 0 || bulbs.isEmpty ? nil : bulbs[(destination - 1) % bulbs.count]
            // A serial no input could guess: the high bit names the bulb after the one sent to (the first bulb, for
            // a broadcast), so that a message naming a bulb, or naming another than the one at its address, is sent.
            if byte & 0x80 != 0, !bulbs.isEmpty, datagram.count >= 16 {
                datagram.replaceSubrange(8..<16, with: bulbs[destination % bulbs.count].serial + [0, 0])
            }
            let work = front.respond(to: datagram, at: bulb?.address, from: { "127.0.0.1:56700" })
            if let work, let packet = try? LIFXPacket(bytes: datagram) {
                exchanges.append(
                    LIFXExchange(
                        work: work, packet: packet, answerers: answerers(of: packet, sentTo: bulb, among: bulbs)))
            }
        }
        // Started one after the other on the home's loop, as the UDP server starts them.
        let tasks = exchanges.map { exchange in
            Task(executorPreference: Home.sharedLoop) {
                await exchange.work { datagrams, from in
                    for datagram in datagrams { check(datagram, from: from, answering: exchange) }
                }
            }
        }
        await driving(home) { for task in tasks { await task.value } }
        await home.shutDown()
    }

    /// Holds `datagram`, sent from `from`, to being a reply a client of `exchange` takes.
    static func check(_ datagram: [UInt8], from: IPv4Address?, answering exchange: LIFXExchange) {
        let packet = exchange.packet
        guard let reply = try? LIFXPacket(bytes: datagram) else { preconditionFailure("a reply that is no packet") }
        precondition(
            reply.source == packet.source && reply.sequence == packet.sequence,
            "a reply that names another message: \(datagram) to \(packet.bytes)")
        guard let address = exchange.answerers[Array(reply.target.prefix(6))] else {
            preconditionFailure("a reply from a bulb the message did not reach: \(datagram) to \(packet.bytes)")
        }
        precondition(from == address, "a reply from \(address)'s bulb sent from \(String(describing: from))")
    }

    /// The bulbs that may answer `packet` sent to `bulb`'s address (`nil`: broadcast) among `bulbs`, their
    /// addresses by serial: a bulb answers a message sent to its address unless it names another bulb, and a
    /// broadcast is answered by the bulb it names, or by every bulb when it names none (tagged, or a target of
    /// zeros).
    static func answerers(of packet: LIFXPacket, sentTo bulb: LIFXLight?, among bulbs: [LIFXLight])
        -> [[UInt8]: IPv4Address]
    {
        let named = Array(packet.target.prefix(6))
        let namesNone = packet.tagged || named.allSatisfy { $0 == 0 }
        let reached =
            if let bulb { namesNone || named == bulb.serial ? [bulb] : [] } else {
                namesNone ? bulbs : bulbs.filter { $0.serial == named }
            }
        return Dictionary(reached.map { ($0.serial, $0.address) }, uniquingKeysWith: { first, _ in first })
    }
}
