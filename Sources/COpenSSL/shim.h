#ifndef RICHPUSH_COPENSSL_H
#define RICHPUSH_COPENSSL_H
// OpenSSL (Debian: libssl-dev) for ES256 / RS256 JWT signing on Linux.
// Every call RichPush makes is a real function in OpenSSL 3, so no C wrappers are needed.
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#endif
