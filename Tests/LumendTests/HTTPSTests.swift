import Foundation
import LumenTestSupport
import Testing

/// lumend serving HTTPS as a Hue bridge does: its own self-signed certificate, its subject the bridge ID, made
/// at first start and kept; a certificate of one's own; the HTTPS socket systemd passes; and the fields clients
/// read to tell a bridge that speaks API v2.
@Suite("lumend over HTTPS", .serialized, .timeLimit(.minutes(2)))
struct HTTPSTests {
    static func port(of scheme: String, in log: String) -> UInt16? {
        guard let range = log.range(of: "\(scheme)://127\\.0\\.0\\.1:[0-9]+/api", options: .regularExpression) else {
            return nil
        }
        return UInt16(log[range].dropFirst(scheme.count + 13).dropLast(4))
    }

    static func get(_ path: String) -> String {
        "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    }

    /// The body of a response, parsed as a JSON object.
    static func object(_ response: String) throws -> [String: Any] {
        let body = try #require(response.range(of: "\r\n\r\n").map { response[$0.upperBound...] })
        return try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
    }

    /// `1.56.0` as numbers, to compare.
    static func version(_ text: String) -> [Int] { text.split(separator: ".").map { Int($0) ?? 0 } }

    func start(_ arguments: [String], directory: TemporaryDirectory) async throws -> (DaemonProcess, UInt16) {
        let fixture = directory.file("home.json")
        if !FileManager.default.fileExists(atPath: fixture) {
            try TestFixtures.instantHome.write(toFile: fixture, atomically: true, encoding: .utf8)
        }
        let daemon = try DaemonProcess(
            arguments: ["--https", "127.0.0.1:0", "--fixture", fixture] + arguments, directory: directory)
        _ = try #require(await daemon.waitUntilReady(), "no READY=1: \(daemon.stderr)")
        let port = try #require(Self.port(of: "https", in: daemon.stderr), "no HTTPS port in \(daemon.stderr)")
        return (daemon, port)
    }

    @Test func servesTheBridgeWithACertificateNamingItKeptAcrossRestarts() async throws {
        let directory = TemporaryDirectory()
        let (daemon, port) = try await start([], directory: directory)
        let certificateFile = "\(daemon.stateDirectory)/tls-certificate.pem"
        let keyFile = "\(daemon.stateDirectory)/tls-key.pem"
        let config = try await TLSTestClient.exchange(port: port, Self.get("/api/config"), trusting: certificateFile)
        #expect(config.failure == nil)
        #expect(config.response.hasPrefix("HTTP/1.1 200"), "\(config.response)")
        let fields = try Self.object(config.response)
        let bridgeID = try #require(fields["bridgeid"] as? String)
        #expect(bridgeID.count == 16 && bridgeID.hasPrefix("001788FFFE"))
        #expect(
            Self.version(try #require(fields["apiversion"] as? String)).lexicographicallyPrecedes([1, 48]) == false)
        // A bridge's certificate names it, in lower case.
        #expect(config.commonName == bridgeID.lowercased())
        let key = try FileManager.default.attributesOfItem(atPath: keyFile)
        #expect((key[.posixPermissions] as? Int) == 0o600)
        let description = try await TLSTestClient.exchange(
            port: port, "GET /description.xml HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
        let serial = (bridgeID.prefix(6) + bridgeID.suffix(6)).lowercased()
        #expect(description.response.contains("<serialNumber>\(serial)</serialNumber>"), "\(description.response)")
        #expect(description.response.contains("<URLBase>https://127.0.0.1:\(port)/</URLBase>"))
        #expect(daemon.stderr.contains("made a self-signed TLS certificate"))
        #expect(!daemon.stderr.contains("can be read by its group or others"))
        let made = try Data(contentsOf: URL(fileURLWithPath: certificateFile))
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit() == 0)

        let (again, portAgain) = try await start([], directory: directory)
        defer { again.signal(SIGTERM) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: certificateFile)) == made)
        #expect(!again.stderr.contains("made a self-signed TLS certificate"), "\(again.stderr)")
        let later = try await TLSTestClient.exchange(
            port: portAgain, Self.get("/api/config"), trusting: certificateFile)
        #expect(later.commonName == bridgeID.lowercased() && later.response.hasPrefix("HTTP/1.1 200"))
    }

    @Test func theDashboardsPageOverHTTPSMayCallRPCAndAPlainPageMayNot() async throws {
        let directory = TemporaryDirectory()
        let (daemon, port) = try await start([], directory: directory)
        defer { daemon.signal(SIGTERM) }
        func hello(origin: String) async throws -> String {
            let body = #"{"jsonrpc":"2.0","id":1,"method":"hello"}"#
            return try await TLSTestClient.exchange(
                port: port,
                "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: \(origin)\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
            ).response
        }
        let own = try await hello(origin: "https://127.0.0.1:\(port)")
        #expect(own.hasPrefix("HTTP/1.1 200") && own.contains("Lumen-Session"), "\(own)")
        #expect(try await hello(origin: "http://127.0.0.1:\(port)").hasPrefix("HTTP/1.1 403"))
    }

