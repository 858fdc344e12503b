import CLinux
import Foundation
import LumenHue
import LumenModel
import LumenProtocol
import LumenScopes
import LumenServer
import LumenService
import LumenSimulation

extension Benchmarks {
    /// The Hue bridge's API v2: `GET /clip/v2/resource/light/{id}` from 8 keep-alive clients, against the same
    /// HTTP listener answering the same bytes statically, in turn. v2 is served over HTTPS only; here both
    /// listeners are plain and the bridge's requests are marked as having come over TLS, since TLS would cost
    /// both sides alike and this measures the bridge's path.
    static func benchmarkHueV2(_ baseline: Baseline) async {
        guard let (bridge, user, (hueFD, huePort), (staticFD, staticPort)) = await pairedBridge("Hue bridge v2") else {
            return
        }
        let quiet = Logger(level: .critical, handler: MemoryLogHandler())
        let hue = HTTPServer(listeners: [HTTPListener(fd: hueFD)], logger: quiet) { request in
            var request = request
            request.isSecure = true
            return bridge.respond(to: request) ?? .now(.text("no\n", status: 404))
        }
        let hueTask = Task { try await hue.run() }
        let headers = "hue-application-key: \(user)\r\n"
        let list = await onThread { HTTPLoadClient(port: huePort).get("/clip/v2/resource/light", headers: headers) }
        guard let id = (try? JSONParser.parse(list))?["data"]?.arrayValue?.first?["id"]?.stringValue else {
            print("  Hue bridge v2: the bridge listed no light: \(String(decoding: list.prefix(200), as: UTF8.self))")
            hueTask.cancel()
            return
        }
        let path = "/clip/v2/resource/light/\(id)"
        let body = await onThread { HTTPLoadClient(port: huePort).get(path, headers: headers) }
        let fixed = HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: body)
        let plain = HTTPServer(listeners: [HTTPListener(fd: staticFD)], logger: quiet) { _ in .now(fixed) }
        let plainTask = Task { try await plain.run() }
        let rounds = baseline.rounds / 8
        let (fixedRun, hueRun) = await onThread {
            alternate("static", "hue-v2") { which in
                httpGets(
                    clients: 8, rounds: rounds, port: which == "hue-v2" ? huePort : staticPort, path: path,
                    headers: headers)
            }
        }
        report("Hue v2 GET /clip/v2/resource/light/{id}, 8 clients (vs a static answer)", hueRun, baseline: fixedRun)
        hueTask.cancel()
        plainTask.cancel()
        _ = await (hueTask.result, plainTask.result)
        await benchmarkHueV2OverTLS(baseline, bridge: bridge, path: path, headers: headers, answer: fixed)
    }

    /// The same GET over HTTPS, as clients send it: the bridge's listener against one answering the same bytes
    /// statically, both over TLS with one self-signed certificate, from 8 keep-alive clients each handshaking once.
    static func benchmarkHueV2OverTLS(
        _ baseline: Baseline, bridge: HueBridge, path: String, headers: String, answer: HTTPResponse
    ) async {
        guard let (certificate, key) = try? TLSCredentials.selfSigned(commonName: "001788fffe000000"),
            let credentials = try? TLSCredentials(certificatePEM: certificate, keyPEM: key),
            let hueFD = try? TCPListener.listen(on: TCPAddress(host: "127.0.0.1", port: 0)),
            let staticFD = try? TCPListener.listen(on: TCPAddress(host: "127.0.0.1", port: 0)),
            let huePort = TCPListener.boundPort(hueFD), let staticPort = TCPListener.boundPort(staticFD)
        else {
            print("  Hue bridge v2 over HTTPS: SKIPPED (no TLS listener could be opened)")
            return
        }
        let quiet = Logger(level: .critical, handler: MemoryLogHandler())
        let hue = HTTPServer(listeners: [HTTPListener(fd: hueFD, tls: credentials)], logger: quiet) { request in
            bridge.respond(to: request) ?? .now(.text("no\n", status: 404))
        }
        let plain = HTTPServer(listeners: [HTTPListener(fd: staticFD, tls: credentials)], logger: quiet) { _ in
            .now(answer)
        }
        let (hueTask, plainTask) = (Task { try await hue.run() }, Task { try await plain.run() })
        let rounds = baseline.rounds / 8
        let (fixedRun, hueRun) = await onThread {
            alternate("static", "hue-v2") { which in
                httpGets(
                    clients: 8, rounds: rounds, port: which == "hue-v2" ? huePort : staticPort, path: path,
                    headers: headers, tls: true)
            }
        }
        report(
            "Hue v2 GET /clip/v2/resource/light/{id} over HTTPS, 8 clients (vs a static answer over HTTPS)", hueRun,
            baseline: fixedRun)
        hueTask.cancel()
        plainTask.cancel()
        _ = await (hueTask.result, plainTask.result)
    }

    /// Changes a second to 50 API v2 event streams (Server-Sent Events) against 50 socket sessions subscribed to
    /// the same property, in turn, on one lumend server in this process. A round is a burst of changes of the
    /// home's name (the bridge device's name in v2) written by one more socket session; it ends when every
    /// reader has read the last of them.
    static func benchmarkHueEventStreams(_ baseline: Baseline) async {
        let count = 50
        let changes = baseline.quick ? 200 : 1_000
        let served = await serve(
            fixture: instantHome(lights: 1), directory: "\(baseline.directory)/streams-v2", durability: .relaxed)
        let quiet = Logger(level: .critical, handler: MemoryLogHandler())
        let bridge = HueBridge(scopeContext: served.scopeContext)
        let user = "bench-lumen"
        guard (try? await bridge.pairUser(user, deviceType: "bench#lumen")) != nil,
            let fd = try? TCPListener.listen(on: TCPAddress(host: "127.0.0.1", port: 0)),
            let port = TCPListener.boundPort(fd)
        else {
            print("  Hue v2 event streams: SKIPPED (no loopback TCP listener could be opened)")
            await served.stop()
            return
        }
        await bridge.watchHome()
        var limits = HTTPLimits()
        limits.connectionsPerAddress = limits.connections
        limits.streamsPerAddress = limits.streams
        let http = HTTPServer(listeners: [HTTPListener(fd: fd)], limits: limits, logger: quiet) { request in
            // Marked as come over TLS, as the GET benchmark's are: TLS is not what is measured.
            var request = request
            request.isSecure = true
            return bridge.respond(to: request) ?? .now(.text("no\n", status: 404))
        }
        let httpTask = Task { try await http.run() }
        let path = served.path
        let (socketRun, streamRun) = await onThread { () -> (Measurement?, Measurement?) in
            let sockets = subscribedSockets(count, at: path)
            var readers: [Int32: ChunkedText] = [:]
            for fd in sockets { readers[fd] = ChunkedText(expectingHead: false) }
            let streams = (0..<count).compactMap { _ -> Int32? in
                let fd = HTTPLoadClient.connect(port: port)
                let request =
                    "GET /eventstream/clip/v2 HTTP/1.1\r\nHost: 127.0.0.1\r\nhue-application-key: \(user)\r\n\r\n"
                UnixSocket.sendAll(fd, Array(request.utf8))
                var texts = [fd: ChunkedText(expectingHead: true)]
                guard waitForText(": hi", on: [fd], texts: &texts), let text = texts[fd] else {
                    close(fd)
                    return nil
                }
                readers[fd] = text
                return fd
            }
            // Each stream said ": hi" once the bridge had the look that later ones are compared with: no wait here.
            guard sockets.count == count, streams.count == count, let writer = try? UnixSocket.connect(to: path)
            else { return (nil, nil) }
            defer { for fd in sockets + streams + [writer] { close(fd) } }
            var round = 0
            var failed = false
            let (socketRun, streamRun) = alternate("socket", "hue-v2") { which in
                round += 1
                let isSocket = which == "socket"
                guard
                    let run = burst(
                        changes, round: round, writer: writer, readers: isSocket ? sockets : streams,
                        texts: &readers, heardAs: isSocket ? "value" : "name")
                else {
                    failed = true
                    return Measurement(operations: 1, seconds: 1e9, cpu: 0)
                }
                return run
            }
            return failed ? (nil, nil) : (socketRun, streamRun)
        }
        if let socketRun, let streamRun {
            report(
                "changes/s to \(count) Hue v2 event streams (vs \(count) socket sessions)", streamRun,
                baseline: socketRun)
        } else {
            print("  " + pad("changes/s to \(count) Hue v2 event streams") + "not every stream heard every change")
        }
        httpTask.cancel()
        _ = await httpTask.result
        await served.stop()
    }
}
