import Foundation
import LumenLIFX
import LumenTestSupport
import Testing

/// A real daemon's LIFX bulbs, each at its own loopback address as bulbs on a LAN have theirs: a client that knows
/// one bulb's address talks to that bulb alone, over a connected socket too, and a broadcast reaches them all.
@Suite("LIFX bulbs at their own addresses", .serialized, .timeLimit(.minutes(1)))
struct LIFXAddressTests {
    /// Two bulbs that take the addresses from `--lifx` on, one the fixture gives an address of its own, and a Hue
    /// light that is not on the LAN.
    static let home = """
        {"schema": 1, "id": "flat", "name": "Flat", "seed": 1, "rooms": [
          {"id": "den", "name": "Den", "lights": [
            {"id": "den.one", "name": "One", "kind": "color", "manufacturer": "LIFX"},
            {"id": "den.hue", "name": "Hue", "kind": "color", "manufacturer": "Signify"},
            {"id": "den.own", "name": "Own", "kind": "color", "manufacturer": "LIFX", "lifx": {"address": "127.0.0.77"}},
            {"id": "den.two", "name": "Two", "kind": "color", "manufacturer": "LIFX"}
          ]}
        ]}
        """

    /// A client's UDP socket on 127.0.0.1, connected to `connectedTo` when given (it then hears only that
    /// address), allowed to broadcast.
    final class Client: Sendable {
        let fd: Int32

        init(connectedTo peer: (String, UInt16)? = nil) throws {
            fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            guard fd >= 0 else { throw POSIXError(.EMFILE) }
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, socklen_t(MemoryLayout<Int32>.size))
            var limit = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            if let (host, port) = peer {
                var address = Self.address(host, port)
                let connected = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                guard connected == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
            }
        }

        deinit { close(fd) }

        static func address(_ host: String, _ port: UInt16) -> sockaddr_in {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            inet_pton(AF_INET, host, &address.sin_addr)
            return address
        }

        func send(_ packet: LIFXPacket) {
            let bytes = packet.bytes
            _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
        }

        func send(_ packet: LIFXPacket, to host: String, port: UInt16) {
            var address = Self.address(host, port)
            let bytes = packet.bytes
            _ = bytes.withUnsafeBytes { bytes in
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(fd, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
        }

        /// The next packet and the address it came from, or `nil` after the receive timeout.
        func receive() -> (packet: LIFXPacket, from: String)? {
            var buffer = [UInt8](repeating: 0, count: 1_500)
            var sender = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let count = buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &sender) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(fd, bytes.baseAddress, bytes.count, 0, $0, &length)
                    }
                }
            }
            guard count > 0, let packet = try? LIFXPacket(bytes: Array(buffer[0..<count])) else { return nil }
            var text = [CChar](repeating: 0, count: 16)
            inet_ntop(AF_INET, &sender.sin_addr, &text, 16)
            return (packet, String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    /// The label a `StateLabel` carries.
    static func label(_ packet: LIFXPacket) -> String {
        String(decoding: packet.payload.prefix(32).prefix { $0 != 0 }, as: UTF8.self)
    }

    /// A daemon serving the home's bulbs from 127.0.0.10 on, and the one port they share.
    static func start() async throws -> (DaemonProcess, UInt16) {
        let directory = TemporaryDirectory()
        let fixture = directory.file("flat.json")
        try home.write(toFile: fixture, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            arguments: ["--lifx", "127.0.0.10:0", "--fixture", fixture], directory: directory)
        _ = try #require(await daemon.waitUntilReady(), "no READY=1: \(daemon.stderr)")
        let port = try #require(
            daemon.stderr.range(of: #"udp port [0-9]+"#, options: .regularExpression).flatMap {
                UInt16(daemon.stderr[$0].dropFirst(9))
            }, "no LIFX port in \(daemon.stderr)")
        return (daemon, port)
    }

    @Test func eachBulbAnswersItsLabelFromItsOwnAddressOverAConnectedSocket() async throws {
        let (daemon, port) = try await Self.start()
        defer { daemon.signal(SIGTERM) }
        #expect(daemon.stderr.contains("One at 127.0.0.10, Own at 127.0.0.77, Two at 127.0.0.11"), "\(daemon.stderr)")
        for (address, name) in [("127.0.0.10", "One"), ("127.0.0.11", "Two"), ("127.0.0.77", "Own")] {
            let client = try Client(connectedTo: (address, port))
            // A target of zeros, as a client that knows only the address (Home Assistant adding a bulb by IP).
            client.send(LIFXPacket(source: 42, sequence: 1, type: 23))
            let answer = await offload { client.receive() }
            #expect(answer?.packet.type == 25 && answer.map { Self.label($0.packet) } == name, "at \(address)")
        }
    }

    @Test func aDatagramToOneBulbsAddressIsAnsweredByThatBulbAloneAndABroadcastByEvery() async throws {
        let (daemon, port) = try await Self.start()
        defer { daemon.signal(SIGTERM) }
        let client = try Client()
        // Untagged with a target of zeros, to one bulb: the others on the LAN never see it. The echo after it is
        // answered after every bulb that would answer the first has.
        client.send(LIFXPacket(source: 7, sequence: 1, type: 23), to: "127.0.0.11", port: port)
        client.send(LIFXPacket(source: 7, sequence: 2, type: 58, payload: [1]), to: "127.0.0.11", port: port)
        let toOne = await offload { (0..<2).compactMap { _ in client.receive() } }
        #expect(toOne.map(\.packet.type) == [25, 59] && toOne.allSatisfy { $0.from == "127.0.0.11" })
        #expect(toOne.first.map { Self.label($0.packet) } == "Two")
        // To an address of this host where no bulb is: nothing, as on a LAN.
        client.send(LIFXPacket(source: 7, sequence: 3, type: 23), to: "127.0.0.12", port: port)
        // A broadcast: every bulb answers, each from its own address.
        client.send(LIFXPacket(tagged: true, source: 7, sequence: 4, type: 2), to: "127.255.255.255", port: port)
        let found = await offload { (0..<3).compactMap { _ in client.receive() } }
        #expect(found.allSatisfy { $0.packet.type == 3 && $0.packet.sequence == 4 }, "\(found.map(\.packet.type))")
        #expect(Set(found.map(\.from)) == ["127.0.0.10", "127.0.0.11", "127.0.0.77"])
    }

    @Test func aBulbWhoseAddressIsNotThisMachinesStopsTheStartWithWhatToDo() async throws {
        let directory = TemporaryDirectory()
        let fixture = directory.file("flat.json")
        try Self.home.replacingOccurrences(of: "127.0.0.77", with: "198.51.100.7")
            .write(toFile: fixture, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            arguments: ["--lifx", "127.0.0.10:0", "--fixture", fixture], directory: directory)
        #expect(await daemon.waitForExit() == 1)
        #expect(daemon.stderr.contains("'den.own' answers at 198.51.100.7, which is not an address of this machine"))
    }
}
