#ifndef LUMEN_CGNUTLS_SHIM_H
#define LUMEN_CGNUTLS_SHIM_H
// GnuTLS, as Debian's libgnutls28-dev ships it: TLS for the HTTPS listener and its self-signed certificate.
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <gnutls/crypto.h>

// What GnuTLS gives as macros, which Swift does not import, as functions.

/// The size to give gnutls_x509_privkey_generate for an ECDSA key on NIST P-256.
static inline unsigned int lumen_gnutls_p256_bits(void) {
    return GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1);
}

/// Frees what GnuTLS allocated into a datum (an exported certificate or key), and empties it.
static inline void lumen_gnutls_free_datum(gnutls_datum_t *datum) {
    gnutls_free(datum->data);
    datum->data = NULL;
    datum->size = 0;
}
#endif
