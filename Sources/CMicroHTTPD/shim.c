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
#include <time.h>
#include <unistd.h>

enum rp_state { RP_COLLECTING = 0, RP_DISPATCHED = 1, RP_SUSPENDED = 2, RP_ANSWERED = 3, RP_QUEUED = 4 };

struct rp_server {
    struct MHD_Daemon *daemon;
    rp_handler handler;
    void *context;
    size_t max_body;
    atomic_long in_flight;
    atomic_int draining;
    uint16_t port;
    // Paths with a larger body bound (POST /v1/pushes carries up to 10,000 device tokens):
    // '|'-separated patterns, '*' standing for one path segment.
    char large_path[128];
    _Atomic size_t large_max;
    /// One empty 202 response shared by every accepted receipt (libmicrohttpd counts its
    /// references; ours is dropped in rp_server_stop).
    struct MHD_Response *accepted;
};

struct rp_request {
    struct rp_server *server;
    struct MHD_Connection *connection;
    pthread_mutex_t mutex;
    int state;
    int too_large;
    int dispatched;
    char *method;
    char *path;
    uint8_t *body;
    size_t body_length;
    size_t body_capacity;
    uint64_t start_ns;
    size_t max_body;
    struct MHD_Response *response;
    /// 1 when `response` is the server's shared one (never destroyed per request).
    int response_shared;
    unsigned status;
};

static void rp_request_deliver(rp_request *r, struct MHD_Response *response, int shared, unsigned status);

/// Whether `path` matches one of the '|'-separated `patterns`; '*' matches one non-empty path
/// segment (no '/'), e.g. "/v1/pushes|/v1/pushes/*/sends".
static int rp_path_matches(const char *patterns, const char *path) {
    const char *p = patterns;
    while (*p != '\0') {
        const char *end = strchr(p, '|');
        if (end == NULL) end = p + strlen(p);
        const char *q = p, *s = path;
        int ok = 1;
        while (q < end) {
            if (*q == '*') {
                if (*s == '\0' || *s == '/') { ok = 0; break; }
                while (*s != '\0' && *s != '/') s++;
                q++;
            } else if (*s == *q) {
                s++;
                q++;
            } else {
                ok = 0;
                break;
            }
        }
        if (ok && *s == '\0') return 1;
        p = *end == '|' ? end + 1 : end;
    }
    return 0;
}

uint64_t rp_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct rp_request *rp_request_new(struct rp_server *server, struct MHD_Connection *connection,
                                         const char *method, const char *url) {
    struct rp_request *r = calloc(1, sizeof(struct rp_request));
    if (r == NULL) return NULL;
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
    r->max_body = server->max_body;
    size_t large = atomic_load_explicit(&server->large_max, memory_order_acquire);
    if (large > 0 && r->path != NULL && rp_path_matches(server->large_path, r->path)) r->max_body = large;
    if (r->method == NULL || r->path == NULL) {
        free(r->method);
        free(r->path);
        pthread_mutex_destroy(&r->mutex);
        free(r);
        return NULL;
    }
    return r;
}

static void rp_request_free(struct rp_request *r) {
    if (r == NULL) return;
    if (r->response != NULL && !r->response_shared) MHD_destroy_response(r->response);
    free(r->method);
    free(r->path);
    free(r->body);
    pthread_mutex_destroy(&r->mutex);
    free(r);
}

static enum MHD_Result rp_queue_error(struct MHD_Connection *connection, unsigned status) {
    static const char body[] = "{\"error\":{\"code\":\"server_error\",\"message\":\"out of memory\"}}";
    struct MHD_Response *response =
        MHD_create_response_from_buffer(sizeof(body) - 1, (void *)body, MHD_RESPMEM_PERSISTENT);
    if (response == NULL) return MHD_NO;
    MHD_add_response_header(response, "Content-Type", "application/json");
    enum MHD_Result result = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return result;
}

