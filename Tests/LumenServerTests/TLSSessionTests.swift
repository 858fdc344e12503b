import CGnuTLS
import LumenProtocol
import Testing

@testable import LumenServer

#if canImport(Glibc)
    import Glibc
#endif

/// One TLS connection's server side, driven by hand over a socket pair against a GnuTLS client in the test.
@Suite struct TLSSessionTests {
    /// A client session on `fd`, trusting anything (the test reads what it sends, not who it talks to).
    final class Client {
        let session: gnutls_session_t
        let credentials: gnutls_certificate_credentials_t

        init(fd: Int32) throws {
            var made: gnutls_session_t?
            var madeCredentials: gnutls_certificate_credentials_t?
            try #require(gnutls_certificate_allocate_credentials(&madeCredentials) == GNUTLS_E_SUCCESS)
            try #require(gnutls_init(&made, UInt32(GNUTLS_CLIENT | GNUTLS_NONBLOCK)) == GNUTLS_E_SUCCESS)
            session = try #require(made)
            credentials = try #require(madeCredentials)
            gnutls_set_default_priority(session)
            gnutls_credentials_set(session, GNUTLS_CRD_CERTIFICATE, UnsafeMutableRawPointer(credentials))
            gnutls_transport_set_int2(session, fd, fd)
        }

        deinit {
            gnutls_deinit(session)
            gnutls_certificate_free_credentials(credentials)
        }
    }

    @Test func plaintextGnuTLSHoldsDecryptedIsReadWithoutWaitingForTheSocket() throws {
        let (certificate, key) = try TLSCredentials.selfSigned(commonName: "001788fffe123456")
        let credentials = try TLSCredentials(certificatePEM: certificate, keyPEM: key)
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { for fd in pair { close(fd) } }
        for fd in pair { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        let server = try #require(TLSSession(fd: pair[0], credentials: credentials))
        let client = try Client(fd: pair[1])
        // A small buffer: one record's plaintext is more than one read takes.
        var buffer = [UInt8](repeating: 0, count: 32)
        var clientDone = false
        for _ in 0..<100 where !(clientDone && server.isHandshaken) {
            if !clientDone { clientDone = gnutls_handshake(client.session) == GNUTLS_E_SUCCESS }
            _ = server.read(into: &buffer) { _ in }
        }
        #expect(clientDone && server.isHandshaken)
        // Two requests in one record, as a client pipelining them sends them.
        let requests = Array("GET /one HTTP/1.1\r\nHost: x\r\n\r\nGET /two HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        #expect(gnutls_record_send(client.session, requests, requests.count) == requests.count)
        var read: [UInt8] = []
        #expect(server.read(into: &buffer) { read += $0 } == .moved(requests.count))
        #expect(read == requests)
        // Nothing is left, in GnuTLS or the socket.
        #expect(server.read(into: &buffer) { read += $0 } == .wouldBlock)
    }
}
