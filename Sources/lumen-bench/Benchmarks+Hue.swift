import CGnuTLS
import Foundation
import LumenHue
import LumenModel
import LumenProtocol
import LumenScopes
import LumenServer
import LumenService
import LumenSimulation

extension Benchmarks {
    /// The Hue bridge: `GET /api/<user>/lights/1` from 8 keep-alive clients, against the same HTTP listener
    /// answering the same bytes as a static response (no home, no task), in turn.
    static func benchmarkHue(_ baseline: Baseline) async {
        guard let (bridge, user, (hueFD, huePort), (staticFD, staticPort)) = await pairedBridge("Hue bridge") else {
            return
        }
        let quiet = Logger(level: .critical, handler: MemoryLogHandler())
        let path = "/api/\(user)/lights/1"
        let hue = HTTPServer(listeners: [HTTPListener(fd: hueFD)], logger: quiet) { request in
            bridge.respond(to: request) ?? .now(.text("no\n", status: 404))
        }
        let hueTask = Task { try await hue.run() }
        // The static listener answers with exactly what the bridge answers.
        let body = await onThread { HTTPLoadClient(port: huePort).get(path) }
        let fixed = HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: body)
        let plain = HTTPServer(listeners: [HTTPListener(fd: staticFD)], logger: quiet) { _ in .now(fixed) }
        let plainTask = Task { try await plain.run() }
        let rounds = baseline.rounds / 8
        let (fixedRun, hueRun) = await onThread {
            alternate("static", "hue") { which in
                httpGets(clients: 8, rounds: rounds, port: which == "hue" ? huePort : staticPort, path: path)
            }
        }
        report(
            "Hue GET /api/<user>/lights/1, 8 clients (vs a static answer; target ≥ 0.60)", hueRun, baseline: fixedRun)
        hueTask.cancel()
        plainTask.cancel()
        _ = await (hueTask.result, plainTask.result)
    }

    /// A Hue bridge over the demo home with one user paired, and two loopback listeners with their ports: one
    /// for the bridge, one for the static answer it is measured against; `nil`, said as `what` SKIPPED, when a
    /// listener could not be opened.
    static func pairedBridge(_ what: String) async
        -> (bridge: HueBridge, user: String, hue: (fd: Int32, port: UInt16), plain: (fd: Int32, port: UInt16))?
    {
        let bridge = HueBridge(scopeContext: ScopeContext(home: Home(fixture: .demoHome(), clock: .real)))
        let user = "bench-lumen"
        guard (try? await bridge.pairUser(user, deviceType: "bench#lumen")) != nil,
            let hueFD = try? TCPListener.listen(on: TCPAddress(host: "127.0.0.1", port: 0)),
            let staticFD = try? TCPListener.listen(on: TCPAddress(host: "127.0.0.1", port: 0)),
            let huePort = TCPListener.boundPort(hueFD), let staticPort = TCPListener.boundPort(staticFD)
        else {
            print("  \(what): SKIPPED (no loopback TCP listener could be opened)")
            return nil
        }
        return (bridge, user, (hueFD, huePort), (staticFD, staticPort))
    }

    /// `rounds` GETs of `path` on each of `clients` keep-alive connections, each on its own thread.
    static func httpGets(
        clients: Int, rounds: Int, port: UInt16, path: String, headers: String = "", tls: Bool = false
    ) -> Measurement {
        let ready = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        let ended = DispatchGroup()
        for _ in 0..<clients {
            ready.enter()
            ended.enter()
            Thread {
                let client = HTTPLoadClient(port: port, tls: tls)
                ready.leave()
                start.wait()
                for _ in 0..<rounds { _ = client.get(path, headers: headers) }
                ended.leave()
            }.start()
        }
        ready.wait()
        let cpu = processCPU()
        let began = ContinuousClock.now
        for _ in 0..<clients { start.signal() }
        ended.wait()
        return Measurement(
            operations: clients * rounds, seconds: seconds(ContinuousClock.now - began), cpu: processCPU() - cpu)
    }

    /// Runs `body` on a thread of its own, so that its blocking calls hold no thread of the task pool.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }
}

/// A blocking HTTP/1.1 client on one keep-alive connection, plain or inside TLS: just enough to send GETs and
/// read the answers.
final class HTTPLoadClient {
    private let fd: Int32
    private var buffer: [UInt8] = []
    /// The TLS session and its (empty: the server is not checked) credentials, over HTTPS.
    private var tls: (session: gnutls_session_t, credentials: gnutls_certificate_credentials_t)?

    /// A client of 127.0.0.1:`port`, handshaking first when `tls`.
    init(port: UInt16, tls: Bool = false) {
        fd = Self.connect(port: port)
        guard tls else { return }
        var session: gnutls_session_t?
        var credentials: gnutls_certificate_credentials_t?
        guard gnutls_certificate_allocate_credentials(&credentials) == GNUTLS_E_SUCCESS, let credentials,
            gnutls_init(&session, UInt32(GNUTLS_CLIENT)) == GNUTLS_E_SUCCESS, let session
        else { preconditionFailure("cannot set up a TLS client") }
        gnutls_set_default_priority(session)
        gnutls_credentials_set(session, GNUTLS_CRD_CERTIFICATE, UnsafeMutableRawPointer(credentials))
        gnutls_transport_set_int2(session, fd, fd)
        var code: Int32
        repeat { code = gnutls_handshake(session) } while code < 0 && gnutls_error_is_fatal(code) == 0
        precondition(code == GNUTLS_E_SUCCESS, "TLS handshake: \(String(cString: gnutls_strerror(code)))")
        self.tls = (session, credentials)
    }

    /// A TCP socket connected to 127.0.0.1:`port`, with Nagle's delay off.
    static func connect(port: UInt16) -> Int32 {
        let address = TCPAddress(host: "127.0.0.1", port: port)
        guard let fd = try? address.connectedSocket(type: Int32(SOCK_STREAM.rawValue)) else {
            preconditionFailure("cannot connect to \(address)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    deinit {
        if let tls {
            gnutls_deinit(tls.session)
            gnutls_certificate_free_credentials(tls.credentials)
        }
        close(fd)
    }

    /// Sends a GET of `path`, with `headers` (each line ending in CRLF) after `Host`, and returns the answer's
    /// body.
    func get(_ path: String, headers: String = "") -> [UInt8] {
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)\r\n".utf8)
        _ = request.withUnsafeBytes { bytes in
            if let tls {
                gnutls_record_send(tls.session, bytes.baseAddress, bytes.count)
            } else {
                send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            }
        }
        let separator: [UInt8] = [13, 10, 13, 10]
        var headerEnd: Int?
        while headerEnd == nil {
            headerEnd = buffer.firstRange(of: separator)?.upperBound
            if headerEnd == nil { guard fill() else { return [] } }
        }
        let head = String(decoding: buffer[..<headerEnd!], as: UTF8.self).lowercased()
        let length =
            head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        while buffer.count < headerEnd! + length { guard fill() else { return [] } }
        let body = Array(buffer[headerEnd!..<(headerEnd! + length)])
        buffer.removeFirst(headerEnd! + length)
        return body
    }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let count = chunk.withUnsafeMutableBytes { bytes in
            if let tls {
                gnutls_record_recv(tls.session, bytes.baseAddress, bytes.count)
            } else {
                recv(fd, bytes.baseAddress, bytes.count, 0)
            }
        }
        guard count > 0 else { return false }
        buffer += chunk[0..<count]
        return true
    }
}
