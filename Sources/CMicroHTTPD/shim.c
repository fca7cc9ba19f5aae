#define _GNU_SOURCE
#include "CMicroHTTPD.h"

#include <microhttpd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum rp_state { RP_COLLECTING = 0, RP_DISPATCHED = 1, RP_SUSPENDED = 2, RP_ANSWERED = 3, RP_QUEUED = 4 };

/// Where a connection is, for the sweeper: waiting for a request's head, reading its body, or
/// anything else (handler, answer, suspended: never swept).
enum rp_phase { RP_PHASE_HEADERS = 0, RP_PHASE_BODY = 1, RP_PHASE_OTHER = 2, RP_PHASE_CLOSING = 3 };

/// How often the sweeper looks at the connections.
#define RP_SWEEP_INTERVAL_NS 100000000ull
/// The body grace when no header deadline is set.
#define RP_DEFAULT_BODY_GRACE_NS 10000000000ull

/// One open connection (MHD_OPTION_NOTIFY_CONNECTION), in the server's list.
struct rp_conn {
    struct rp_conn *prev;
    struct rp_conn *next;
    MHD_socket fd;
    /// The connection, and the daemon thread that owns it (the only thread that touches it).
    struct MHD_Connection *connection;
    pthread_t owner;
    atomic_int phase;
    _Atomic uint64_t phase_start_ns;
    _Atomic uint64_t body_bytes;
    char peer[INET6_ADDRSTRLEN];
};

struct rp_server {
    struct MHD_Daemon *daemon;
    rp_gate gate;
    rp_handler handler;
    void *context;
    atomic_long in_flight;
    atomic_int draining;
    /// Set by rp_server_stop: a request completed from now on is answered 503 here, never
    /// suspended, since MHD_stop_daemon aborts the process while a connection is suspended.
    atomic_int stopping;
    /// Connections suspended and not yet resumed (waited for by rp_server_stop).
    atomic_long suspended;
    uint16_t port;
    /// One empty 202 response shared by every accepted receipt (libmicrohttpd counts its
    /// references; ours is dropped in rp_server_stop).
    struct MHD_Response *accepted;
    /// "Name: value\n" lines added to every response the shim makes.
    char *default_headers;

    pthread_mutex_t conns_lock;
    struct rp_conn *conns;
    atomic_long open_connections;
    atomic_long closed_slow_headers;
    atomic_long closed_slow_bodies;
    uint64_t header_timeout_ns;
    uint64_t body_grace_ns;
    uint64_t min_body_rate;

    pthread_t sweeper;
    int sweeper_started;
    pthread_mutex_t sweep_lock;
    pthread_cond_t sweep_cond;
    int sweep_stop;
};

struct rp_request {
    struct rp_server *server;
    struct MHD_Connection *connection;
    struct rp_conn *conn;
    pthread_mutex_t mutex;
    int state;
    int too_large;
    int has_body;
    char *method;
    char *path;
    /// The request-target as sent (path and query, still percent-encoded), from
    /// MHD_OPTION_URI_LOG_CALLBACK: libmicrohttpd decodes the path in place and a `%00` would cut it.
    char *raw_uri;
    /// 1 once rp_access has set the request up (mutex, method, path, in_flight counted).
    int initialized;
    uint8_t *body;
    size_t body_length;
    size_t body_capacity;
    size_t discarded;
    uint64_t start_ns;
    size_t max_body;
    struct MHD_Response *response;
    /// 1 when `response` is the server's shared one (never destroyed per request).
    int response_shared;
    unsigned status;
    char peer[INET6_ADDRSTRLEN];
};

static void rp_request_deliver(rp_request *r, struct MHD_Response *response, int shared, unsigned status);

uint64_t rp_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/// Adds "Name: value\n" lines to a response (lines without a colon are skipped).
static void rp_add_header_lines(struct MHD_Response *response, const char *headers) {
    if (response == NULL || headers == NULL) return;
    const char *line = headers;
    while (*line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *colon = memchr(line, ':', len);
        if (colon != NULL) {
            char *name = strndup(line, (size_t)(colon - line));
            const char *v = colon + 1;
            while (v < line + len && *v == ' ') v++;
            char *value = strndup(v, (size_t)(line + len - v));
            if (name && value) MHD_add_response_header(response, name, value);
            free(name);
            free(value);
        }
        if (!end) break;
        line = end + 1;
    }
}

