import Foundation
import LumenLIFX
import LumenModel
import LumenProtocol
import LumenScopes
import LumenServer
import LumenSimulation

extension Benchmarks {
    /// The LIFX bulbs: `Light.Get` → `Light.State` round trips with 8 in flight from one UDP client, against a
    /// raw UDP echo server answering the same datagrams, in turn.
    static func benchmarkLIFX(_ baseline: Baseline) async {
        // One bulb that answers at once and takes every message: what is measured is Lumen's path, not the
        // latency and rate limit a real bulb has (the demo home's bulbs take 20 messages a second).
        let bulbHome =
            #"{"schema": 1, "id": "bench", "name": "Bench", "rooms": [{"id": "den", "name": "Den", "lights": [{"id": "den.bulb", "name": "Bulb", "kind": "color", "manufacturer": "LIFX", "family": "generic", "network": "lifx-lan", "latency": "instant"}]}]}"#
        guard let fixture = try? Fixture(json: Array(bulbHome.utf8)) else { return }
        let home = Home(fixture: fixture, clock: .real)
        let front = LIFXFront(scopeContext: ScopeContext(home: home), port: 0)
        guard let lifxFD = try? UDPServer.bind(TCPAddress(host: "127.0.0.1", port: 0)),
            let echoFD = try? UDPServer.bind(TCPAddress(host: "127.0.0.1", port: 0)),
            let lifxPort = TCPListener.boundPort(lifxFD), let echoPort = TCPListener.boundPort(echoFD),
            let bulb = await front.bulbs().first
        else {
            print("  LIFX: SKIPPED (no loopback UDP socket could be opened, or no bulb on the LAN)")
            return
        }
        let server = UDPServer(fd: lifxFD) { datagram, destination, sender in
            guard case .address(let address) = destination else { return front.respond(to: datagram, from: sender) }
            return front.respond(to: datagram, at: address, from: sender)
        }
        let task = Task { try await server.run() }
        Thread { udpEcho(echoFD) }.start()
        let get = LIFXPacket(source: 1, target: bulb.serial + [0, 0], sequence: 0, type: 101).bytes
        let rounds = baseline.rounds
        let (echo, lifx) = await onThread {
            alternate("echo", "lifx") { which in
                udpRoundTrips(port: which == "lifx" ? lifxPort : echoPort, datagram: get, window: 8, rounds: rounds)
            }
        }
        report("LIFX Light.Get round trips, 8 in flight (vs UDP echo; target ≥ 0.30)", lifx, baseline: echo)
        task.cancel()
        _ = await task.result
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
