#ifndef RICHPUSH_COPENSSL_H
#define RICHPUSH_COPENSSL_H
// libcrypto (Debian: libssl-dev) on Linux: ES256 / RS256 JWT signing (provider side) and
// AES-256-GCM / SHA-256 (extension side).
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>  // provider side: checking a --cert .p12 before sending

// The GCM control codes are macros that alias other macros; these inline wrappers give Swift
// plain functions with fixed argument types.

#include <openssl/rand.h>

static inline int richpush_gcm_set_ivlen(EVP_CIPHER_CTX *ctx, int length) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, length, NULL);
}
static inline int richpush_gcm_get_tag(EVP_CIPHER_CTX *ctx, int length, void *tag) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, length, tag);
}
static inline int richpush_gcm_set_tag(EVP_CIPHER_CTX *ctx, int length, void *tag) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, length, tag);
}

#endif