static struct rp_conn *rp_conn_of(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? (struct rp_conn *)info->socket_context : NULL;
}

static void rp_conn_enter(struct rp_conn *c, int phase) {
    if (c == NULL) return;
    atomic_store(&c->body_bytes, 0);
    atomic_store(&c->phase_start_ns, rp_monotonic_ns());
    atomic_store(&c->phase, phase);
}

static void rp_format_address(const struct sockaddr *address, char *out, size_t out_len) {
    out[0] = 0;
    if (address == NULL) return;
    if (address->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, out, (socklen_t)out_len);
    } else if (address->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)address)->sin6_addr;
        // An IPv4 client on a dual-stack socket: show it as IPv4.
        if (IN6_IS_ADDR_V4MAPPED(a)) {
            inet_ntop(AF_INET, &a->s6_addr[12], out, (socklen_t)out_len);
        } else {
            inet_ntop(AF_INET6, a, out, (socklen_t)out_len);
        }
    }
}

static void rp_notify_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
                                 enum MHD_ConnectionNotificationCode code) {
    struct rp_server *server = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        struct rp_conn *c = calloc(1, sizeof(struct rp_conn));
        *socket_context = c;
        if (c == NULL) return;
        const union MHD_ConnectionInfo *fd = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        c->fd = fd ? fd->connect_fd : MHD_INVALID_SOCKET;
        c->connection = connection;
        c->owner = pthread_self();
        const union MHD_ConnectionInfo *address = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        rp_format_address(address ? address->client_addr : NULL, c->peer, sizeof c->peer);
        atomic_init(&c->phase, RP_PHASE_HEADERS);
        atomic_init(&c->phase_start_ns, rp_monotonic_ns());
        atomic_init(&c->body_bytes, 0);
        pthread_mutex_lock(&server->conns_lock);
        c->next = server->conns;
        if (server->conns) server->conns->prev = c;
        server->conns = c;
        pthread_mutex_unlock(&server->conns_lock);
        atomic_fetch_add(&server->open_connections, 1);
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        // libmicrohttpd closes the socket only after this notification, so the sweeper (which
        // holds conns_lock while it shuts sockets down) never touches a reused descriptor.
        struct rp_conn *c = *socket_context;
        if (c == NULL) return;
        pthread_mutex_lock(&server->conns_lock);
        if (c->prev) c->prev->next = c->next;
        else server->conns = c->next;
        if (c->next) c->next->prev = c->prev;
        pthread_mutex_unlock(&server->conns_lock);
        atomic_fetch_sub(&server->open_connections, 1);
        free(c);
        *socket_context = NULL;
    }
}

/// Shuts down the sockets of connections past their header deadline or behind the body rate.
static void rp_sweep_once(struct rp_server *s) {
    uint64_t now = rp_monotonic_ns();
    pthread_mutex_lock(&s->conns_lock);
    for (struct rp_conn *c = s->conns; c != NULL; c = c->next) {
        int phase = atomic_load(&c->phase);
        uint64_t start = atomic_load(&c->phase_start_ns);
        if (now <= start || c->fd == MHD_INVALID_SOCKET) continue;
        uint64_t elapsed = now - start;
        if (phase == RP_PHASE_HEADERS && s->header_timeout_ns > 0) {
            if (elapsed <= s->header_timeout_ns) continue;
            int expected = RP_PHASE_HEADERS;
            if (atomic_compare_exchange_strong(&c->phase, &expected, RP_PHASE_CLOSING)) {
                shutdown(c->fd, SHUT_RDWR);
                atomic_fetch_add(&s->closed_slow_headers, 1);
            }
        } else if (phase == RP_PHASE_BODY && s->min_body_rate > 0) {
            uint64_t bytes = atomic_load(&c->body_bytes);
            // The deadline moves one second later per `min_body_rate` bytes (no overflow: a body
            // is at most a few MB here, and the product is checked anyway).
            uint64_t earned = bytes >= (UINT64_MAX / 1000000000ull) ? UINT64_MAX / 2 : bytes * 1000000000ull / s->min_body_rate;
            if (elapsed <= s->body_grace_ns + earned) continue;
            int expected = RP_PHASE_BODY;
            if (atomic_compare_exchange_strong(&c->phase, &expected, RP_PHASE_CLOSING)) {
                shutdown(c->fd, SHUT_RDWR);
                atomic_fetch_add(&s->closed_slow_bodies, 1);
            }
        }
    }
    pthread_mutex_unlock(&s->conns_lock);
}

