import Foundation
import LumenLIFX
import LumenModel
import LumenProtocol
import LumenScopes
import LumenServer
import LumenSimulation

extension Benchmarks {
    /// The LIFX bulbs: `Light.Get` → `Light.State` round trips with 8 in flight from one UDP client, against a
    /// raw UDP echo server answering the same datagrams, in turn; then the same Get to one bulb of a home of 1,000
    /// bulbs against the one-bulb home, in turn: a query to one bulb does not look at every bulb.
    static func benchmarkLIFX(_ baseline: Baseline) async {
        guard let one = await LIFXBenchFront(bulbs: 1), let many = await LIFXBenchFront(bulbs: 1_000),
            let echoFD = try? UDPServer.bind(TCPAddress(host: "127.0.0.1", port: 0)),
            let echoPort = TCPListener.boundPort(echoFD)
        else {
            print("  LIFX: SKIPPED (no loopback UDP socket could be opened, or no bulb on the LAN)")
            return
        }
        Thread { udpEcho(echoFD) }.start()
        let rounds = baseline.rounds
        let (echo, lifx) = await onThread {
            alternate("echo", "lifx") { which in
                udpRoundTrips(
                    port: which == "lifx" ? one.port : echoPort, datagram: one.get, window: 8, rounds: rounds)
            }
        }
        report("LIFX Light.Get round trips, 8 in flight (vs UDP echo; target ≥ 0.30)", lifx, baseline: echo)
        let (small, big) = await onThread {
            alternate("one", "many") { which in
                let front = which == "one" ? one : many
                return udpRoundTrips(port: front.port, datagram: front.get, window: 8, rounds: rounds)
            }
        }
        report("LIFX Light.Get to one of 1,000 bulbs vs a one-bulb home (≈ 1.00)", big, baseline: small)
        await one.stop()
        await many.stop()
    }

    /// Answers every datagram on `fd` with itself, forever.
    static func udpEcho(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 1_500)
        var sender = sockaddr_storage()
        while true {
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let count = buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &sender) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(fd, bytes.baseAddress, bytes.count, 0, $0, &length)
                    }
                }
            }
            guard count >= 0 else { return }
            _ = buffer.withUnsafeBytes { bytes in
                withUnsafePointer(to: &sender) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(fd, bytes.baseAddress, count, 0, $0, length)
                    }
                }
            }
        }
    }

    /// `rounds` round trips of `datagram` to `port` on one UDP socket, `window` in flight: each answer sends
    /// the next. A datagram lost (none should be, on loopback) ends the run after a second's wait.
    static func udpRoundTrips(port: UInt16, datagram: [UInt8], window: Int, rounds: Int) -> Measurement {
        let address = TCPAddress(host: "127.0.0.1", port: port)
        guard let fd = try? address.connectedSocket(type: Int32(SOCK_DGRAM.rawValue)) else {
            preconditionFailure("cannot open a UDP socket to \(address)")
        }
        defer { close(fd) }
        var limit = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 1_500)
        let cpu = processCPU()
        let start = ContinuousClock.now
        var sent = 0
        var answered = 0
        while sent < min(window, rounds) {
            _ = datagram.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            sent += 1
        }
        while answered < rounds {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            answered += 1
            if sent < rounds {
                _ = datagram.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
                sent += 1
            }
        }
        return Measurement(
            operations: answered, seconds: seconds(ContinuousClock.now - start), cpu: processCPU() - cpu)
    }
}

/// A LIFX front serving its own home of `bulbs` bulbs on a loopback UDP socket, and the `Light.Get` a client sends
/// to the last of them, at `127.0.0.1`: the bulbs answer at once and take every message, so what is measured is
/// Lumen's path, not the latency and rate limit a real bulb has (the demo home's bulbs take 20 messages a second).
struct LIFXBenchFront {
    let port: UInt16
    let get: [UInt8]
    let task: Task<Void, any Error>

    init?(bulbs count: Int) async {
        // The others count their addresses from 127.0.1.1 on; the last is given 127.0.0.1, where the socket is.
        let lights = (0..<count).map { index in
            let address = index == count - 1 ? #", "lifx": {"address": "127.0.0.1"}"# : ""
            return #"{"id": "den.bulb\#(index)", "name": "Bulb \#(index)", "kind": "color", "manufacturer": "LIFX", "#
                + #""family": "generic", "network": "lifx-lan", "latency": "instant"\#(address)}"#
        }
        let text =
            #"{"schema": 1, "id": "bench", "name": "Bench", "rooms": [{"id": "den", "name": "Den", "lights": ["#
            + lights.joined(separator: ", ") + "]}]}"
        guard let fixture = try? Fixture(json: Array(text.utf8)),
            let first = IPv4Address("127.0.1.1"),
            let fd = try? UDPServer.bind(TCPAddress(host: "127.0.0.1", port: 0)),
            let port = TCPListener.boundPort(fd)
        else { return nil }
        let home = Home(fixture: fixture, clock: .real)
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 0, firstAddress: first)
        guard let bulb = await front.bulbs().last, bulb.address.description == "127.0.0.1" else { return nil }
        let server = UDPServer(fd: fd, loop: Home.sharedLoop) { datagram, destination, sender in
            guard case .address(let address) = destination else { return front.respond(to: datagram, from: sender) }
            return front.respond(to: datagram, at: address, from: sender)
        }
        self.port = port
        get = LIFXPacket(source: 1, target: bulb.serial + [0, 0], sequence: 0, type: 101).bytes
        task = Task { try await server.run() }
    }

    func stop() async {
        task.cancel()
        _ = await task.result
    }
}