    @Test func presentsTheCertificateItIsGivenAndRefusesAKeyThatIsNotItsOwn() async throws {
        let directory = TemporaryDirectory()
        // Certificates made by lumend itself, elsewhere: one pair to give, one key that is not its.
        for name in ["given", "other"] {
            let (maker, _) = try await start([], directory: TemporaryDirectory())
            for file in ["tls-certificate.pem", "tls-key.pem"] {
                try FileManager.default.copyItem(
                    atPath: "\(maker.stateDirectory)/\(file)", toPath: directory.file("\(name)-\(file)"))
            }
            maker.signal(SIGTERM)
            _ = await maker.waitForExit()
        }
        let given = directory.file("given-tls-certificate.pem")
        // A key others may read is used, with a warning as sshd gives.
        #expect(chmod(directory.file("given-tls-key.pem"), 0o640) == 0)
        let (daemon, port) = try await start(
            ["--tls-certificate", given, "--tls-key", directory.file("given-tls-key.pem")], directory: directory)
        defer { daemon.signal(SIGTERM) }
        let exchange = try await TLSTestClient.exchange(port: port, Self.get("/api/config"), trusting: given)
        #expect(exchange.failure == nil && exchange.response.hasPrefix("HTTP/1.1 200"))
        #expect(!FileManager.default.fileExists(atPath: "\(daemon.stateDirectory)/tls-certificate.pem"))
        #expect(
            daemon.stderr.contains(
                "the TLS key \(directory.file("given-tls-key.pem")) can be read by its group or others (mode 640)"),
            "\(daemon.stderr)")

        let mismatched = try DaemonProcess(
            arguments: [
                "--https", "127.0.0.1:0", "--tls-certificate", given, "--tls-key",
                directory.file("other-tls-key.pem"),
            ], directory: TemporaryDirectory())
        #expect(await mismatched.waitForExit() == 1)
        #expect(mismatched.stderr.contains("the private key is not the certificate's"), "\(mismatched.stderr)")
        let missing = try DaemonProcess(
            arguments: ["--https", "127.0.0.1:0", "--tls-certificate", given, "--tls-key", directory.file("none")],
            directory: TemporaryDirectory())
        #expect(await missing.waitForExit() == 1)
        #expect(missing.stderr.contains("does not exist"), "\(missing.stderr)")
    }

    @Test func servesHTTPAndHTTPSOnEverySocketSystemdPassesTellingThemByName() async throws {
        let directory = TemporaryDirectory()
        let socket = directory.file("activated.sock")
        let (httpPort, httpsPort, secondPort) = (try freeTCPPort(), try freeTCPPort(), try freeTCPPort())
        let daemon = try DaemonProcess(
            arguments: ["--state-dir", directory.file("state")], directory: directory,
            prefix: [
                "-l", socket, "-l", "127.0.0.1:\(httpPort)", "-l", "127.0.0.1:\(httpsPort)",
                "-l", "127.0.0.1:\(secondPort)", "--fdname=lumend.socket:lumend-http.socket:https:https",
                "-E", "NOTIFY_SOCKET", "-E", "SWIFT_BACKTRACE", "-E", "TSAN_OPTIONS", "-E", "ASAN_OPTIONS",
                DaemonProcess.builtBinary("lumend"),
            ],
            executable: "/usr/bin/systemd-socket-activate", setPaths: false)
        defer { daemon.signal(SIGTERM) }
        // systemd-socket-activate starts lumend on the first connection, as systemd does. Its socket file
        // appears at bind(2), before listen(2), and a connect between the two is refused: wait for the line it
        // writes once the last of the four listens.
        #expect(
            await daemon.waitForStderr(containing: "Listening on 127.0.0.1:\(secondPort) as "),
            "systemd-socket-activate never listened; stderr: \(daemon.stderr)")
        let connected = try LineClient(path: socket)
        _ = try #require(await daemon.waitUntilReady(), "no READY=1; stderr: \(daemon.stderr)")
        #expect(try await connected.result("hello")["server"] == "lumend")
        let secure = try await TLSTestClient.exchange(port: httpsPort, Self.get("/api/config"))
        #expect(secure.failure == nil && secure.response.hasPrefix("HTTP/1.1 200"), "\(secure) \(daemon.stderr)")
        // A unit with a second ListenStream= for HTTPS has both served.
        let second = try await TLSTestClient.exchange(port: secondPort, Self.get("/api/config"))
        #expect(second.failure == nil && second.response.hasPrefix("HTTP/1.1 200"), "\(second) \(daemon.stderr)")
        let plain = try await offload { try plainExchange(port: httpPort, Self.get("/api/config")) }
        #expect(plain.hasPrefix("HTTP/1.1 200"))
    }
}

/// A port no one listens on now, from the kernel's free ones.
func freeTCPPort() throws -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard bound else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    return UInt16(bigEndian: address.sin_port)
}

/// Sends `request` over plain TCP and reads until the server closes.
func plainExchange(port: UInt16, _ request: String) throws -> String {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var limit = timeval(tv_sec: 30, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    let connected = withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
    guard connected else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    _ = Array(request.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { break }
        received += buffer[0..<count]
    }
    return String(decoding: received, as: UTF8.self)
}