static void *rp_sweeper(void *argument) {
    struct rp_server *s = argument;
    pthread_mutex_lock(&s->sweep_lock);
    while (!s->sweep_stop) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        uint64_t ns = (uint64_t)until.tv_nsec + RP_SWEEP_INTERVAL_NS;
        until.tv_sec += (time_t)(ns / 1000000000ull);
        until.tv_nsec = (long)(ns % 1000000000ull);
        pthread_cond_timedwait(&s->sweep_cond, &s->sweep_lock, &until);
        if (s->sweep_stop) break;
        pthread_mutex_unlock(&s->sweep_lock);
        rp_sweep_once(s);
        pthread_mutex_lock(&s->sweep_lock);
    }
    pthread_mutex_unlock(&s->sweep_lock);
    return NULL;
}

/// What libmicrohttpd makes of a Content-Length value (MHD_str_to_uint64_n_ in
/// parse_connection_headers): 0 = a length it reads, 413 = digits past 2^64 - 1, 400 = anything
/// else (empty, a sign, a space, a list, a letter).
static unsigned rp_content_length_verdict(const char *value) {
    uint64_t n = 0;
    size_t digits = 0;
    for (const char *p = value; *p >= '0' && *p <= '9'; p++, digits++) {
        unsigned d = (unsigned)(*p - '0');
        if (n > (UINT64_MAX - d) / 10) return 413;
        n = n * 10 + d;
    }
    return (digits == 0 || value[digits] != 0) ? 400 : 0;
}

/// Answers a request whose Content-Length libmicrohttpd is about to refuse, once, and closes it.
///
/// libmicrohttpd 0.9.75 (Debian 12's) queues its own 400/413 for a malformed or overflowing
/// Content-Length, then its state machine builds the response head a second time: the client gets
/// the status line and headers twice, then an HTML body (fixed upstream in 1.0.0: the state after
/// parse_connection_headers is checked). No callback of ours runs for such a request, but
/// libmicrohttpd logs the refusal on the connection's own thread just before: this, called from
/// the logger, finds the owning thread's connection whose headers are in and whose Content-Length
/// libmicrohttpd cannot read, writes one well-formed JSON answer (with the security headers) and
/// shuts the socket down, so the doubled answer that follows is never sent.
static void rp_answer_bad_content_length(struct rp_server *s) {
    pthread_t self = pthread_self();
    pthread_mutex_lock(&s->conns_lock);
    for (struct rp_conn *c = s->conns; c != NULL; c = c->next) {
        // Only this thread's connections: their header lists are not changing under us.
        if (c->connection == NULL || c->fd == MHD_INVALID_SOCKET || !pthread_equal(c->owner, self)) continue;
        if (atomic_load(&c->phase) != RP_PHASE_HEADERS) continue;
        if (MHD_lookup_connection_value(c->connection, MHD_HEADER_KIND, "Transfer-Encoding") != NULL) continue;
        const char *length = MHD_lookup_connection_value(c->connection, MHD_HEADER_KIND, "Content-Length");
        unsigned status = length ? rp_content_length_verdict(length) : 0;
        if (status == 0) continue;
        int expected = RP_PHASE_HEADERS;
        if (!atomic_compare_exchange_strong(&c->phase, &expected, RP_PHASE_CLOSING)) continue;
        const char *body = status == 413
            ? "{\"error\":{\"code\":\"too_large\",\"message\":\"Content-Length is past any body this server reads\"}}\n"
            : "{\"error\":{\"code\":\"invalid_content_length\",\"message\":\"Content-Length must be one whole number of bytes (digits only)\"}}\n";
        char head[2048];
        int used = snprintf(head, sizeof head, "HTTP/1.1 %u %s\r\nContent-Type: application/json\r\nConnection: close\r\n", status,
                            status == 413 ? "Content Too Large" : "Bad Request");
        // The server's security headers, "Name: value\n" lines, as on every other answer.
        for (const char *line = s->default_headers; line != NULL && *line && used > 0 && (size_t)used < sizeof head;) {
            const char *end = strchr(line, '\n');
            size_t len = end ? (size_t)(end - line) : strlen(line);
            if (memchr(line, ':', len) != NULL) used += snprintf(head + used, sizeof head - (size_t)used, "%.*s\r\n", (int)len, line);
            line = end ? end + 1 : NULL;
        }
        if (used > 0 && (size_t)used < sizeof head) {
            used += snprintf(head + used, sizeof head - (size_t)used, "Content-Length: %zu\r\n\r\n%s", strlen(body), body);
        }
        if (used > 0 && (size_t)used < sizeof head) (void)send(c->fd, head, (size_t)used, MSG_NOSIGNAL);
        shutdown(c->fd, SHUT_RDWR);
        break;
    }
    pthread_mutex_unlock(&s->conns_lock);
}

