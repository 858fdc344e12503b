import Foundation
import LumenProtocol
import LumenService
import LumenTestSupport
import Testing

@testable import LumenServer

#if canImport(Glibc)
    import Glibc
#endif

/// The HTTP listener speaking TLS: the same answers as over plain HTTP, read by another TLS stack (Python's), and
/// the same bounds on clients that do not speak it: plain HTTP, a handshake that stalls, bytes that are not TLS.
@Suite("HTTPS listener", .serialized, .timeLimit(.minutes(1)))
struct HTTPSServerTests {
    static let bridgeID = "001788fffe123456"

    /// A server with one HTTPS listener on a free loopback port, presenting a new self-signed certificate whose
    /// PEM is written to `directory`; returns its port and its task.
    func start(limits: HTTPLimits = HTTPLimits(), directory: TemporaryDirectory) throws -> (
        UInt16, Task<Void, any Error>
    ) {
        let (certificate, key) = try TLSCredentials.selfSigned(commonName: Self.bridgeID)
        try Data(certificate).write(to: URL(fileURLWithPath: directory.file("certificate.pem")))
        let credentials = try TLSCredentials(certificatePEM: certificate, keyPEM: key)
        let fd = try TCPListener.listen(on: TCPAddress(host: "127.0.0.1", port: 0))
        let port = try #require(TCPListener.boundPort(fd))
        let server = HTTPServer(
            listeners: [HTTPListener(fd: fd, tls: credentials)], limits: limits,
            logger: Logger(level: .error, handler: MemoryLogHandler())
        ) { request in
            .now(.text("\(request.method) \(request.path) secure=\(request.isSecure)\n", status: 200))
        }
        return (port, Task { try await server.run() })
    }

    @Test func answersOverTLSWithTheCertificateItWasGiven() async throws {
        let directory = TemporaryDirectory()
        let (port, task) = try start(directory: directory)
        defer { task.cancel() }
        let exchange = try await TLSTestClient.exchange(
            port: port, "GET /api/config HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
            trusting: directory.file("certificate.pem"))
        #expect(exchange.failure == nil)
        #expect(exchange.commonName == Self.bridgeID)
        #expect(exchange.response.hasPrefix("HTTP/1.1 200"))
        #expect(exchange.response.hasSuffix("GET /api/config secure=true\n"))
    }

    @Test func keepsAConnectionForMoreThanOneRequest() async throws {
        let directory = TemporaryDirectory()
        let (port, task) = try start(directory: directory)
        defer { task.cancel() }
        let request = "GET /one HTTP/1.1\r\nHost: x\r\n\r\nGET /two HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let exchange = try await TLSTestClient.exchange(port: port, request)
        #expect(exchange.failure == nil)
        #expect(
            exchange.response.contains("GET /one secure=true") && exchange.response.hasSuffix("GET /two secure=true\n"))
    }

    @Test func plainHTTPToTheTLSPortIsAnswered400AndClosed() async throws {
        let directory = TemporaryDirectory()
        let (port, task) = try start(directory: directory)
        defer { task.cancel() }
        let response = try await HTTPTestClient.exchange(port, "GET /api/config HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(response.hasPrefix("HTTP/1.1 400"))
        #expect(response.contains("Connection: close") && response.hasSuffix("ask for https://, not http://\n"))
        // It goes on serving TLS.
        let exchange = try await TLSTestClient.exchange(
            port: port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(exchange.response.hasPrefix("HTTP/1.1 200"))
    }

    @Test func bytesThatAreNotTLSAreClosedAtOnce() async throws {
        let directory = TemporaryDirectory()
        let (port, task) = try start(directory: directory)
        defer { task.cancel() }
        let started = ContinuousClock.now
        // A record of application data before any handshake.
        let response = try await HTTPTestClient.exchange(port, "\u{17}\u{03}\u{03}\u{00}\u{05}hello\r\n\r\n")
        #expect(response.isEmpty)
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func aStalledHandshakeIsClosedAtTheRequestDeadline() async throws {
        let directory = TemporaryDirectory()
        var limits = HTTPLimits()
        limits.requestSeconds = 1
        let (port, task) = try start(limits: limits, directory: directory)
        defer { task.cancel() }
        let (silentEnd, partialEnd) = try await offload { () throws -> (Duration, Duration) in
            // One client says nothing; another begins a hello and stops.
            let silent = try HTTPTestClient.connected(port)
            let partial = try HTTPTestClient.connected(port)
            defer {
                close(silent)
                close(partial)
            }
            HTTPTestClient.send(partial, "\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}\u{00}")
            let started = ContinuousClock.now
            while HTTPTestClient.receive(silent) != nil {}
            let silentEnd = ContinuousClock.now - started
            while HTTPTestClient.receive(partial) != nil {}
            return (silentEnd, ContinuousClock.now - started)
        }
        #expect(silentEnd >= .milliseconds(500) && silentEnd < .seconds(5))
        #expect(partialEnd < .seconds(5))
        // The server is still there for a client that finishes its handshake.
        let exchange = try await TLSTestClient.exchange(
            port: port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(exchange.response.hasPrefix("HTTP/1.1 200"))
    }

    @Test func aRequestThatDoesNotArriveWholeInsideTLSIsAnswered408() async throws {
        let directory = TemporaryDirectory()
        var limits = HTTPLimits()
        limits.requestSeconds = 1
        let (port, task) = try start(limits: limits, directory: directory)
        defer { task.cancel() }
        let started = ContinuousClock.now
        let exchange = try await TLSTestClient.exchange(port: port, "GET / HTTP/1.1\r\nHost: x\r\n")
        #expect(exchange.failure == nil)
        #expect(exchange.response.hasPrefix("HTTP/1.1 408"), "\(exchange.response)")
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    /// Handshakes left half done make room for a new client at the limit of all connections, and at the limit
    /// for one address (else they would shut every other client there out).
    @Test(arguments: [false, true])
    func handshakesThatStallMakeRoomForANewClientAtALimit(perAddress: Bool) async throws {
        let directory = TemporaryDirectory()
        var limits = HTTPLimits()
        if perAddress { limits.connectionsPerAddress = 8 } else { limits.connections = 8 }
        let (port, task) = try start(limits: limits, directory: directory)
        defer { task.cancel() }
        let stalled = try (0..<8).map { _ in try HTTPTestClient.connected(port) }
        defer { stalled.forEach { close($0) } }
        for fd in stalled.prefix(4) { HTTPTestClient.send(fd, "\u{16}\u{03}\u{01}") }
        let exchange = try await TLSTestClient.exchange(
            port: port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(exchange.failure == nil && exchange.response.hasPrefix("HTTP/1.1 200"), "\(exchange)")
    }

    @Test func credentialsRefuseAKeyThatIsNotTheCertificatesAndTextThatIsNotPEM() throws {
        let (certificate, _) = try TLSCredentials.selfSigned(commonName: Self.bridgeID)
        let (_, otherKey) = try TLSCredentials.selfSigned(commonName: Self.bridgeID)
        #expect(throws: TLSError("the private key is not the certificate's")) {
            try TLSCredentials(certificatePEM: certificate, keyPEM: otherKey)
        }
        let error = #expect(throws: TLSError.self) {
            try TLSCredentials(certificatePEM: Array("not a certificate".utf8), keyPEM: otherKey)
        }
        #expect(error?.description.hasPrefix("cannot read the certificate") == true)
        #expect(try TLSCredentials.commonName(ofCertificatePEM: certificate) == Self.bridgeID)
    }
}
