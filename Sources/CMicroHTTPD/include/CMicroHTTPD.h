#ifndef RICHPUSH_CMICROHTTPD_H
#define RICHPUSH_CMICROHTTPD_H

// A small C shim over libmicrohttpd (Debian libmicrohttpd-dev).
//
// libmicrohttpd's entry points are variadic (MHD_start_daemon) and its access handler is called
// several times per request (headers, body chunks, final). This shim hides both: it hands the
// request's head to a Swift gate as soon as the headers are in (before any body byte is read, so
// auth, CSRF and per-route body bounds are decided first), collects the body up to the bound the
// gate chose, hands the complete request to one Swift callback, and lets Swift answer at once or
// later from any thread (the connection is suspended meanwhile, so a receipt can be answered after
// its batch's COMMIT without holding a thread).
//
// Slow clients: libmicrohttpd bounds idle time (MHD_OPTION_CONNECTION_TIMEOUT), connections in
// total and per client address (MHD_OPTION_CONNECTION_LIMIT, MHD_OPTION_PER_IP_CONNECTION_LIMIT)
// and memory per connection (MHD_OPTION_CONNECTION_MEMORY_LIMIT), but not the total time a client
// may take to send its headers or body while staying just active enough. The shim adds that: it
// tracks each connection (MHD_OPTION_NOTIFY_CONNECTION) and a sweeper thread shuts down the socket
// of a connection whose request line + headers are not complete within the header deadline, or
// whose body falls behind the minimum rate; libmicrohttpd then closes it as a dead client.

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

/// How the server treats slow, many or large clients.
typedef struct rp_limits {
    /// Most connections open at once (MHD_OPTION_CONNECTION_LIMIT); later ones are closed at accept.
    unsigned max_connections;
    /// Most connections from one client address (MHD_OPTION_PER_IP_CONNECTION_LIMIT); 0 = no limit.
    unsigned max_connections_per_ip;
    /// Seconds without any byte received or sent before a connection is closed
    /// (MHD_OPTION_CONNECTION_TIMEOUT); 0 = never.
    unsigned idle_timeout_seconds;
    /// Milliseconds from a connection's start (or the end of its previous request, when kept
    /// alive) by which the request line and all headers must have arrived; 0 = no deadline.
    unsigned header_timeout_ms;
    /// A body must arrive at this many bytes per second on average, after a grace of
    /// `header_timeout_ms` from the end of the headers (as Apache's mod_reqtimeout: the deadline
    /// moves one second later for every `min_body_rate` bytes received); 0 = no minimum.
    unsigned min_body_rate;
    /// Bytes of memory per connection for the request line, headers and buffers
    /// (MHD_OPTION_CONNECTION_MEMORY_LIMIT); larger heads are refused by libmicrohttpd.
    size_t connection_memory;
} rp_limits;

/// Called once per request on a libmicrohttpd thread when the request line and headers are in,
/// before any body byte is read. Return 1 to read the body, up to `*max_body` bytes (set it), or
/// 0 after answering with rp_request_respond (the body, if any, is not read; the connection closes
/// when one was announced).
typedef int (*rp_gate)(void *context, rp_request *request, size_t *max_body);

/// Called once per complete request on a libmicrohttpd thread. Return 1 when the request was
/// answered (rp_request_respond was called before returning), 0 when it will be answered later
/// from another thread (the connection is suspended until then).
typedef int (*rp_handler)(void *context, rp_request *request);

/// Starts a server on `host` (IPv4 or IPv6 literal) and `port` (0 = ephemeral) with an internal
/// epoll thread pool of `threads` threads. `default_headers` ("Name: value\n" lines, or NULL) go
/// on every response the shim makes. On failure returns NULL and writes a message into `error`
/// (at most error_len bytes).
rp_server *rp_server_start(const char *host, uint16_t port, unsigned threads, const rp_limits *limits,
                           const char *default_headers, rp_gate gate, rp_handler handler, void *context,
                           char *error, size_t error_len);

/// The bound TCP port.
uint16_t rp_server_port(const rp_server *server);

/// Stops accepting new connections (the listening socket is closed); requests in flight go on,
/// and every later response closes its connection (no more keep-alive).
void rp_server_quiesce(rp_server *server);

/// Requests begun (headers received) and not yet completed.
long rp_server_in_flight(rp_server *server);

/// Connections open right now (accepted and not yet closed).
long rp_server_open_connections(rp_server *server);

/// Connections the shim closed because their headers missed the deadline (since start).
long rp_server_closed_slow_headers(rp_server *server);

/// Connections the shim closed because their body fell behind the minimum rate (since start).
long rp_server_closed_slow_bodies(rp_server *server);

/// Stops the server: closes every connection and joins its threads. Call after every dispatched
/// request was answered. The counters above stay readable until rp_server_free.
void rp_server_stop(rp_server *server);

/// Frees a stopped server.
void rp_server_free(rp_server *server);

const char *rp_request_method(const rp_request *request);
/// The path, without the query string, as libmicrohttpd decoded it (cut at a `%00`).
const char *rp_request_path(const rp_request *request);
/// The request-target as sent: path and query, still percent-encoded; NULL when not known.
const char *rp_request_raw_uri(const rp_request *request);
/// A request header (case-insensitive name), or NULL. The first one when repeated.
const char *rp_request_header(const rp_request *request, const char *name);
/// How many times a header (case-insensitive name) occurs.
size_t rp_request_header_count(const rp_request *request, const char *name);
/// The `index`-th occurrence (0-based) of a header, or NULL.
const char *rp_request_header_at(const rp_request *request, const char *name, size_t index);
/// A query-string argument, or NULL.
const char *rp_request_query(const rp_request *request, const char *name);
/// Called once per header or query argument, in the order received (`value` may be NULL for a
/// query argument without `=`). `value_length` is the value's length in bytes: a decoded `%00`
/// leaves a NUL inside it, which `strlen` would cut.
typedef void (*rp_pair_visitor)(void *context, const char *name, const char *value, size_t value_length);
/// Visits every header (`query` 0) or every query-string argument (`query` 1) of a request.
/// Call only from the gate or the handler (libmicrohttpd's thread for the connection).
void rp_request_each(const rp_request *request, int query, rp_pair_visitor visit, void *context);
/// The client's address as text (IPv4 dotted or IPv6), "" when unknown.
const char *rp_request_peer(const rp_request *request);
/// The body bytes (not NUL-terminated; may be NULL when empty) and their length.
const uint8_t *rp_request_body(const rp_request *request, size_t *length);
/// 1 when the body was longer than the gate's bound (it was discarded).
int rp_request_body_too_large(const rp_request *request);
/// Connections open on the request's server right now (for a busy check in the gate).
long rp_request_open_connections(const rp_request *request);
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

/// Answers with the `length` bytes of the open file `fd` (from its start), sent by libmicrohttpd
/// as the client reads them (sendfile where it can), never held in memory; the shim owns `fd`
/// from here on (closed when the response is done, or at once if the answer cannot be made).
void rp_request_respond_fd(rp_request *request, unsigned status, const char *content_type, int fd, uint64_t length,
                           const char *headers);

#ifdef __cplusplus
}
#endif

#endif