/// libmicrohttpd's error log (MHD_OPTION_EXTERNAL_LOGGER): only the Content-Length refusal is
/// acted on (see rp_answer_bad_content_length); nothing is printed.
static void rp_log(void *cls, const char *format, va_list arguments) {
    (void)arguments;
    if (format != NULL && strstr(format, "Content-Length") != NULL) rp_answer_bad_content_length(cls);
}

/// MHD_OPTION_URI_LOG_CALLBACK: called with the request-target before libmicrohttpd decodes it;
/// what it returns is the request's `*req_cls` (set up by rp_access).
static void *rp_uri_log(void *cls, const char *uri, struct MHD_Connection *connection) {
    (void)cls;
    (void)connection;
    struct rp_request *r = calloc(1, sizeof(struct rp_request));
    if (r == NULL) return NULL;
    r->raw_uri = strdup(uri ? uri : "");
    return r;
}

/// Sets up `r` (made by rp_uri_log, or here); 0, or -1 when out of memory (the caller frees it).
static int rp_request_init(struct rp_request *r, struct rp_server *server, struct MHD_Connection *connection,
                           const char *method, const char *url) {
    r->server = server;
    r->connection = connection;
    // Recursive: the handler runs with the mutex held and may answer synchronously.
    pthread_mutexattr_t attributes;
    pthread_mutexattr_init(&attributes);
    pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&r->mutex, &attributes);
    pthread_mutexattr_destroy(&attributes);
    r->method = strdup(method ? method : "");
    r->path = strdup(url ? url : "/");
    r->start_ns = rp_monotonic_ns();
    r->initialized = 1;
    if (r->method == NULL || r->path == NULL) return -1;
    return 0;
}

static void rp_request_free(struct rp_request *r) {
    if (r == NULL) return;
    if (r->response != NULL && !r->response_shared) MHD_destroy_response(r->response);
    free(r->method);
    free(r->path);
    free(r->raw_uri);
    free(r->body);
    if (r->initialized) pthread_mutex_destroy(&r->mutex);
    free(r);
}

static enum MHD_Result rp_queue_error(struct rp_server *server, struct MHD_Connection *connection, unsigned status) {
    static const char body[] = "{\"error\":{\"code\":\"server_error\",\"message\":\"out of memory\"}}";
    struct MHD_Response *response =
        MHD_create_response_from_buffer(sizeof(body) - 1, (void *)body, MHD_RESPMEM_PERSISTENT);
    if (response == NULL) return MHD_NO;
    MHD_add_response_header(response, "Content-Type", "application/json");
    rp_add_header_lines(response, server->default_headers);
    enum MHD_Result result = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return result;
}

