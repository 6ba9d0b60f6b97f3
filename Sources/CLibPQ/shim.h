#ifndef ISSUER_CLIBPQ_SHIM_H
#define ISSUER_CLIBPQ_SHIM_H
#include <libpq-fe.h>

/* libssl's, the library libpq encrypts with; declared with the very type <openssl/ssl.h> gives it
   (`const SSL *`, SSL being `struct ssl_st`), so that no OpenSSL header comes along. */
struct ssl_st;
extern int SSL_pending(const struct ssl_st *ssl);

/// The bytes OpenSSL has decrypted on `conn`'s link and libpq has not taken yet; 0 without TLS.
/// They never make the socket readable again, so a non-blocking reader must take them itself.
static inline int issuer_PQsslPending(PGconn *conn) {
    const struct ssl_st *ssl = (const struct ssl_st *)PQsslStruct(conn, "OpenSSL");
    return ssl ? SSL_pending(ssl) : 0;
}
#endif
