#ifndef RICHPUSH_CMICROHTTPD_H
#define RICHPUSH_CMICROHTTPD_H

// A small C shim over libmicrohttpd (Debian libmicrohttpd-dev).
//
// libmicrohttpd's entry points are variadic (MHD_start_daemon) and its access handler is called
// several times per request (headers, body chunks, final). This shim hides both: it collects a
// request (method, URL, headers, body up to a bound), hands the complete request to one Swift
// callback, and lets Swift answer at once or later from any thread (the connection is suspended
// meanwhile, so a receipt can be answered after its batch's COMMIT without holding a thread).

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One HTTP request collected by the shim. Valid until rp_request_respond has been called and
/// libmicrohttpd has finished the response.
typedef struct rp_request rp_request;

/// An opaque running server.
typedef struct rp_server rp_server;

/// Called once per complete request on a libmicrohttpd thread. Return 1 when the request was
/// answered (rp_request_respond was called before returning), 0 when it will be answered later
/// from another thread (the connection is suspended until then).
typedef int (*rp_handler)(void *context, rp_request *request);

/// Starts a server on `host` (IPv4 or IPv6 literal) and `port` (0 = ephemeral) with an internal
/// epoll thread pool of `threads` threads. Bodies longer than `max_body` bytes are read and
/// discarded and the request is flagged (rp_request_body_too_large). On failure returns NULL
/// and writes a message into `error` (at most error_len bytes).
rp_server *rp_server_start(const char *host, uint16_t port, unsigned threads, size_t max_body,
                           rp_handler handler, void *context, char *error, size_t error_len);

/// The bound TCP port.
uint16_t rp_server_port(const rp_server *server);

/// Gives requests to the paths matching `path` (< 128 bytes: '|'-separated patterns, '*' for one
/// path segment, e.g. "/v1/pushes|/v1/pushes/*/sends") a larger body bound of `max_body` bytes
/// (POST /v1/pushes with many device tokens). Call once, right after rp_server_start.
void rp_server_set_large_body(rp_server *server, const char *path, size_t max_body);

/// Stops accepting new connections (the listening socket is closed); requests in flight go on,
/// and every later response closes its connection (no more keep-alive).
void rp_server_quiesce(rp_server *server);

/// Requests begun (headers received) and not yet completed.
long rp_server_in_flight(rp_server *server);

/// Stops the server and frees it. Call after every dispatched request was answered.
void rp_server_stop(rp_server *server);

const char *rp_request_method(const rp_request *request);
/// The path, without the query string.
const char *rp_request_path(const rp_request *request);
/// A request header (case-insensitive name), or NULL.
const char *rp_request_header(const rp_request *request, const char *name);
/// A query-string argument, or NULL.
const char *rp_request_query(const rp_request *request, const char *name);
/// The body bytes (not NUL-terminated; may be NULL when empty) and their length.
const uint8_t *rp_request_body(const rp_request *request, size_t *length);
/// 1 when the body was longer than max_body (it was discarded).
int rp_request_body_too_large(const rp_request *request);
/// Monotonic nanoseconds when the request's headers arrived.
uint64_t rp_request_start_ns(const rp_request *request);
/// Monotonic clock in nanoseconds (CLOCK_MONOTONIC).
uint64_t rp_monotonic_ns(void);

/// Answers a request (exactly once). `headers` holds extra header lines "Name: value\n" (or
/// NULL). The body is copied. Callable from any thread; resumes a suspended connection.
void rp_request_respond(rp_request *request, unsigned status, const char *content_type,
                        const uint8_t *body, size_t body_length, const char *headers);

/// Answers a request with an empty body and no extra headers (exactly once, from any thread).
/// A `202` reuses one response object shared by every request (no allocation, no copy), which
/// is what every accepted receipt gets.
void rp_request_respond_empty(rp_request *request, unsigned status);

#ifdef __cplusplus
}
#endif

#endif