/// Whether the request announces a body (a non-zero Content-Length, or any Transfer-Encoding).
static int rp_announces_body(struct MHD_Connection *connection) {
    if (MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Transfer-Encoding") != NULL) return 1;
    const char *length = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Content-Length");
    if (length == NULL) return 0;
    for (const char *p = length; *p; p++) {
        if (*p != '0' && *p != ' ' && *p != '\t') return 1;
    }
    return 0;
}

/// Queues the response the handler or gate left in `r` (state ANSWERED). Called with r->mutex held;
/// unlocks it.
static enum MHD_Result rp_queue_answer(struct rp_request *r, struct MHD_Connection *connection, int close_connection) {
    r->state = RP_QUEUED;
    struct MHD_Response *response = r->response;
    unsigned status = r->status;
    int shared = r->response_shared;
    r->response = NULL;
    r->response_shared = 0;
    pthread_mutex_unlock(&r->mutex);
    if (response == NULL) return rp_queue_error(r->server, connection, 500);
    if (close_connection && !shared) MHD_add_response_header(response, "Connection", "close");
    enum MHD_Result result = MHD_queue_response(connection, status, response);
    if (!shared) MHD_destroy_response(response);
    return result;
}

static enum MHD_Result rp_access(void *cls, struct MHD_Connection *connection, const char *url,
                                 const char *method, const char *version, const char *upload_data,
                                 size_t *upload_data_size, void **req_cls) {
    (void)version;
    struct rp_server *server = cls;
    struct rp_request *r = *req_cls;
    if (r == NULL || !r->initialized) {
        // The request line and headers are in; no body byte has been read yet.
        if (r == NULL) {
            r = calloc(1, sizeof(struct rp_request));
            if (r == NULL) return MHD_NO;
            *req_cls = r;
        }
        int made = rp_request_init(r, server, connection, method, url);
        // Counted once set up (rp_completed takes it off again), even when out of memory.
        atomic_fetch_add(&server->in_flight, 1);
        if (made != 0) return MHD_NO;
        r->conn = rp_conn_of(connection);
        if (r->conn != NULL) memcpy(r->peer, r->conn->peer, sizeof r->peer);
        r->has_body = rp_announces_body(connection);
        size_t max_body = 0;
        pthread_mutex_lock(&r->mutex);
        int proceed = server->gate(server->context, r, &max_body);
        if (!proceed) {
            rp_conn_enter(r->conn, RP_PHASE_OTHER);
            if (r->state != RP_ANSWERED) {
                pthread_mutex_unlock(&r->mutex);
                return rp_queue_error(server, connection, 500);
            }
            // libmicrohttpd does not read a body refused at this point; the client may still be
            // sending it, so the connection closes after the answer.
            return rp_queue_answer(r, connection, r->has_body);
        }
        r->max_body = max_body;
        pthread_mutex_unlock(&r->mutex);
        rp_conn_enter(r->conn, r->has_body ? RP_PHASE_BODY : RP_PHASE_OTHER);
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (r->conn != NULL) atomic_fetch_add(&r->conn->body_bytes, (uint64_t)n);
        if (r->too_large) {
            // Read and dropped (chunked bodies have no length to refuse up front); a client that
            // keeps going far past the bound is cut off.
            r->discarded += n;
            size_t bound = r->max_body > 65536 ? r->max_body * 2 : 131072;
            return r->discarded > bound ? MHD_NO : MHD_YES;
        }
        if (r->body_length + n > r->max_body) {
            r->too_large = 1;
            r->discarded = r->body_length + n;
            free(r->body);
            r->body = NULL;
            r->body_length = 0;
            r->body_capacity = 0;
            return MHD_YES;
        }
        if (r->body_length + n > r->body_capacity) {
            size_t capacity = r->body_capacity ? r->body_capacity * 2 : 512;
            while (capacity < r->body_length + n) capacity *= 2;
            if (capacity > r->max_body) capacity = r->max_body;
            uint8_t *grown = realloc(r->body, capacity);
            if (grown == NULL) return MHD_NO;
            r->body = grown;
            r->body_capacity = capacity;
        }
        memcpy(r->body + r->body_length, upload_data, n);
        r->body_length += n;
        return MHD_YES;
    }
    // Final call for this request (or a call after resume).
    pthread_mutex_lock(&r->mutex);
    if (r->state == RP_COLLECTING) {
        rp_conn_enter(r->conn, RP_PHASE_OTHER);
        r->state = RP_DISPATCHED;
        if (atomic_load(&server->stopping)) {
            // A request that arrived on a kept-alive connection after the server began to stop:
            // answered here (the mutex is recursive), never handed to a handler that would
            // suspend it while MHD_stop_daemon runs.
            static const char body[] =
                "{\"error\":{\"code\":\"shutting_down\",\"message\":\"the server is shutting down; retry later\"}}\n";
            rp_request_respond(r, 503, "application/json", (const uint8_t *)body, sizeof body - 1, "Retry-After: 1\n");
            return rp_queue_answer(r, connection, 0);
        }
        // The handler may answer synchronously (state becomes ANSWERED) or later. We hold the
        // mutex while it runs so a later answer from another thread waits until we suspended.
        int answered = server->handler(server->context, r);
        if (!answered && r->state != RP_ANSWERED) {
            MHD_suspend_connection(connection);
            atomic_fetch_add(&server->suspended, 1);
            r->state = RP_SUSPENDED;
            pthread_mutex_unlock(&r->mutex);
            return MHD_YES;
        }
    }
    if (r->state == RP_ANSWERED) return rp_queue_answer(r, connection, 0);
    pthread_mutex_unlock(&r->mutex);
    return MHD_YES;
}

static void rp_completed(void *cls, struct MHD_Connection *connection, void **req_cls,
                         enum MHD_RequestTerminationCode toe) {
    (void)connection;
    (void)toe;
    struct rp_server *server = cls;
    struct rp_request *r = *req_cls;
    if (r == NULL) return;
    if (r->initialized) {
        // A kept-alive connection now waits for its next request: the header deadline starts again.
        rp_conn_enter(r->conn, RP_PHASE_HEADERS);
        atomic_fetch_sub(&server->in_flight, 1);
    }
    rp_request_free(r);
    *req_cls = NULL;
}

static void rp_server_release(struct rp_server *server) {
    free(server->default_headers);
    pthread_mutex_destroy(&server->conns_lock);
    pthread_mutex_destroy(&server->sweep_lock);
    pthread_cond_destroy(&server->sweep_cond);
    free(server);
}

rp_server *rp_server_start(const char *host, uint16_t port, unsigned threads, const rp_limits *limits,
                           const char *default_headers, rp_gate gate, rp_handler handler, void *context,
                           char *error, size_t error_len) {
    struct rp_server *server = calloc(1, sizeof(struct rp_server));
    if (server == NULL) {
        snprintf(error, error_len, "out of memory");
        return NULL;
    }
    server->gate = gate;
    server->handler = handler;
    server->context = context;
    server->default_headers = default_headers ? strdup(default_headers) : NULL;
    atomic_init(&server->in_flight, 0);
    atomic_init(&server->stopping, 0);
    atomic_init(&server->suspended, 0);
    atomic_init(&server->draining, 0);
    atomic_init(&server->open_connections, 0);
    atomic_init(&server->closed_slow_headers, 0);
    atomic_init(&server->closed_slow_bodies, 0);
    pthread_mutex_init(&server->conns_lock, NULL);
    pthread_mutex_init(&server->sweep_lock, NULL);
    pthread_condattr_t cond_attributes;
    pthread_condattr_init(&cond_attributes);
    pthread_condattr_setclock(&cond_attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&server->sweep_cond, &cond_attributes);
    pthread_condattr_destroy(&cond_attributes);
    server->header_timeout_ns = (uint64_t)limits->header_timeout_ms * 1000000ull;
    server->body_grace_ns = server->header_timeout_ns > 0 ? server->header_timeout_ns : RP_DEFAULT_BODY_GRACE_NS;
    server->min_body_rate = limits->min_body_rate;

    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    struct sockaddr *address = NULL;
    // MHD_USE_ERROR_LOG: libmicrohttpd's log goes to rp_log (which prints nothing).
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_TURBO | MHD_USE_ERROR_LOG;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    const char *h = (host == NULL || strcmp(host, "localhost") == 0) ? "127.0.0.1" : host;
    if (inet_pton(AF_INET, h, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(port);
        address = (struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, h, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(port);
        address = (struct sockaddr *)&v6;
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(error, error_len, "'%s' is not an IPv4 or IPv6 address (use e.g. 127.0.0.1, 0.0.0.0 or ::1)", h);
        rp_server_release(server);
        return NULL;
    }
    if (threads < 1) threads = 1;
    server->daemon = MHD_start_daemon(
        flags, port, NULL, NULL, &rp_access, server,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)threads,
        MHD_OPTION_NOTIFY_COMPLETED, &rp_completed, server,
        MHD_OPTION_URI_LOG_CALLBACK, &rp_uri_log, server,
        MHD_OPTION_NOTIFY_CONNECTION, &rp_notify_connection, server,
        MHD_OPTION_EXTERNAL_LOGGER, &rp_log, server,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)limits->idle_timeout_seconds,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned int)limits->max_connections,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)limits->max_connections_per_ip,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)limits->connection_memory,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)4096,
        MHD_OPTION_END);
    if (server->daemon == NULL) {
        snprintf(error, error_len, "cannot listen on %s port %u (address in use, or not a local address?)", h, (unsigned)port);
        rp_server_release(server);
        return NULL;
    }
    server->accepted = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    rp_add_header_lines(server->accepted, server->default_headers);
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(server->daemon, MHD_DAEMON_INFO_BIND_PORT);
    server->port = info ? info->port : port;
    if (server->header_timeout_ns > 0 || server->min_body_rate > 0) {
        server->sweeper_started = pthread_create(&server->sweeper, NULL, &rp_sweeper, server) == 0;
        if (!server->sweeper_started) {
            snprintf(error, error_len, "cannot start the slow-client sweeper thread");
            MHD_stop_daemon(server->daemon);
            if (server->accepted != NULL) MHD_destroy_response(server->accepted);
            rp_server_release(server);
            return NULL;
        }
    }
    return server;
}

