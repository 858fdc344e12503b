import CGnuTLS

#if canImport(Glibc)
    import Glibc
#endif

/// A TLS failure, said plainly: what was being done, and GnuTLS's own words for what went wrong.
package struct TLSError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed and why, in a sentence's words.
    package var description: String

    /// A failure described by `description`.
    init(_ description: String) { self.description = description }

    /// A failure of `doing`, with GnuTLS's message for `code`.
    init(_ doing: String, code: Int32) {
        description = "\(doing): \(String(cString: gnutls_strerror(code)))"
    }
}

/// The certificate and private key an HTTPS listener presents, loaded into GnuTLS once and shared by every
/// connection's session.
///
/// ```swift
/// let (certificate, key) = try TLSCredentials.selfSigned(commonName: "001788fffe123456")
/// let credentials = try TLSCredentials(certificatePEM: certificate, keyPEM: key)
/// let server = HTTPServer(listeners: [HTTPListener(fd: fd, tls: credentials)], logger: logger) { … }
/// ```
package final class TLSCredentials: Sendable {
    // GnuTLS lets sessions on any thread share credentials once they are set up; these are set up in init,
    // never changed after, and freed in deinit, once no session (each holds the credentials) can use them.
    nonisolated(unsafe) let handle: gnutls_certificate_credentials_t
    /// The certificate's subject common name (a Hue bridge's is its bridge ID, in lower case).
    package let commonName: String

    /// Credentials from a PEM certificate (the server's first, then any chain) and its PEM private key.
    /// - Throws: ``TLSError`` when either is not PEM GnuTLS can read, or the key is not the certificate's.
    package init(certificatePEM: [UInt8], keyPEM: [UInt8]) throws(TLSError) {
        commonName = try Self.commonName(ofCertificatePEM: certificatePEM)
        var made: gnutls_certificate_credentials_t?
        var code = gnutls_certificate_allocate_credentials(&made)
        guard code == GNUTLS_E_SUCCESS, let made else { throw TLSError("cannot set up TLS", code: code) }
        code = Self.withDatum(certificatePEM) { certificate in
            Self.withDatum(keyPEM) { key in
                gnutls_certificate_set_x509_key_mem2(made, &certificate, &key, GNUTLS_X509_FMT_PEM, nil, 0)
            }
        }
        guard code >= 0 else {
            gnutls_certificate_free_credentials(made)
            throw code == GNUTLS_E_CERTIFICATE_KEY_MISMATCH
                ? TLSError("the private key is not the certificate's")
                : TLSError("cannot read the certificate and key (PEM)", code: code)
        }
        handle = made
    }

    deinit { gnutls_certificate_free_credentials(handle) }

    /// A new ECDSA P-256 key and a self-signed X.509 certificate for it, as PEM, whose subject is a Hue bridge's
    /// (`C=NL, O=Philips Hue, CN=commonName`), valid from a day ago until 2038-01-19 as a bridge's is.
    /// - Throws: ``TLSError`` when GnuTLS cannot make the key or sign the certificate.
    package static func selfSigned(commonName: String) throws(TLSError) -> (certificate: [UInt8], key: [UInt8]) {
        var key: gnutls_x509_privkey_t?
        try check(gnutls_x509_privkey_init(&key), "cannot make a private key")
        defer { gnutls_x509_privkey_deinit(key) }
        try check(
            gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA, lumen_gnutls_p256_bits(), 0),
            "cannot make an ECDSA P-256 key")
        var certificate: gnutls_x509_crt_t?
        try check(gnutls_x509_crt_init(&certificate), "cannot make a certificate")
        defer { gnutls_x509_crt_deinit(certificate) }
        // A random positive serial, as RFC 5280 asks (at most 20 bytes, the first bit clear).
        var serial = [UInt8](repeating: 0, count: 16)
        try check(gnutls_rnd(GNUTLS_RND_NONCE, &serial, serial.count), "cannot draw a serial number")
        serial[0] &= 0x7f
        let now = time(nil)
        try check(gnutls_x509_crt_set_version(certificate, 3), "cannot make a certificate")
        try check(gnutls_x509_crt_set_serial(certificate, serial, serial.count), "cannot set the serial number")
        try check(gnutls_x509_crt_set_activation_time(certificate, now - 86_400), "cannot set the start date")
        // A bridge's certificate ends where a 32-bit time does; a clock past that gets ten years from now.
        let end: time_t = now < 0x7FFF_FFFF - 86_400 ? 0x7FFF_FFFF : now + 10 * 365 * 86_400
        try check(gnutls_x509_crt_set_expiration_time(certificate, end), "cannot set the end date")
        for (oid, value) in [
            (GNUTLS_OID_X520_COUNTRY_NAME, "NL"), (GNUTLS_OID_X520_ORGANIZATION_NAME, "Philips Hue"),
            (GNUTLS_OID_X520_COMMON_NAME, commonName),
        ] {
            let bytes = Array(value.utf8)
            try check(
                gnutls_x509_crt_set_dn_by_oid(certificate, oid, 0, bytes, UInt32(bytes.count)),
                "cannot set the certificate's subject to \(value)")
        }
        try check(gnutls_x509_crt_set_key(certificate, key), "cannot put the key in the certificate")
        // Its own issuer, so that a client may pin it as the one trusted certificate.
        try check(gnutls_x509_crt_set_basic_constraints(certificate, 1, 0), "cannot mark the certificate")
        try check(
            gnutls_x509_crt_set_key_usage(
                certificate, UInt32(GNUTLS_KEY_DIGITAL_SIGNATURE) | UInt32(GNUTLS_KEY_KEY_CERT_SIGN)),
            "cannot mark the certificate")
        try check(
            gnutls_x509_crt_sign2(certificate, certificate, key, GNUTLS_DIG_SHA256, 0), "cannot sign the certificate")
        let certificatePEM = try export("cannot write the certificate as PEM") {
            gnutls_x509_crt_export2(certificate, GNUTLS_X509_FMT_PEM, &$0)
        }
        let keyPEM = try export("cannot write the key as PEM") {
            gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM, &$0)
        }
        return (certificatePEM, keyPEM)
    }

    /// The subject common name of the first certificate in `pem`; empty when it has none.
    /// - Throws: ``TLSError`` when `pem` holds no certificate GnuTLS can read.
    static func commonName(ofCertificatePEM pem: [UInt8]) throws(TLSError) -> String {
        var certificate: gnutls_x509_crt_t?
        try check(gnutls_x509_crt_init(&certificate), "cannot read the certificate")
        defer { gnutls_x509_crt_deinit(certificate) }
        let code = withDatum(pem) { gnutls_x509_crt_import(certificate, &$0, GNUTLS_X509_FMT_PEM) }
        guard code == GNUTLS_E_SUCCESS else {
            throw TLSError("cannot read the certificate (PEM, beginning -----BEGIN CERTIFICATE-----)", code: code)
        }
        var name = [UInt8](repeating: 0, count: 256)
        var size = name.count
        let found = gnutls_x509_crt_get_dn_by_oid(certificate, GNUTLS_OID_X520_COMMON_NAME, 0, 0, &name, &size)
        guard found == GNUTLS_E_SUCCESS else { return "" }
        return String(decoding: name.prefix(size).prefix { $0 != 0 }, as: UTF8.self)
    }

    private static func check(_ code: Int32, _ doing: @autoclosure () -> String) throws(TLSError) {
        guard code >= 0 else { throw TLSError(doing(), code: code) }
    }

    /// `bytes` as a GnuTLS datum, for the length of `body`.
    private static func withDatum<T>(_ bytes: [UInt8], _ body: (inout gnutls_datum_t) -> T) -> T {
        var bytes = bytes
        return bytes.withUnsafeMutableBufferPointer { buffer in
            var datum = gnutls_datum_t(data: buffer.baseAddress, size: UInt32(buffer.count))
            return body(&datum)
        }
    }

    /// What `body` exports into a datum GnuTLS allocates, copied out and freed.
    private static func export(_ doing: String, _ body: (inout gnutls_datum_t) -> Int32) throws(TLSError) -> [UInt8] {
        var datum = gnutls_datum_t(data: nil, size: 0)
        try check(body(&datum), doing)
        defer { lumen_gnutls_free_datum(&datum) }
        guard let data = datum.data else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(datum.size)))
    }
}
