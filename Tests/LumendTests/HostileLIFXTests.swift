import Foundation
import LumenLIFX
import LumenModel
import LumenSimulation
import LumenTestSupport
import Synchronization
import Testing

extension HostileSuites {
    /// The LIFX LAN of a real daemon with 201 bulbs under floods of broadcasts (tagged `SetColor` asking for an
    /// acknowledgement and the state, tagged `Light.Get`, to loopback's broadcast address) from several loopback
    /// addresses, while a good client polls one bulb at its address with `GetColor`: the daemon's memory stays within 64 MB of its start, every poll is answered, and
    /// under `make hostile` (`LUMEN_HOSTILE_STRICT=1`) the good client's p99 stays within 3× its quiet figure.
    @Suite("Hostile LIFX clients against a real daemon", .serialized, .timeLimit(.minutes(3)))
    struct HostileLIFXTests {
        /// How many times the good client polls its bulb, before the flood and during it.
        static let polls = 300
        static let floodBulbs = 200

        /// 200 bulbs as the LIFX family has them (LIFX-over-Thread latency, 20 messages a second, the rest dropped),
        /// and the good client's bulb. That one answers after a fixed 10 ms and takes every message: a flood of
        /// broadcasts exhausts any real bulb's 20 messages a second, as it would on a real LAN, so with the family's
        /// limit the good client would measure the simulated bulb dropping it, not lumend.
        static var homeJSON: String {
            let flood = (0..<floodBulbs).map { index in
                #"{"id": "hall.b\#(index)", "name": "B\#(index)", "kind": "color", "manufacturer": "LIFX"}"#
            }
            let good =
                #"{"id": "den.good", "name": "Good", "kind": "color", "manufacturer": "LIFX", "#
                + #""latency": "instant", "rateLimitPerSecond": 10000}"#
            return """
                {"schema": 1, "id": "lan", "name": "LAN", "seed": 3, "defaults": {"latency": "lifx-thread"},
                 "rooms": [{"id": "hall", "name": "Hall", "lights": [\(flood.joined(separator: ","))]},
                           {"id": "den", "name": "Den", "lights": [\(good)]}]}
                """
        }

        /// A UDP socket bound to `source` (a loopback address), port 0, that sends to `destination` (a bulb's
        /// address, or loopback's broadcast address) at the daemon's LIFX port.
        final class Socket: Sendable {
            let fd: Int32
            let daemon: sockaddr_in

            init(source: String, destination: String, port: UInt16) throws {
                let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
                guard fd >= 0 else { throw POSIXError(.EMFILE) }
                self.fd = fd
                var one: Int32 = 1
                setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, socklen_t(MemoryLayout<Int32>.size))
                var local = sockaddr_in()
                local.sin_family = sa_family_t(AF_INET)
                inet_pton(AF_INET, source, &local.sin_addr)
                let bound = withUnsafePointer(to: &local) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                var remote = sockaddr_in()
                remote.sin_family = sa_family_t(AF_INET)
                remote.sin_port = port.bigEndian
                inet_pton(AF_INET, destination, &remote.sin_addr)
                daemon = remote
                // Not closed here: the client is whole, so its deinit runs as the initialiser throws and closes it.
                guard bound == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
            }

            deinit { close(fd) }

            /// The port the socket is bound to.
            var port: UInt16 {
                var local = sockaddr_in()
                var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                _ = withUnsafeMutablePointer(to: &local) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
                }
                return UInt16(bigEndian: local.sin_port)
            }

            func send(_ datagram: [UInt8]) {
                var remote = daemon
                _ = datagram.withUnsafeBytes { bytes in
                    withUnsafePointer(to: &remote) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            sendto(fd, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }
                }
            }