uint16_t rp_server_port(const rp_server *server) { return server->port; }

void rp_server_quiesce(rp_server *server) {
    // From now on every response carries "Connection: close", so kept-alive clients go away.
    if (server->daemon == NULL) return;
    atomic_store(&server->draining, 1);
    MHD_socket fd = MHD_quiesce_daemon(server->daemon);
    if (fd != MHD_INVALID_SOCKET) close(fd);
}

long rp_server_in_flight(rp_server *server) { return atomic_load(&server->in_flight); }
long rp_server_open_connections(rp_server *server) { return atomic_load(&server->open_connections); }
long rp_server_closed_slow_headers(rp_server *server) { return atomic_load(&server->closed_slow_headers); }
long rp_server_closed_slow_bodies(rp_server *server) { return atomic_load(&server->closed_slow_bodies); }

void rp_server_stop(rp_server *server) {
    if (server == NULL || server->daemon == NULL) return;
    // No new suspension from here on; the answers already on their way (endpoint tasks) get up
    // to 10 s to resume their connections, since MHD_stop_daemon aborts while one is suspended.
    atomic_store(&server->stopping, 1);
    for (int waited_ms = 0; atomic_load(&server->suspended) > 0 && waited_ms < 10000; waited_ms++) {
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    if (server->sweeper_started) {
        pthread_mutex_lock(&server->sweep_lock);
        server->sweep_stop = 1;
        pthread_cond_signal(&server->sweep_cond);
        pthread_mutex_unlock(&server->sweep_lock);
        pthread_join(server->sweeper, NULL);
        server->sweeper_started = 0;
    }
    MHD_stop_daemon(server->daemon);
    server->daemon = NULL;
    if (server->accepted != NULL) MHD_destroy_response(server->accepted);
    server->accepted = NULL;
}

void rp_server_free(rp_server *server) {
    if (server == NULL) return;
    rp_server_stop(server);
    rp_server_release(server);
}

long rp_request_open_connections(const rp_request *request) { return atomic_load(&request->server->open_connections); }

const char *rp_request_method(const rp_request *request) { return request->method; }
const char *rp_request_path(const rp_request *request) { return request->path; }
const char *rp_request_raw_uri(const rp_request *request) { return request->raw_uri; }
const char *rp_request_peer(const rp_request *request) { return request->peer; }

const char *rp_request_header(const rp_request *request, const char *name) {
    return MHD_lookup_connection_value(request->connection, MHD_HEADER_KIND, name);
}

/// Finds the n-th header with a name (MHD_get_connection_values iterator state).
struct rp_header_scan {
    const char *name;
    size_t wanted;
    size_t seen;
    const char *value;
};

static enum MHD_Result rp_scan_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    struct rp_header_scan *scan = cls;
    if (key == NULL || strcasecmp(key, scan->name) != 0) return MHD_YES;
    if (scan->seen == scan->wanted) {
        scan->value = value ? value : "";
        return MHD_NO;
    }
    scan->seen++;
    return MHD_YES;
}

