import CGnuTLS
import LumenProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// The server side of one TLS connection, driven from its HTTP connection's loop: GnuTLS reads and writes the
/// non-blocking socket itself, and every call that would wait returns at once, to be called again when the loop
/// says the socket is ready. The handshake happens on the first reads; the HTTP connection above sees only
/// plaintext.
final class TLSSession {
    private let session: gnutls_session_t
    private let fd: Int32
    /// Held so that the credentials outlive every session that presents them.
    private let credentials: TLSCredentials
    /// Whether the handshake is done, so that records carry the client's requests.
    private(set) var isHandshaken = false
    /// Set while the handshake waits for room in the socket rather than for the client's bytes.
    private(set) var handshakeWantsWrite = false
    /// Set when the client's first byte is a letter: a plain HTTP request sent to the HTTPS port.
    private(set) var sentPlainHTTP = false
    /// Why the session failed, in GnuTLS's words, once it has.
    private(set) var failure: String?
    /// The bytes of a record GnuTLS has begun to send but the socket had no room for: it must be asked to
    /// finish that one before taking more.
    private var unfinishedSend = 0
    private var hasLookedAtFirstByte = false

    /// A session for the accepted socket `fd`; `nil` when GnuTLS cannot make one (out of memory).
    init?(fd: Int32, credentials: TLSCredentials) {
        var made: gnutls_session_t?
        guard gnutls_init(&made, UInt32(GNUTLS_SERVER | GNUTLS_NONBLOCK | GNUTLS_NO_SIGNAL)) == GNUTLS_E_SUCCESS,
            let made
        else { return nil }
        guard gnutls_set_default_priority(made) == GNUTLS_E_SUCCESS,
            gnutls_credentials_set(made, GNUTLS_CRD_CERTIFICATE, UnsafeMutableRawPointer(credentials.handle))
                == GNUTLS_E_SUCCESS
        else {
            gnutls_deinit(made)
            return nil
        }
        gnutls_certificate_server_set_request(made, GNUTLS_CERT_IGNORE)
        gnutls_transport_set_int2(made, fd, fd)
        session = made
        self.fd = fd
        self.credentials = credentials
    }

    deinit { gnutls_deinit(session) }

    /// Reads what has come, handshaking first while the handshake is not done, and hands `body` the plaintext
    /// of a record, and then whatever GnuTLS holds decrypted already (`gnutls_record_check_pending`): that is no
    /// longer in the socket, so the loop would not wake for it, and a request in it would wait for the client's
    /// next bytes. What is left in the socket the loop sees.
    /// - Returns: `.moved` with plaintext given to `body`; `.wouldBlock` when it waits for the socket (see
    ///   ``handshakeWantsWrite``); `.end` when the client closed, with or without TLS's close; `.failed` on
    ///   anything that is not TLS (``sentPlainHTTP``, ``failure``).
    func read(into buffer: inout [UInt8], _ body: (ArraySlice<UInt8>) -> Void) -> UnixSocket.Transfer {
        if !isHandshaken {
            if !hasLookedAtFirstByte {
                // A TLS client's first byte is 22 (a handshake record); an HTTP client's is a method's letter.
                var first: UInt8 = 0
                let count = recv(fd, &first, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
                if count == 0 { return .end }
                if count < 0 {
                    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .wouldBlock : .failed(errno)
                }
                hasLookedAtFirstByte = true
                if (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first) {
                    sentPlainHTTP = true
                    return .failed(EPROTO)
                }
            }
            let code = gnutls_handshake(session)
            if code == GNUTLS_E_AGAIN || code == GNUTLS_E_INTERRUPTED {
                handshakeWantsWrite = gnutls_record_get_direction(session) == 1
                return .wouldBlock
            }
            handshakeWantsWrite = false
            guard code == GNUTLS_E_SUCCESS else { return fail(code) }
            isHandshaken = true
        }
        let count = buffer.withUnsafeMutableBytes { gnutls_record_recv(session, $0.baseAddress, $0.count) }
        if count > 0 {
            body(buffer[0..<count])
            var moved = count
            while gnutls_record_check_pending(session) > 0 {
                let more = buffer.withUnsafeMutableBytes { gnutls_record_recv(session, $0.baseAddress, $0.count) }
                guard more > 0 else { break }
                body(buffer[0..<more])
                moved += more
            }
            return .moved(moved)
        }
        switch Int32(count) {
        case 0, GNUTLS_E_PREMATURE_TERMINATION: return .end
        case GNUTLS_E_AGAIN, GNUTLS_E_INTERRUPTED: return .wouldBlock
        default: return fail(Int32(count))
        }
    }

    /// Sends what it can of `bytes` as one record, in one call; after a `.wouldBlock` the same bytes must be given
    /// again (GnuTLS finishes the record it began).
    func send(_ bytes: UnsafeRawBufferPointer) -> UnixSocket.Transfer {
        guard isHandshaken else { return .failed(ENOTCONN) }
        guard let base = bytes.baseAddress, bytes.count > 0 else { return .moved(0) }
        let sent =
            unfinishedSend > 0
            ? gnutls_record_send(session, nil, 0)
            : gnutls_record_send(session, base, min(bytes.count, 16_384))
        if sent > 0 {
            unfinishedSend = 0
            return .moved(sent)
        }
        switch Int32(sent) {
        case GNUTLS_E_AGAIN, GNUTLS_E_INTERRUPTED:
            if unfinishedSend == 0 { unfinishedSend = min(bytes.count, 16_384) }
            return .wouldBlock
        default:
            _ = fail(Int32(sent))
            return .failed(EPIPE)
        }
    }

    /// Tells the client nothing more is coming (TLS's close), as far as the socket takes it now: a client that
    /// does not read it loses nothing it asked for.
    func finishSending() {
        guard isHandshaken, unfinishedSend == 0 else { return }
        _ = gnutls_bye(session, GNUTLS_SHUT_WR)
    }

    private func fail(_ code: Int32) -> UnixSocket.Transfer {
        failure = String(cString: gnutls_strerror(code))
        return .failed(EPROTO)
    }
}
