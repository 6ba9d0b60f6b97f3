#ifndef JOSE_COPENSSL_SHIM_H
#define JOSE_COPENSSL_SHIM_H

// Only non-deprecated OpenSSL 3 APIs are used; make the compiler say so if that ever changes.
#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED 1

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

// The helpers below wrap function-like or compound macros that Swift's Clang importer cannot see.

/// `BIO_get_mem_data` is a macro over `BIO_ctrl`.
static inline long jose_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

/// `BN_num_bytes` is a macro over `BN_num_bits`.
static inline int jose_BN_num_bytes(const BIGNUM *bn) {
    return BN_num_bytes(bn);
}

/// `EVP_PKEY_PUBLIC_KEY` is a compound selection macro for `EVP_PKEY_fromdata`.
static inline int jose_EVP_PKEY_PUBLIC_KEY(void) {
    return EVP_PKEY_PUBLIC_KEY;
}

/// Parameter names with static storage: `OSSL_PARAM_BLD` keeps the key pointer until `OSSL_PARAM_BLD_to_param`,
/// so the temporary C string Swift would bridge from a `String` literal would dangle.
static inline const char *jose_OSSL_PKEY_PARAM_RSA_N(void) {
    return OSSL_PKEY_PARAM_RSA_N;
}

static inline const char *jose_OSSL_PKEY_PARAM_RSA_E(void) {
    return OSSL_PKEY_PARAM_RSA_E;
}

#endif