size_t rp_request_header_count(const rp_request *request, const char *name) {
    struct rp_header_scan scan = {name, (size_t)-1, 0, NULL};
    MHD_get_connection_values(request->connection, MHD_HEADER_KIND, &rp_scan_header, &scan);
    return scan.seen;
}

const char *rp_request_header_at(const rp_request *request, const char *name, size_t index) {
    struct rp_header_scan scan = {name, index, 0, NULL};
    MHD_get_connection_values(request->connection, MHD_HEADER_KIND, &rp_scan_header, &scan);
    return scan.value;
}

const char *rp_request_query(const rp_request *request, const char *name) {
    return MHD_lookup_connection_value(request->connection, MHD_GET_ARGUMENT_KIND, name);
}

/// rp_request_each's iterator state.
struct rp_pair_walk {
    rp_pair_visitor visit;
    void *context;
};

static enum MHD_Result rp_walk_pair(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size, const char *value,
                                    size_t value_size) {
    (void)kind;
    (void)key_size;
    struct rp_pair_walk *walk = cls;
    if (key != NULL) walk->visit(walk->context, key, value, value != NULL ? value_size : 0);
    return MHD_YES;
}

void rp_request_each(const rp_request *request, int query, rp_pair_visitor visit, void *context) {
    struct rp_pair_walk walk = {visit, context};
    MHD_get_connection_values_n(request->connection, query ? MHD_GET_ARGUMENT_KIND : MHD_HEADER_KIND, &rp_walk_pair, &walk);
}

