import Foundation

/// An HTTPS client for tests: Debian's Python and its `ssl` module (OpenSSL), run as a process of its own, so
/// that what lumend serves over TLS is read by a TLS stack other than its own.
public enum TLSTestClient {
    /// What an exchange gave: the certificate's subject common name, when the certificate was checked, and the
    /// response as text (empty when the handshake failed; `failure` then says why).
    public struct Exchange: Sendable {
        /// The served certificate's subject common name, when a certificate to trust was given.
        public var commonName: String?
        /// The response, read until the server closed the connection.
        public var response: String
        /// Python's words for a failure (a refused handshake, a refused connection), if any.
        public var failure: String?
    }

    /// Connects to `host`:`port` over TLS, sends `request` and reads until the server closes.
    /// - Parameter trusting: a PEM certificate file the server's must be (then its common name is read); when
    ///   `nil`, any certificate is taken, as `curl -k` does.
    public static func exchange(
        host: String = "127.0.0.1", port: UInt16, _ request: String, trusting certificateFile: String? = nil
    ) async throws -> Exchange {
        let run = try DaemonProcess(
            arguments: [host, String(port), request, certificateFile ?? ""], prefix: ["-c", script],
            executable: "/usr/bin/python3", setPaths: false)
        guard let status = await run.waitForExit(timeout: .seconds(60)) else {
            run.signal(SIGKILL)
            return Exchange(commonName: nil, response: "", failure: "the client did not finish within 60 s")
        }
        let output = run.stdout
        guard status == 0, output.hasPrefix("CN=") else {
            return Exchange(
                commonName: nil, response: "", failure: run.stderr.isEmpty ? "status \(status)" : run.stderr)
        }
        let firstLine = output.prefix { $0 != "\n" }
        let name = String(firstLine.dropFirst(3))
        return Exchange(
            commonName: certificateFile == nil ? nil : name, response: String(output.dropFirst(firstLine.count + 1)),
            failure: nil)
    }

    private static let script = """
        import socket, ssl, sys
        host, port, request, trusted = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        if trusted:
            context.load_verify_locations(cafile=trusted)
        else:
            context.verify_mode = ssl.CERT_NONE
        with socket.create_connection((host, port), timeout=30) as raw:
            with context.wrap_socket(raw) as tls:
                name = ""
                for part in (tls.getpeercert() or {}).get("subject", ()):
                    for key, value in part:
                        if key == "commonName":
                            name = value
                sys.stdout.write("CN=" + name + "\\n")
                tls.sendall(request.encode())
                received = b""
                while True:
                    try:
                        chunk = tls.recv(65536)
                    except ssl.SSLEOFError:
                        break
                    if not chunk:
                        break
                    received += chunk
                sys.stdout.write(received.decode("utf-8", "replace"))
        """
}