static enum MHD_Result rp_access(void *cls, struct MHD_Connection *connection, const char *url,
                                 const char *method, const char *version, const char *upload_data,
                                 size_t *upload_data_size, void **req_cls) {
    (void)version;
    struct rp_server *server = cls;
    struct rp_request *r = *req_cls;
    if (r == NULL) {
        r = rp_request_new(server, connection, method, url);
        if (r == NULL) return MHD_NO;
        atomic_fetch_add(&server->in_flight, 1);
        *req_cls = r;
        // A declared body far over the bound is refused at once (413, connection closed)
        // instead of reading megabytes only to discard them.
        const char *length = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Content-Length");
        if (length != NULL && strtoull(length, NULL, 10) > (unsigned long long)r->max_body * 8) {
            static const char body[] =
                "{\"error\":{\"code\":\"too_large\",\"message\":\"the declared body is far over the server's bound\"}}\n";
            r->too_large = 1;
            r->state = RP_QUEUED;
            struct MHD_Response *response =
                MHD_create_response_from_buffer(sizeof(body) - 1, (void *)body, MHD_RESPMEM_PERSISTENT);
            if (response == NULL) return MHD_NO;
            MHD_add_response_header(response, "Content-Type", "application/json");
            MHD_add_response_header(response, "Connection", "close");
            enum MHD_Result result = MHD_queue_response(connection, 413, response);
            MHD_destroy_response(response);
            return result;
        }
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (r->too_large) return MHD_YES;
        if (r->body_length + n > r->max_body) {
            r->too_large = 1;
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
        r->state = RP_DISPATCHED;
        r->dispatched = 1;
        // The handler may answer synchronously (state becomes ANSWERED) or later. We hold the
        // mutex while it runs so a later answer from another thread waits until we suspended.
        int answered = server->handler(server->context, r);
        if (!answered && r->state != RP_ANSWERED) {
            MHD_suspend_connection(connection);
            r->state = RP_SUSPENDED;
            pthread_mutex_unlock(&r->mutex);
            return MHD_YES;
        }
    }
    if (r->state == RP_ANSWERED) {
        r->state = RP_QUEUED;
        struct MHD_Response *response = r->response;
        unsigned status = r->status;
        int shared = r->response_shared;
        r->response = NULL;
        r->response_shared = 0;
        pthread_mutex_unlock(&r->mutex);
        if (response == NULL) return rp_queue_error(connection, 500);
        enum MHD_Result result = MHD_queue_response(connection, status, response);
        if (!shared) MHD_destroy_response(response);
        return result;
    }
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
    atomic_fetch_sub(&server->in_flight, 1);
    rp_request_free(r);
    *req_cls = NULL;
}

rp_server *rp_server_start(const char *host, uint16_t port, unsigned threads, size_t max_body,
                           rp_handler handler, void *context, char *error, size_t error_len) {
    struct rp_server *server = calloc(1, sizeof(struct rp_server));
    if (server == NULL) {
        snprintf(error, error_len, "out of memory");
        return NULL;
    }
    server->handler = handler;
    server->context = context;
    server->max_body = max_body;
    atomic_init(&server->in_flight, 0);
    atomic_init(&server->draining, 0);
    atomic_init(&server->large_max, 0);

    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    struct sockaddr *address = NULL;
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_TURBO;
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
        free(server);
        return NULL;
    }
    if (threads < 1) threads = 1;
    server->daemon = MHD_start_daemon(
        flags, port, NULL, NULL, &rp_access, server,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)threads,
        MHD_OPTION_NOTIFY_COMPLETED, &rp_completed, server,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned int)4000,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)1024,
        MHD_OPTION_END);
    if (server->daemon == NULL) {
        snprintf(error, error_len, "cannot listen on %s port %u (address in use, or not a local address?)", h, (unsigned)port);
        free(server);
        return NULL;
    }
    server->accepted = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(server->daemon, MHD_DAEMON_INFO_BIND_PORT);
    server->port = info ? info->port : port;
    return server;
}

uint16_t rp_server_port(const rp_server *server) { return server->port; }

void rp_server_set_large_body(rp_server *server, const char *path, size_t max_body) {
    if (server == NULL || path == NULL || strlen(path) >= sizeof server->large_path) return;
    strcpy(server->large_path, path);
    atomic_store_explicit(&server->large_max, max_body, memory_order_release);
}

void rp_server_quiesce(rp_server *server) {
    // From now on every response carries "Connection: close", so kept-alive clients go away.
    atomic_store(&server->draining, 1);
    MHD_socket fd = MHD_quiesce_daemon(server->daemon);
    if (fd != MHD_INVALID_SOCKET) close(fd);
}

long rp_server_in_flight(rp_server *server) { return atomic_load(&server->in_flight); }

void rp_server_stop(rp_server *server) {
    if (server == NULL) return;
    MHD_stop_daemon(server->daemon);
    if (server->accepted != NULL) MHD_destroy_response(server->accepted);
    free(server);
}

const char *rp_request_method(const rp_request *request) { return request->method; }
const char *rp_request_path(const rp_request *request) { return request->path; }

const char *rp_request_header(const rp_request *request, const char *name) {
    return MHD_lookup_connection_value(request->connection, MHD_HEADER_KIND, name);
}

const char *rp_request_query(const rp_request *request, const char *name) {
    return MHD_lookup_connection_value(request->connection, MHD_GET_ARGUMENT_KIND, name);
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
        if (headers != NULL) {
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
    }
    if (response != NULL && atomic_load(&r->server->draining)) MHD_add_response_header(response, "Connection", "close");
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
    pthread_mutex_unlock(&r->mutex);
    if (was_suspended) MHD_resume_connection(r->connection);
}
