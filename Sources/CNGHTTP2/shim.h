#ifndef RICHPUSH_CNGHTTP2_H
#define RICHPUSH_CNGHTTP2_H
// The provider's own HTTP/2 client (Sources/RichPushProvider/HTTP2): libnghttp2 (Debian:
// libnghttp2-dev) for frames, HPACK, flow control and stream states; OpenSSL's libssl (Debian:
// libssl-dev) for TLS with ALPN; Linux epoll and eventfd for the one event-loop thread.
// OpenSSL's setters below are macros over SSL_ctrl / SSL_CTX_ctrl, and epoll_event is a packed
// struct with a union: these inline wrappers give Swift plain functions with fixed types.

#ifdef __linux__
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nghttp2/nghttp2.h>
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pkcs12.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

static inline int richpush_ssl_set_sni(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}
static inline int richpush_ssl_ctx_set_min_tls12(SSL_CTX *ctx) {
    return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}
static inline long richpush_ssl_ctx_set_modes(SSL_CTX *ctx) {
    return SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
}
static inline long richpush_ssl_ctx_set_options(SSL_CTX *ctx) {
    return (long)SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
}
static inline int richpush_ssl_ctx_add_chain_cert(SSL_CTX *ctx, X509 *cert) {
    // add0: the context takes the reference.
    return (int)SSL_CTX_add0_chain_cert(ctx, cert);
}

/// A socket BIO whose writes use send(MSG_NOSIGNAL): OpenSSL's own socket BIO writes with write(),
/// and a write to a connection the peer has closed would raise SIGPIPE and kill the process.
static inline int richpush_bio_write(BIO *bio, const char *data, int length) {
    int fd = (int)(intptr_t)BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    ssize_t n = send(fd, data, (size_t)length, MSG_NOSIGNAL);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) BIO_set_retry_write(bio);
        return -1;
    }
    return (int)n;
}
static inline int richpush_bio_read(BIO *bio, char *data, int length) {
    int fd = (int)(intptr_t)BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    ssize_t n = recv(fd, data, (size_t)length, 0);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) BIO_set_retry_read(bio);
        return -1;
    }
    return (int)n;
}
static inline long richpush_bio_ctrl(BIO *bio, int command, long number, void *pointer) {
    (void)number;
    (void)pointer;
    switch (command) {
    case BIO_CTRL_FLUSH: return 1;
    case BIO_C_GET_FD: return (long)(intptr_t)BIO_get_data(bio);
    default: return 0;
    }
}
static inline int richpush_bio_create(BIO *bio) {
    BIO_set_init(bio, 1);
    return 1;
}
/// The BIO method above, made once (OpenSSL's run-once: safe from any thread).
static inline BIO_METHOD **richpush_bio_method_slot(void) {
    static BIO_METHOD *method;
    return &method;
}
static inline void richpush_bio_method_make(void) {
    BIO_METHOD *method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "richpush socket (MSG_NOSIGNAL)");
    if (!method) return;
    BIO_meth_set_write(method, richpush_bio_write);
    BIO_meth_set_read(method, richpush_bio_read);
    BIO_meth_set_ctrl(method, richpush_bio_ctrl);
    BIO_meth_set_create(method, richpush_bio_create);
    *richpush_bio_method_slot() = method;
}
/// Gives `ssl` a BIO over `fd` that never raises SIGPIPE. Returns 1, or 0 when OpenSSL is out of memory.
static inline int richpush_ssl_set_socket(SSL *ssl, int fd) {
    static CRYPTO_ONCE once = CRYPTO_ONCE_STATIC_INIT;
    CRYPTO_THREAD_run_once(&once, richpush_bio_method_make);
    BIO_METHOD *method = *richpush_bio_method_slot();
    if (!method) return 0;
    BIO *bio = BIO_new(method);
    if (!bio) return 0;
    BIO_set_data(bio, (void *)(intptr_t)fd);
    SSL_set_bio(ssl, bio, bio);
    return 1;
}

/// epoll_ctl with the event's data as one 64-bit value.
static inline int richpush_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = events;
    event.data.u64 = data;
    return epoll_ctl(epfd, op, fd, &event);
}

/// epoll_wait into two plain arrays (data, events) instead of the packed struct.
static inline int richpush_epoll_wait(int epfd, uint64_t *datas, uint32_t *events, int max, int timeout_ms) {
    struct epoll_event list[64];
    if (max > 64) max = 64;
    int n = epoll_wait(epfd, list, max, timeout_ms);
    for (int i = 0; i < n; i++) {
        datas[i] = list[i].data.u64;
        events[i] = list[i].events;
    }
    return n;
}

static inline int richpush_errno(void) { return errno; }

/// Makes a non-blocking, close-on-exec TCP socket with TCP_NODELAY and starts connecting it.
/// Returns the fd (>= 0) with *in_progress set when the connect has not finished yet, or -errno.
static inline int richpush_tcp_connect(const struct sockaddr *address, socklen_t length, int *in_progress) {
    int fd = socket(address->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
    if (fd < 0) return -errno;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    *in_progress = 0;
    if (connect(fd, address, length) != 0) {
        if (errno == EINPROGRESS) {
            *in_progress = 1;
        } else {
            int e = errno;
            close(fd);
            return -e;
        }
    }
    return fd;
}

/// The pending error of a socket whose non-blocking connect finished (0: connected).
static inline int richpush_socket_error(int fd) {
    int error = 0;
    socklen_t length = sizeof error;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) return errno;
    return error;
}

/// The local port of a connected socket (0 when unknown).
static inline int richpush_local_port(int fd) {
    struct sockaddr_storage address;
    socklen_t length = sizeof address;
    if (getsockname(fd, (struct sockaddr *)&address, &length) != 0) return 0;
    if (address.ss_family == AF_INET) return ntohs(((struct sockaddr_in *)&address)->sin_port);
    if (address.ss_family == AF_INET6) return ntohs(((struct sockaddr_in6 *)&address)->sin6_port);
    return 0;
}
#endif

#endif