            /// The next datagram, or `nil` after `timeout`.
            func receive(timeout: timeval) -> [UInt8]? {
                var limit = timeout
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                var buffer = [UInt8](repeating: 0, count: 1_500)
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                return count > 0 ? Array(buffer[0..<count]) : nil
            }
        }

        /// `count` timed `GetColor`s to the bulb `serial`, one at a time: microseconds, sorted, and how many were not
        /// answered within a second (each counted as a second).
        static func latencies(_ socket: Socket, serial: [UInt8], count: Int) -> (samples: [Double], lost: Int) {
            var samples: [Double] = []
            var lost = 0
            for index in 0..<count {
                let sequence = UInt8(index % 256)
                let get = LIFXPacket(source: 0x600D, target: serial + [0, 0], sequence: sequence, type: 101)
                let start = ContinuousClock.now
                socket.send(get.bytes)
                var answered = false
                while ContinuousClock.now - start < .seconds(1) {
                    guard let reply = socket.receive(timeout: timeval(tv_sec: 1, tv_usec: 0)) else { break }
                    // A late answer to an earlier poll is not this one's.
                    if let packet = try? LIFXPacket(bytes: reply), packet.type == 107, packet.sequence == sequence {
                        answered = true
                        break
                    }
                }
                let elapsed = ContinuousClock.now - start
                if !answered { lost += 1 }
                samples.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
            }
            return (samples.sorted(), lost)
        }

        /// How many datagrams the kernel dropped for want of room in the receive buffer of the UDP socket bound to
        /// `port` (`/proc/net/udp`'s last column), since the socket opened; `nil` when no socket has that port.
        /// IPv4 sockets only, and the first with that port: lumend's LIFX socket is one, on IPv4, and so is the
        /// good client's.
        static func kernelDrops(port: UInt16) -> Int? {
            let table = (try? String(contentsOfFile: "/proc/net/udp", encoding: .utf8)) ?? ""
            let suffix = String(format: ":%04X", port)
            for line in table.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                if fields.count > 12, fields[1].hasSuffix(suffix), let drops = fields.last.flatMap({ Int($0) }) {
                    return drops
                }
            }
            return nil
        }

        static func p99(_ sorted: [Double]) -> Double { sorted[Int(Double(sorted.count - 1) * 0.99)] }

        static func residentKiB(_ pid: Int32) -> Int {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
        }

        /// A tagged `SetColor` asking for an acknowledgement and the state.
        static let taggedSetColor: [UInt8] = {
            // Reserved byte, HSBK (red at full brightness, 3,500 K), duration 0.
            let payload: [UInt8] = [0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xAC, 0x0D, 0, 0, 0, 0]
            return LIFXPacket(
                tagged: true, source: 0xBAD, wantsReply: true, wantsAcknowledgement: true, sequence: 1, type: 102,
                payload: payload
            ).bytes
        }()
        /// A tagged `Light.Get`.
        static let taggedGet = LIFXPacket(tagged: true, source: 0xBAD, sequence: 2, type: 101).bytes

        /// Sends `datagram` from `source` at `perSecond` (in bursts of 50) until `going` stops or `limit` is sent;
        /// returns how many were sent.
        static func flood(
            _ datagram: [UInt8], from source: String, port: UInt16, perSecond: Int, limit: Int, going: Going
        )
            -> Int
        {
            guard let socket = try? Socket(source: source, destination: "127.255.255.255", port: port) else { return 0 }
            let start = ContinuousClock.now
            var sent = 0
            while going.isOn, sent < limit {
                for _ in 0..<50 { socket.send(datagram) }
                sent += 50
                // Paced by the clock, not by sleeping a fixed time: a burst late by the scheduler is caught up.
                let due = start + .microseconds(sent * 1_000_000 / perSecond)
                let wait = due - ContinuousClock.now
                if wait > .zero { usleep(UInt32(wait.components.attoseconds / 1_000_000_000_000)) }
            }
            return sent
        }

        final class Going: Sendable {
            private let value = Atomic<Bool>(true)
            var isOn: Bool { value.load(ordering: .relaxed) }
            func stop() { value.store(false, ordering: .relaxed) }
        }

        @Test func broadcastFloodsStayWithinTheBudgetAndAGoodClientIsAnswered() async throws {
            let directory = TemporaryDirectory()
            let fixture = directory.file("lan.json")
            try Self.homeJSON.write(toFile: fixture, atomically: true, encoding: .utf8)
            let daemon = try DaemonProcess(
                arguments: ["--lifx", "127.0.0.1:0", "--fixture", fixture], directory: directory)
            _ = try #require(await daemon.waitUntilReady(), "no READY=1: \(daemon.stderr)")
            let port = try #require(
                daemon.stderr.range(of: #"udp port [0-9]+"#, options: .regularExpression).flatMap {
                    UInt16(daemon.stderr[$0].dropFirst(9))
                }, "no LIFX port in \(daemon.stderr)")
            let serial = DeviceSerial.of(home: "lan", light: "den.good")
            // The hall's 200 bulbs take 127.0.0.1 to .200; the good client's, last in the home's order, .201.
            let good = try Socket(source: "127.0.0.1", destination: "127.0.0.201", port: port)

            _ = await offload { Self.latencies(good, serial: serial, count: 50) }  // warm up
            let quiet = await offload { Self.latencies(good, serial: serial, count: Self.polls) }
            let startKiB = Self.residentKiB(daemon.pid)

            // Floods from four addresses: two of tagged SetColor, two of tagged Light.Get, 2,500 a second each,
            // for at most 20 s.
            let going = Going()
            var floods: [Task<Int, Never>] = []
            for (index, datagram) in [Self.taggedSetColor, Self.taggedGet, Self.taggedSetColor, Self.taggedGet]
                .enumerated()
            {
                floods.append(
                    Task {
                        await offload {
                            Self.flood(
                                datagram, from: "127.0.5.\(1 + index)", port: port, perSecond: 2_500, limit: 50_000,
                                going: going)
                        }
                    })
            }
            let watching = Task {
                var peak = 0
                while going.isOn {
                    peak = max(peak, Self.residentKiB(daemon.pid))
                    try? await Task.sleep(for: .milliseconds(100))
                }
                return peak
            }
            // Let the floods take hold, then measure while they go on.
            try await Task.sleep(for: .seconds(3))
            let during = await offload { Self.latencies(good, serial: serial, count: Self.polls) }
            let kernelDropped = Self.kernelDrops(port: port)
            let clientDropped = Self.kernelDrops(port: good.port)
            try await Task.sleep(for: .seconds(2))
            going.stop()
            var sent = 0
            for flood in floods { sent += await flood.value }
            let peakKiB = max(await watching.value, Self.residentKiB(daemon.pid))

            daemon.signal(SIGTERM)
            _ = await daemon.waitForExit()
            func logged(_ pattern: String) -> String {
                daemon.stderr.range(of: "[0-9]+ " + pattern, options: .regularExpression)
                    .map { String(daemon.stderr[$0].prefix { $0.isNumber }) } ?? "no"
            }
            let dropped = logged("bulb answers beyond the answer budget")
            let broadcastsDropped = logged("broadcasts while too many were in progress")
            let waitedDropped = logged("while too many datagrams waited")
            print(
                "hostile LIFX: quiet p99 \(Int(Self.p99(quiet.samples))) µs, during \(Int(Self.p99(during.samples))) µs "
                    + "(\(quiet.lost) and \(during.lost) polls lost); resident \(startKiB) KiB at start, peak "
                    + "\(peakKiB) KiB; \(sent) broadcasts sent, \(broadcastsDropped) dropped whole, \(dropped) bulb "
                    + "answers dropped for the budget, \(waitedDropped) datagrams while too many waited, "
                    + "\(kernelDropped.map(String.init) ?? "unknown") dropped by the kernel for a full receive buffer "
                    + "(\(clientDropped.map(String.init) ?? "unknown") at the good client's)")
            #expect(quiet.lost == 0, "every poll of the good client's bulb is answered before the flood")
            if let sanitizer = runningSanitizer {
                // An instrumented daemon answers several times slower than the flood it is sent.
                print(
                    "SKIPPED: the LIFX flood's memory and loss bounds: \(sanitizer) slows lumend and has its own allocator"
                )
            } else {
                #expect(peakKiB - startKiB < 64 * 1_024, "memory within 64 MB of the start")
                // A flooded LAN drops some datagrams, the good client's among them, when the machine is busy with
                // more than the flood (the whole test run, a debug build); under `make hostile` none may be lost.
                let lossAllowed = ProcessInfo.processInfo.environment["LUMEN_HOSTILE_STRICT"] != nil ? 0 : 2
                #expect(during.lost * 100 <= lossAllowed * Self.polls, "polls lost during the flood: \(during.lost)")
            }
            #expect(dropped != "no", "the answers dropped for the budget are logged at stop: \(daemon.stderr)")
            if ProcessInfo.processInfo.environment["LUMEN_HOSTILE_STRICT"] != nil {
                #expect(
                    Self.p99(during.samples) <= 3 * Self.p99(quiet.samples),
                    "the good client's p99 within 3× its quiet figure")
            }
        }
    }
}