const uint8_t *rp_request_body(const rp_request *request, size_t *length) {
    *length = request->body_length;
    return request->body;
}

int rp_request_body_too_large(const rp_request *request) { return request->too_large; }
uint64_t rp_request_start_ns(const rp_request *request) { return request->start_ns; }

void rp_request_respond(rp_request *r, unsigned status, const char *content_type, const uint8_t *body,
                        size_t body_length, const char *headers) {
    struct MHD_Response *response =
        MHD_create_response_from_buffer(body_length, (void *)(body ? body : (const uint8_t *)""), MHD_RESPMEM_MUST_COPY);
    if (response != NULL) {
        if (content_type != NULL && body_length > 0) MHD_add_response_header(response, "Content-Type", content_type);
        rp_add_header_lines(response, r->server->default_headers);
        rp_add_header_lines(response, headers);
    }
    if (response != NULL && atomic_load(&r->server->draining)) MHD_add_response_header(response, "Connection", "close");
    rp_request_deliver(r, response, 0, status);
}

void rp_request_respond_fd(rp_request *r, unsigned status, const char *content_type, int fd, uint64_t length,
                           const char *headers) {
    struct MHD_Response *response = MHD_create_response_from_fd64(length, fd);
    if (response == NULL) {
        close(fd);
    } else {
        if (content_type != NULL) MHD_add_response_header(response, "Content-Type", content_type);
        rp_add_header_lines(response, r->server->default_headers);
        rp_add_header_lines(response, headers);
        if (atomic_load(&r->server->draining)) MHD_add_response_header(response, "Connection", "close");
    }
    rp_request_deliver(r, response, 0, status);
}

void rp_request_respond_empty(rp_request *r, unsigned status) {
    if (status == 202 && r->server->accepted != NULL && !atomic_load(&r->server->draining)) {
        rp_request_deliver(r, r->server->accepted, 1, status);
        return;
    }
    rp_request_respond(r, status, NULL, NULL, 0, NULL);
}

static void rp_request_deliver(rp_request *r, struct MHD_Response *response, int shared, unsigned status) {
    pthread_mutex_lock(&r->mutex);
    r->response = response;
    r->response_shared = shared;
    r->status = status;
    int was_suspended = (r->state == RP_SUSPENDED);
    r->state = RP_ANSWERED;
    // Read before the resume: once resumed, another thread may complete and free r.
    struct rp_server *server = r->server;
    struct MHD_Connection *connection = r->connection;
    pthread_mutex_unlock(&r->mutex);
    if (was_suspended) {
        MHD_resume_connection(connection);
        atomic_fetch_sub(&server->suspended, 1);
    }
}
