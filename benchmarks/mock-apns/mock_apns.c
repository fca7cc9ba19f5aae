/*
 * A fast mock APNs for benchmarks: HTTP/2 (libnghttp2) over TLS with ALPN h2 (OpenSSL) or
 * cleartext h2c, one thread, one epoll loop. Tests/Support/mock_apns.py (Python h2) answers about
 * 800-6,000 requests/s; this one answers far more, so a client's rate near the bound
 * (connections x streams / latency) can be measured. It serves what the benchmark scripts read
 * from the Python mock, with the same options and output:
 *
 *   POST /3/device/<hex token>   checks :method, the token (even-length hex, >= 64), the provider
 *                                token (an ES256 JWT whose signature is verified against the public
 *                                half of --key, once per distinct JWT; kid and iss must match; iat
 *                                younger than 1 h), apns-topic (= --topic), apns-collapse-id
 *                                (<= 64 bytes) and the payload (1..4096 bytes, 5120 for voip);
 *                                answers 200 with an apns-id header (the request's, else a new
 *                                UUID), or the status and {"reason": ...} APNs would give.
 *   GET /stats                   JSON: requests, accepted, connections, device_connections, jwts,
 *                                renewals, per_token, collapse_ids, distinct_tokens,
 *                                tokens_sent_twice (tokens with 2 or more requests),
 *                                duplicate_requests (requests beyond each token's first),
 *                                max_concurrent_streams (most streams open at once on one
 *                                connection), peak_open_streams (all connections),
 *                                stream_limit_violations (streams opened past the
 *                                SETTINGS_MAX_CONCURRENT_STREAMS this mock advertised; nghttp2
 *                                refuses them: RST_STREAM REFUSED_STREAM before the client has
 *                                acknowledged the SETTINGS, GOAWAY PROTOCOL_ERROR after),
 *                                refused_streams (the first kind), resets_received (RST_STREAM
 *                                frames from clients), goaways_sent, and the faults' counters
 *                                (below): answered, goaway_refused, refused_by_script,
 *                                reset_after_processing, settings_lowered, tcp_resets,
 *                                stalled_connections, reset_tokens, reset_connection_tokens,
 *                                stalled_tokens. GET /stats?per_token=0 leaves out per_token and
 *                                the token lists (a 1,000,000-token campaign makes per_token ~75 MB).
 *   POST /control/reset          zeroes every count and empties every list, the faults' too (a
 *                                benchmark's next run): a connection open across it counts again
 *                                in device_connections if it carries another /3/device request.
 *
 * A /3/device request is counted when it has arrived (its END_STREAM): an APNs that got it has
 * it, whatever happens to the answer (one exception: a connection whose scripted GOAWAY is still
 * to come, see --goaway-after). The answer goes out --delay-ms later, from a timerfd (a
 * FIFO of due times: the delay is the same for all), never by sleeping: other streams and
 * connections are served meanwhile.
 *
 * Options: --key AuthKey.p8 --key-id KEYID --team-id TEAMID [--topic T] [--ca-out CA.pem]
 *          [--no-tls] [--port 0] [--max-streams 1000] [--initial-streams N] [--delay-ms 0]
 *          [--stream-reset-limit N] [faults, below]
 * Without --key the provider token must still be there and well formed (ES256, iat younger than
 * 1 h; kid and iss only when --key-id and --team-id are given), its signature is not checked.
 * --stream-reset-limit: nghttp2's "rapid reset" protection (CVE-2023-44487; in nghttp2 since
 * 1.57, in Debian's 1.52.0-1+deb12u2): RST_STREAM frames from the client, N at once then 33/s,
 * beyond that GOAWAY (INTERNAL_ERROR). Default: nghttp2's own, 1000 then 33/s; 0: no limit.
 * libcurl 7.88 (Debian 12) sends RST_STREAM (STREAM_CLOSED) after every finished stream, so a
 * libcurl client meets it after ~1,000 requests on a connection (resets_received, goaways_sent).
 * --initial-streams 1 --max-streams 100: SETTINGS_MAX_CONCURRENT_STREAMS = 1 on a new
 * connection, raised to 100 once the first answer on it is sent (api.push.apple.com does this).
 * Prints "PORT n", then "CA path" (TLS: a throwaway CA written to --ca-out, which signed the
 * server certificate for 127.0.0.1 and localhost). Not here (tests use the Python mock for
 * them): --script, --goaway-drop, client certificates.
 *
 * Faults, scripted and counted (issue 27: a client must send each notification exactly once).
 * "Answered" below means a /3/device answer (any status) was submitted on the stream; N, K, M
 * are >= 1 unless said otherwise. The "first M connections" are counted from the start or from
 * the last POST /control/reset (M = 0 or absent: every connection). Each fault moves the /stats
 * counters named with it; the token lists are left out with ?per_token=0, like per_token.
 *
 * --goaway-after N [--goaway-keep K] [--goaway-connections M] [--goaway-two-step]
 *     After the Nth answered /3/device stream on a connection, GOAWAY (NO_ERROR) with a
 *     last-stream-id L = the highest stream processed (counted) on the connection so far,
 *     raised to keep the K lowest-numbered streams still open (default K = 0) below it. Streams
 *     at or below L are processed and answered (with --delay-ms, after the GOAWAY); streams
 *     above L are never processed: not counted in requests, per_token or anything else, never
 *     answered (nghttp2 closes them when the GOAWAY is sent and ignores streams opened after
 *     it; RFC 9113 §6.8: the client may send them again on another connection). To make that
 *     hold on a connection whose GOAWAY is still to come, a /3/device request there is
 *     processed (counted) when its answer is due (--delay-ms after its END_STREAM) instead of
 *     at its END_STREAM; so every counted stream is <= L, and with --delay-ms the requests
 *     that had arrived but were not processed yet can lie above L, as on a real server. Once
 *     every stream <= L is answered and written, the connection ends gracefully: close_notify
 *     (TLS) and FIN, then this mock reads and drops what the client still sends until it
 *     closes or 1 s has passed (never closed with unread bytes, so no TCP RST destroys
 *     answers the client has not read yet). Counters: goaways_sent (every GOAWAY frame sent,
 *     with the two-step's first), goaway_refused (streams the client opened above an L: those
 *     open when the GOAWAY was decided and those opened after it).
 *     --goaway-two-step: RFC 9113 §6.8's graceful shutdown. After the Nth answer, first a GOAWAY
 *     with last-stream-id 2^31-1 and a PING; streams keep being served; when the PING's ACK
 *     arrives (one round trip: the client has seen the first GOAWAY), or after 1 s without it,
 *     L is decided as above and the real GOAWAY follows. goaways_sent counts both.
 * --refuse-every N
 *     Every Nth /3/device stream whose request ended (one count for the whole server, zeroed by
 *     /control/reset) is answered with RST_STREAM (REFUSED_STREAM) and not processed: not in
 *     requests or per_token. Counter: refused_by_script.
 * --reset-every N [--reset-code CODE]
 *     Every Nth /3/device stream (the same count as --refuse-every; a stream both would pick is
 *     refused) is processed (counted in requests and per_token: this APNs has it) and then,
 *     when its answer is due, reset with RST_STREAM (CODE) instead of answered. CODE: a number
 *     or an RFC 9113 name (CANCEL, INTERNAL_ERROR, ...); default INTERNAL_ERROR (2). Counters:
 *     reset_after_processing, and reset_tokens: the tokens so reset (a list, in order).
 * --lower-streams-after N --lower-to M
 *     After the Nth answered /3/device stream on a connection, a new SETTINGS with
 *     SETTINGS_MAX_CONCURRENT_STREAMS = M (0 <= M < --max-streams), while streams are in
 *     flight. Streams past M are counted as always: stream_limit_violations, of which
 *     refused_streams are the ones nghttp2 refused (RST_STREAM REFUSED_STREAM, not processed)
 *     because the client had not acknowledged the new SETTINGS yet: legitimate, the client
 *     sent them before it saw M; the rest (after the ACK) are real violations and end the
 *     connection with GOAWAY (PROTOCOL_ERROR). Counter: settings_lowered (connections).
 * --tcp-reset-after N [--tcp-reset-connections M]
 *     After the Nth answered /3/device stream on a connection, everything submitted so far
 *     (the Nth answer with it) is written, then the connection is aborted with a TCP RST
 *     (SO_LINGER {1, 0}, close) while other streams are in flight. Requests that had ended
 *     before (and those in the same read) are processed: counted, never answered. Counters:
 *     tcp_resets, and reset_connection_tokens: the tokens processed on such a connection and
 *     never answered (in-flight streams whose request had not ended are not processed).
 * --never-answer
 *     /3/device requests are processed (counted at END_STREAM) and never answered; PINGs are
 *     still acknowledged, /stats still answers. Not with the faults that follow answers.
 * --stall-after N [--stall-connections M]
 *     After the Nth answered /3/device stream on a connection (and what was submitted with it,
 *     written), this mock stops serving that connection: it neither reads nor writes it again
 *     (no PING ACK, no answers, no window updates) and keeps the socket open until the client
 *     closes it. Counters: stalled_connections, and stalled_tokens: the tokens processed on
 *     such a connection (their END_STREAM read before the stall) and never answered.
 * answered (/stats): /3/device answers submitted, every connection.
 *
 * Build: make -C benchmarks/mock-apns (needs libnghttp2-dev and libssl-dev).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <nghttp2/nghttp2.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#define MAX_FDS 65536
#define READ_CHUNK 65536
#define WRITE_CHUNK 65536

/* ---------- options and counts ---------- */

static struct {
  const char *key, *key_id, *team_id, *topic, *ca_out;
  int no_tls, port;
  uint32_t max_streams, initial_streams;
  long delay_ms;
  long reset_burst; /* -1: nghttp2's default (1000, then 33/s); 0: no limit */
  /* Faults (0: off). */
  long goaway_after, goaway_keep, goaway_connections;
  int goaway_two_step, never_answer;
  long refuse_every, reset_every;
  uint32_t reset_code;
  long lower_after, lower_to;
  long tcp_reset_after, tcp_reset_connections;
  long stall_after, stall_connections;
} opt = {.max_streams = 1000, .reset_burst = -1, .reset_code = NGHTTP2_INTERNAL_ERROR, .lower_to = -1};

typedef struct {
  char *key;
  uint32_t count;
} slot_t;

typedef struct {
  slot_t *slots;
  size_t cap, used;
} map_t;

typedef struct {
  char **items;
  size_t len, cap;
} list_t;

static struct {
  uint64_t requests, accepted, connections, device_connections, duplicate_requests, tokens_twice;
  uint64_t stream_limit_violations, refused_streams, resets_received, goaways_sent;
  uint32_t max_concurrent_streams, open_streams, peak_open_streams, jwts;
  map_t per_token, collapse_ids;
  /* Faults: device_streams numbers the /3/device streams for --refuse-every and --reset-every. */
  uint64_t device_streams, answered, goaway_refused, refused_by_script, reset_after_processing;
  uint64_t settings_lowered, tcp_resets, stalled_connections;
  list_t reset_tokens, reset_connection_tokens, stalled_tokens;
} st;

static void die(const char *what) {
  fprintf(stderr, "mock-apns: %s\n", what);
  exit(1);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n);
  if (!p) die("out of memory");
  return p;
}

static char *xstrndup(const char *s, size_t n) {
  char *p = xmalloc(n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

/* ---------- a string -> count map (open addressing) ---------- */

static uint64_t hash(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
  return h;
}

static void map_grow(map_t *m) {
  size_t cap = m->cap ? m->cap * 2 : 1024;
  slot_t *slots = calloc(cap, sizeof(slot_t));
  if (!slots) die("out of memory");
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->slots[i].key) continue;
    size_t j = hash(m->slots[i].key, strlen(m->slots[i].key)) & (cap - 1);
    while (slots[j].key) j = (j + 1) & (cap - 1);
    slots[j] = m->slots[i];
  }
  free(m->slots);
  m->slots = slots;
  m->cap = cap;
}

/* Adds one to key's count; returns the new count. */
static uint32_t map_add(map_t *m, const char *key, size_t n) {
  if ((m->used + 1) * 10 > m->cap * 7) map_grow(m);
  size_t j = hash(key, n) & (m->cap - 1);
  while (m->slots[j].key) {
    if (strlen(m->slots[j].key) == n && memcmp(m->slots[j].key, key, n) == 0) return ++m->slots[j].count;
    j = (j + 1) & (m->cap - 1);
  }
  m->slots[j].key = xstrndup(key, n);
  m->slots[j].count = 1;
  m->used++;
  return 1;
}

static void map_clear(map_t *m) {
  for (size_t i = 0; i < m->cap; i++) free(m->slots[i].key);
  free(m->slots);
  memset(m, 0, sizeof(*m));
}

/* ---------- a list of strings (the tokens a fault left unanswered or reset) ---------- */

static void list_add(list_t *l, const char *s) {
  if (l->len == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 256;
    char **items = realloc(l->items, cap * sizeof(char *));
    if (!items) die("out of memory");
    l->items = items;
    l->cap = cap;
  }
  l->items[l->len++] = xstrndup(s, strlen(s));
}

static void list_clear(list_t *l) {
  for (size_t i = 0; i < l->len; i++) free(l->items[i]);
  free(l->items);
  memset(l, 0, sizeof(*l));
}

/* ---------- growable byte buffer ---------- */

typedef struct {
  char *data;
  size_t len, cap;
} buf_t;

static void buf_reserve(buf_t *b, size_t more) {
  if (b->len + more <= b->cap) return;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap < b->len + more) cap *= 2;
  char *data = realloc(b->data, cap);
  if (!data) die("out of memory");
  b->data = data;
  b->cap = cap;
}

static void buf_add(buf_t *b, const void *p, size_t n) {
  buf_reserve(b, n);
  memcpy(b->data + b->len, p, n);
  b->len += n;
}

static void buf_printf(buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_printf(buf_t *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  buf_reserve(b, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

/* JSON string (the keys here are hex tokens and collapse ids: escape what JSON requires). */
static void buf_json_string(buf_t *b, const char *s) {
  buf_add(b, "\"", 1);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      buf_add(b, "\\", 1);
      buf_add(b, s, 1);
    } else if (c < 0x20) {
      buf_printf(b, "\\u%04x", c);
    } else {
      buf_add(b, s, 1);
    }
  }
  buf_add(b, "\"", 1);
}

/* ---------- provider token (ES256 JWT) check, cached per distinct JWT ---------- */

static EVP_PKEY *public_key;

typedef struct {
  char *jwt;
  const char *problem; /* NULL: valid */
  long iat;
} jwt_entry_t;

#define JWT_CACHE 64
static jwt_entry_t jwt_cache[JWT_CACHE];
static int jwt_next;

static int b64url_decode(const char *in, size_t n, unsigned char *out, size_t cap) {
  size_t bits = 0, len = 0;
  uint32_t acc = 0;
  for (size_t i = 0; i < n; i++) {
    int v;
    char c = in[i];
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '-') v = 62;
    else if (c == '_') v = 63;
    else return -1;
    acc = (acc << 6) | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (len >= cap) return -1;
      out[len++] = (unsigned char)(acc >> bits);
    }
  }
  return (int)len;
}

/* The string value of "name" in a flat JSON object, into out (NUL-terminated); 0 if absent. */
static int json_field(const char *json, const char *name, char *out, size_t cap) {
  char quoted[64];
  snprintf(quoted, sizeof quoted, "\"%s\"", name);
  const char *p = strstr(json, quoted);
  if (!p) return 0;
  p += strlen(quoted);
  while (isspace((unsigned char)*p)) p++;
  if (*p++ != ':') return 0;
  while (isspace((unsigned char)*p)) p++;
  size_t n = 0;
  if (*p == '"') {
    for (p++; *p && *p != '"' && n + 1 < cap; p++) out[n++] = *p;
    if (*p != '"') return 0;
  } else {
    for (; *p && (isdigit((unsigned char)*p) || *p == '-') && n + 1 < cap; p++) out[n++] = *p;
    if (n == 0) return 0;
  }
  out[n] = 0;
  return 1;
}

static const char *verify_jwt(const char *jwt, long *iat) {
  const char *dot1 = strchr(jwt, '.');
  const char *dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
  if (!dot2) return "InvalidProviderToken";
  char header[512], claims[512], value[128];
  unsigned char sig[128];
  int hn = b64url_decode(jwt, (size_t)(dot1 - jwt), (unsigned char *)header, sizeof header - 1);
  int cn = b64url_decode(dot1 + 1, (size_t)(dot2 - dot1 - 1), (unsigned char *)claims, sizeof claims - 1);
  int sn = b64url_decode(dot2 + 1, strlen(dot2 + 1), sig, sizeof sig);
  if (hn < 0 || cn < 0 || sn != 64) return "InvalidProviderToken";
  header[hn] = 0;
  claims[cn] = 0;
  if (!json_field(header, "alg", value, sizeof value) || strcmp(value, "ES256") != 0) return "InvalidProviderToken";
  if (opt.key_id && (!json_field(header, "kid", value, sizeof value) || strcmp(value, opt.key_id) != 0))
    return "InvalidProviderToken";
  if (opt.team_id && (!json_field(claims, "iss", value, sizeof value) || strcmp(value, opt.team_id) != 0))
    return "InvalidProviderToken";
  if (!json_field(claims, "iat", value, sizeof value)) return "InvalidProviderToken";
  *iat = atol(value);
  if (public_key) {
    ECDSA_SIG *es = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(sig, 32, NULL), *s = BN_bin2bn(sig + 32, 32, NULL);
    unsigned char *der = NULL;
    int ok = 0;
    if (es && r && s && ECDSA_SIG_set0(es, r, s)) {
      r = s = NULL;
      int dn = i2d_ECDSA_SIG(es, &der);
      EVP_MD_CTX *md = EVP_MD_CTX_new();
      ok = dn > 0 && md && EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, public_key) == 1 &&
           EVP_DigestVerify(md, der, (size_t)dn, (const unsigned char *)jwt, (size_t)(dot2 - jwt)) == 1;
      EVP_MD_CTX_free(md);
    }
    BN_free(r);
    BN_free(s);
    ECDSA_SIG_free(es);
    OPENSSL_free(der);
    ERR_clear_error();
    if (!ok) return "InvalidProviderToken";
  }
  return NULL;
}

static const char *check_jwt(const char *jwt) {
  jwt_entry_t *e = NULL;
  for (int i = 0; i < JWT_CACHE; i++)
    if (jwt_cache[i].jwt && strcmp(jwt_cache[i].jwt, jwt) == 0) e = &jwt_cache[i];
  if (!e) {
    e = &jwt_cache[jwt_next];
    jwt_next = (jwt_next + 1) % JWT_CACHE;
    free(e->jwt);
    e->jwt = strdup(jwt);
    e->iat = 0;
    e->problem = verify_jwt(jwt, &e->iat);
    if (!e->problem) st.jwts++;
  }
  if (!e->problem && time(NULL) - e->iat > 3600) return "ExpiredProviderToken";
  return e->problem;
}

/* ---------- connections and streams ---------- */

typedef struct stream {
  int32_t id;
  struct stream *prev, *next;
  char *method, *path, *auth, *topic, *apns_id, *collapse, *push_type;
  int duplicate_header, device;
  size_t body_len;
  int status;
  const char *reason;
  buf_t response; /* body of the answer (served by the data provider) */
  size_t response_off;
  /* Faults: counted (processed: in requests/per_token), answered (an answer submitted), done (an
     answer or a scripted RST_STREAM submitted: nothing more happens to it); index: its number
     among the server's /3/device streams (--refuse-every, --reset-every), 0 if none. */
  int counted, answered, done;
  uint64_t index;
} stream_t;

enum { GOAWAY_NONE, GOAWAY_NOTICE, GOAWAY_SENT };
enum { FROZEN_NONE, FROZEN_ABORT, FROZEN_STALL };
enum { DEADLINE_NONE, DEADLINE_GOAWAY, DEADLINE_DRAIN, DEADLINE_ABORT };

typedef struct conn {
  int fd;
  uint64_t id;
  SSL *ssl;
  nghttp2_session *session;
  int handshaken, used, raised, epollout, dirty, closed, draining, raw_drain;
  uint32_t advertised, open, events;
  buf_t out;
  size_t out_off, blocked_len;
  stream_t *streams;
  /* Faults: ordinal (1 = the first connection since the start or /control/reset), answered
     (/3/device answers submitted here), max_counted (the highest stream processed here),
     highest_seen (the highest stream the client opened), goaway_last (the scripted GOAWAY's
     last-stream-id, once goaway == GOAWAY_SENT), frozen (--tcp-reset-after/--stall-after: set at
     the Nth answer, carried out once what was submitted is written), stalled (no longer read:
     only its end is watched, and its writes while a TCP reset waits), scripted_close (the drain after a scripted GOAWAY ends after 1 s). */
  uint64_t ordinal;
  uint64_t answered;
  int32_t max_counted, highest_seen, goaway_last;
  int goaway, frozen, stalled, lowered, scripted_close;
  uint64_t abort_by; /* --tcp-reset-after: the RST waits (up to 1 s) until the client has every byte */
  /* --goaway-after: the client's frame boundaries, followed from its preface on (nghttp2 parses
     nothing once a GOAWAY is sent and no stream is left, so the drain counts streams with this). */
  uint32_t preface_left, frame_left;
  uint8_t frame_hd[9], frame_hd_len;
  /* One deadline at a time (the two-step GOAWAY's, then the drain's), on a list walked by the tick timer. */
  int deadline_kind;
  uint64_t deadline_ns;
  struct conn *dl_prev, *dl_next;
} conn_t;

static conn_t *conns[MAX_FDS];
static uint64_t next_conn_id = 1;
static int epfd, timerfd_fd;
static SSL_CTX *tls;
static conn_t *dirty_list[MAX_FDS];
static int dirty_count;

static void mark_dirty(conn_t *c) {
  if (!c->dirty) {
    c->dirty = 1;
    dirty_list[dirty_count++] = c;
  }
}

/* Timer queue: answers due (same delay for all, so a FIFO is ordered by due time). */
typedef struct {
  uint64_t due_ns, conn_id;
  int fd;
  int32_t stream_id;
} due_t;

static due_t *dueq;
static size_t due_cap, due_head, due_len;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void arm_timer(uint64_t due) {
  struct itimerspec its = {0};
  its.it_value.tv_sec = (time_t)(due / 1000000000ULL);
  its.it_value.tv_nsec = (long)(due % 1000000000ULL);
  if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0) its.it_value.tv_nsec = 1;
  timerfd_settime(timerfd_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void due_push(conn_t *c, int32_t stream_id) {
  if (due_len == due_cap) {
    size_t cap = due_cap ? due_cap * 2 : 4096;
    due_t *q = xmalloc(cap * sizeof(due_t));
    for (size_t i = 0; i < due_len; i++) q[i] = dueq[(due_head + i) % due_cap];
    free(dueq);
    dueq = q;
    due_cap = cap;
    due_head = 0;
  }
  due_t *d = &dueq[(due_head + due_len) % due_cap];
  d->due_ns = now_ns() + (uint64_t)opt.delay_ms * 1000000ULL;
  d->conn_id = c->id;
  d->fd = c->fd;
  d->stream_id = stream_id;
  if (due_len++ == 0) arm_timer(d->due_ns);
}

/* Deadlines of a few connections (the two-step GOAWAY's wait for its PING ACK, the drain after a
   scripted GOAWAY), on a second timerfd armed for the earliest. */
static int tick_fd;
static conn_t *deadlines;

static void tick_arm(void) {
  uint64_t first = 0;
  for (conn_t *c = deadlines; c; c = c->dl_next)
    if (!first || c->deadline_ns < first) first = c->deadline_ns;
  struct itimerspec its = {0}; /* zero: disarmed */
  its.it_value.tv_sec = (time_t)(first / 1000000000ULL);
  its.it_value.tv_nsec = (long)(first % 1000000000ULL);
  timerfd_settime(tick_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void deadline_clear(conn_t *c) {
  if (!c->deadline_kind) return;
  if (c->dl_prev) c->dl_prev->dl_next = c->dl_next;
  else deadlines = c->dl_next;
  if (c->dl_next) c->dl_next->dl_prev = c->dl_prev;
  c->dl_prev = c->dl_next = NULL;
  c->deadline_kind = DEADLINE_NONE;
}

static void deadline_set(conn_t *c, int kind, uint64_t ms) {
  deadline_clear(c);
  c->deadline_kind = kind;
  c->deadline_ns = now_ns() + ms * 1000000ULL;
  c->dl_next = deadlines;
  if (deadlines) deadlines->dl_prev = c;
  deadlines = c;
  tick_arm();
}

static void stream_free(stream_t *s) {
  free(s->method);
  free(s->path);
  free(s->auth);
  free(s->topic);
  free(s->apns_id);
  free(s->collapse);
  free(s->push_type);
  free(s->response.data);
  free(s);
}

static void conn_close(conn_t *c) {
  if (c->closed) return;
  c->closed = 1;
  deadline_clear(c);
  epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
  conns[c->fd] = NULL;
  close(c->fd);
  while (c->streams) {
    stream_t *s = c->streams;
    c->streams = s->next;
    stream_free(s);
  }
  st.open_streams -= c->open;
  if (c->session) nghttp2_session_del(c->session);
  if (c->ssl) SSL_free(c->ssl);
  free(c->out.data);
  if (!c->dirty) free(c); /* else freed after the dirty list is walked */
}

/* The events polled: reads (and writes when the socket was full); a connection no longer served
   (--stall-after, --tcp-reset-after) only its end, and its writes while its TCP reset waits. */
static void conn_events(conn_t *c) {
  uint32_t events = c->stalled ? EPOLLRDHUP | (c->frozen == FROZEN_ABORT && c->epollout ? EPOLLOUT : 0)
                               : EPOLLIN | (c->epollout ? EPOLLOUT : 0);
  if (events == c->events) return;
  c->events = events;
  struct epoll_event ev = {.events = events, .data.fd = c->fd};
  epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

static void set_epollout(conn_t *c, int on) {
  c->epollout = on;
  conn_events(c);
}

/* Writes what nghttp2 has to send; returns -1 if the connection was closed. */
static int conn_flush(conn_t *c) {
  if (c->closed || !c->session) return c->closed ? -1 : 0;
  for (;;) {
    while (!c->blocked_len && c->out.len - c->out_off < WRITE_CHUNK && nghttp2_session_want_write(c->session)) {
      const uint8_t *data;
      ssize_t n = nghttp2_session_mem_send(c->session, &data);
      if (n < 0) {
        conn_close(c);
        return -1;
      }
      if (n == 0) break;
      buf_add(&c->out, data, (size_t)n);
    }
    size_t pending = c->out.len - c->out_off;
    if (pending == 0) break;
    size_t len = c->blocked_len ? c->blocked_len : (pending < WRITE_CHUNK ? pending : WRITE_CHUNK);
    ssize_t w;
    if (c->ssl) {
      int r = SSL_write(c->ssl, c->out.data + c->out_off, (int)len);
      if (r <= 0) {
        int e = SSL_get_error(c->ssl, r);
        if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ) {
          c->blocked_len = len;
          set_epollout(c, 1);
          return 0;
        }
        ERR_clear_error();
        conn_close(c);
        return -1;
      }
      w = r;
    } else {
      w = send(c->fd, c->out.data + c->out_off, len, MSG_NOSIGNAL);
      if (w < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
          set_epollout(c, 1);
          return 0;
        }
        conn_close(c);
        return -1;
      }
    }
    c->blocked_len = 0;
    c->out_off += (size_t)w;
    if (c->out_off == c->out.len) c->out_off = c->out.len = 0;
  }
  set_epollout(c, 0);
  if (!c->draining && !c->stalled && !nghttp2_session_want_read(c->session) && !nghttp2_session_want_write(c->session)) {
    /* The session is over (a GOAWAY either way, every stream done). Closed at once, a socket
       with unread bytes from the client (frames it sent before it saw the GOAWAY) makes the
       kernel send RST, and the client may lose answers still in its receive buffer: requests
       counted here would look unanswered and be sent again. So: close_notify and FIN after
       the last bytes, then read (and drop) until the client closes. */
    c->draining = 1;
    if (c->ssl) SSL_shutdown(c->ssl);
    shutdown(c->fd, SHUT_WR);
    if (c->scripted_close) deadline_set(c, DEADLINE_DRAIN, 1000); /* a client that never closes: 1 s */
  }
  return 0;
}

/* ---------- answers ---------- */

static ssize_t read_response(nghttp2_session *session, int32_t stream_id, uint8_t *out, size_t length,
                             uint32_t *flags, nghttp2_data_source *source, void *user) {
  (void)session;
  (void)stream_id;
  (void)user;
  stream_t *s = source->ptr;
  size_t left = s->response.len - s->response_off;
  size_t n = left < length ? left : length;
  memcpy(out, s->response.data + s->response_off, n);
  s->response_off += n;
  if (s->response_off == s->response.len) *flags |= NGHTTP2_DATA_FLAG_EOF;
  return (ssize_t)n;
}

static void uuid4(char out[37]) {
  static uint64_t x = 0;
  if (!x) x = now_ns() ^ (uint64_t)getpid() << 32;
  unsigned char b[16];
  for (int i = 0; i < 16; i += 8) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    memcpy(b + i, &x, 8);
  }
  b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
  b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
  snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3], b[4],
           b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

static void submit(conn_t *c, stream_t *s) {
  char status[4], uuid[37];
  snprintf(status, sizeof status, "%d", s->status);
  const char *apns_id = s->apns_id;
  if (!apns_id) {
    uuid4(uuid);
    apns_id = uuid;
  }
  nghttp2_nv nv[3] = {
      {(uint8_t *)":status", (uint8_t *)status, 7, strlen(status), NGHTTP2_NV_FLAG_NONE},
      {(uint8_t *)"apns-id", (uint8_t *)apns_id, 7, strlen(apns_id), NGHTTP2_NV_FLAG_NONE},
      {(uint8_t *)"content-type", (uint8_t *)"application/json", 12, 16, NGHTTP2_NV_FLAG_NONE},
  };
  if (s->reason && !s->response.len) buf_printf(&s->response, "{\"reason\": \"%s\"}", s->reason);
  if (s->response.len) {
    nghttp2_data_provider provider = {.source.ptr = s, .read_callback = read_response};
    nghttp2_submit_response(c->session, s->id, nv, 3, &provider);
  } else {
    nghttp2_submit_response(c->session, s->id, nv, 2, NULL);
  }
  if (s->device && opt.initial_streams && !c->raised) {
    /* The first answer on this connection: raise the limit, as Apple does. */
    c->raised = 1;
    nghttp2_settings_entry e = {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, opt.max_streams};
    nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, &e, 1);
    c->advertised = opt.max_streams;
  }
  mark_dirty(c);
}

static int is_hex_token(const char *t) {
  size_t n = strlen(t);
  if (n < 64 || n % 2) return 0;
  for (size_t i = 0; i < n; i++)
    if (!isxdigit((unsigned char)t[i])) return 0;
  return 1;
}

/* Counts a /3/device request and decides its answer (at arrival; sent now or --delay-ms later). */
static void judge_device(conn_t *c, stream_t *s) {
  const char *token = s->path + strlen("/3/device/");
  if (!c->used) {
    c->used = 1;
    st.device_connections++;
  }
  s->status = 200;
  if (!s->method || strcmp(s->method, "POST") != 0) {
    s->status = 405, s->reason = "MethodNotAllowed";
    return;
  }
  st.requests++;
  if (!*token) {
    s->status = 400, s->reason = "MissingDeviceToken";
    return;
  }
  uint32_t n = map_add(&st.per_token, token, strlen(token));
  if (n >= 2) st.duplicate_requests++;
  if (n == 2) st.tokens_twice++;
  const char *collapse = s->collapse ? s->collapse : "";
  map_add(&st.collapse_ids, collapse, strlen(collapse));
  const char *problem = NULL;
  int status = 400;
  size_t limit = s->push_type && strcmp(s->push_type, "voip") == 0 ? 5120 : 4096;
  if (s->duplicate_header) problem = "DuplicateHeaders";
  else if (!s->auth) status = 403, problem = "MissingProviderToken";
  else if (strncasecmp(s->auth, "bearer ", 7) != 0) status = 403, problem = "InvalidProviderToken";
  else if ((problem = check_jwt(s->auth + 7))) status = 403;
  else if (!is_hex_token(token)) problem = "BadDeviceToken";
  else if (!s->topic) problem = "MissingTopic";
  else if (opt.topic && strcmp(s->topic, opt.topic) != 0) problem = "TopicDisallowed";
  else if (s->collapse && strlen(s->collapse) > 64) problem = "BadCollapseId";
  else if (s->body_len == 0) problem = "PayloadEmpty";
  else if (s->body_len > limit) status = 413, problem = "PayloadTooLarge";
  if (problem) {
    s->status = status, s->reason = problem;
    return;
  }
  st.accepted++;
}

static void stats_json(buf_t *b, int per_token) {
  buf_printf(b,
             "{\"requests\": %llu, \"accepted\": %llu, \"connections\": %llu, \"device_connections\": %llu, "
             "\"jwts\": %u, \"renewals\": %u, \"distinct_tokens\": %zu, \"tokens_sent_twice\": %llu, "
             "\"duplicate_requests\": %llu, \"max_concurrent_streams\": %u, \"peak_open_streams\": %u, "
             "\"stream_limit_violations\": %llu, \"refused_streams\": %llu, \"resets_received\": %llu, "
             "\"goaways_sent\": %llu, \"answered\": %llu, \"goaway_refused\": %llu, \"refused_by_script\": %llu, "
             "\"reset_after_processing\": %llu, \"settings_lowered\": %llu, \"tcp_resets\": %llu, "
             "\"stalled_connections\": %llu, \"collapse_ids\": {",
             (unsigned long long)st.requests, (unsigned long long)st.accepted, (unsigned long long)st.connections,
             (unsigned long long)st.device_connections, st.jwts, st.jwts ? st.jwts - 1 : 0, st.per_token.used,
             (unsigned long long)st.tokens_twice, (unsigned long long)st.duplicate_requests, st.max_concurrent_streams,
             st.peak_open_streams, (unsigned long long)st.stream_limit_violations,
             (unsigned long long)st.refused_streams, (unsigned long long)st.resets_received,
             (unsigned long long)st.goaways_sent, (unsigned long long)st.answered,
             (unsigned long long)st.goaway_refused, (unsigned long long)st.refused_by_script,
             (unsigned long long)st.reset_after_processing, (unsigned long long)st.settings_lowered,
             (unsigned long long)st.tcp_resets, (unsigned long long)st.stalled_connections);
  const map_t *maps[2] = {&st.collapse_ids, &st.per_token};
  for (int m = 0; m < (per_token ? 2 : 1); m++) {
    if (m == 1) buf_printf(b, "}, \"per_token\": {");
    int first = 1;
    for (size_t i = 0; i < maps[m]->cap; i++) {
      if (!maps[m]->slots[i].key) continue;
      if (!first) buf_add(b, ", ", 2);
      first = 0;
      buf_json_string(b, maps[m]->slots[i].key);
      buf_printf(b, ": %u", maps[m]->slots[i].count);
    }
  }
  buf_printf(b, "}");
  const list_t *lists[3] = {&st.reset_tokens, &st.reset_connection_tokens, &st.stalled_tokens};
  const char *names[3] = {"reset_tokens", "reset_connection_tokens", "stalled_tokens"};
  for (int l = 0; l < (per_token ? 3 : 0); l++) {
    buf_printf(b, ", \"%s\": [", names[l]);
    for (size_t i = 0; i < lists[l]->len; i++) {
      if (i) buf_add(b, ", ", 2);
      buf_json_string(b, lists[l]->items[i]);
    }
    buf_add(b, "]", 1);
  }
  buf_printf(b, "}");
}

static void reset_counts(void) {
  map_clear(&st.per_token);
  map_clear(&st.collapse_ids);
  st.requests = st.accepted = st.duplicate_requests = st.tokens_twice = 0;
  st.stream_limit_violations = st.refused_streams = st.resets_received = st.goaways_sent = 0;
  st.max_concurrent_streams = st.peak_open_streams = 0;
  st.connections = st.device_connections = st.jwts = 0;
  st.device_streams = st.answered = st.goaway_refused = st.refused_by_script = st.reset_after_processing = 0;
  st.settings_lowered = st.tcp_resets = st.stalled_connections = 0;
  list_clear(&st.reset_tokens);
  list_clear(&st.reset_connection_tokens);
  list_clear(&st.stalled_tokens);
  for (int i = 0; i < JWT_CACHE; i++) {
    free(jwt_cache[i].jwt);
    jwt_cache[i].jwt = NULL;
  }
  for (int fd = 0; fd < MAX_FDS; fd++)
    if (conns[fd]) conns[fd]->used = 0;
}

/* ---------- faults ---------- */

static int first_connections(const conn_t *c, long m) { return m == 0 || c->ordinal <= (uint64_t)m; }

/* A scripted GOAWAY is still to come on this connection: requests are processed when answered. */
static int goaway_ahead(const conn_t *c) {
  return opt.goaway_after && c->goaway != GOAWAY_SENT && first_connections(c, opt.goaway_connections);
}

/* Above the last-stream-id of the GOAWAY sent: never processed. */
static int above_goaway(const conn_t *c, const stream_t *s) {
  return c->goaway == GOAWAY_SENT && s->id > c->goaway_last;
}

static const char *token_of(const stream_t *s) { return s->path + strlen("/3/device/"); }

/* Processes (counts) a /3/device request. */
static void process(conn_t *c, stream_t *s) {
  judge_device(c, s);
  s->counted = 1;
  if (s->id > c->max_counted) c->max_counted = s->id;
}

static int by_id(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* The scripted GOAWAY: its last-stream-id covers every stream processed here and the K
   lowest-numbered streams still open; the open streams above it are refused (never processed). */
static void goaway_decide(conn_t *c) {
  int32_t last = c->max_counted;
  size_t n = 0;
  for (stream_t *s = c->streams; s; s = s->next) n += !s->done;
  if (opt.goaway_keep > 0 && n > 0) {
    int32_t *ids = xmalloc(n * sizeof(int32_t));
    size_t i = 0;
    for (stream_t *s = c->streams; s; s = s->next)
      if (!s->done) ids[i++] = s->id;
    qsort(ids, n, sizeof(int32_t), by_id);
    size_t k = (size_t)opt.goaway_keep < n ? (size_t)opt.goaway_keep : n;
    if (ids[k - 1] > last) last = ids[k - 1];
    free(ids);
  }
  uint64_t refused = 0;
  for (stream_t *s = c->streams; s; s = s->next)
    if (!s->done && s->id > last) {
      s->done = 1;
      refused++;
    }
  st.goaway_refused += refused;
  c->goaway = GOAWAY_SENT;
  c->goaway_last = last;
  c->scripted_close = 1;
  deadline_clear(c);
  /* Apple: APNs closes a connection with a GOAWAY frame whose debug data is a JSON object with
     a "reason" (Handling notification responses from APNs); "Shutdown" is the server's own. */
  static const char reason[] = "{\"reason\":\"Shutdown\"}";
  nghttp2_submit_goaway(c->session, NGHTTP2_FLAG_NONE, last, NGHTTP2_NO_ERROR, (const uint8_t *)reason, sizeof reason - 1);
  fprintf(stderr, "mock-apns: scripted GOAWAY on connection %llu after %llu answers: last-stream-id %d, %llu open stream(s) above it refused\n",
          (unsigned long long)c->ordinal, (unsigned long long)c->answered, last, (unsigned long long)refused);
  mark_dirty(c);
}

static const uint8_t two_step_ping[8] = {'g', 'o', 'a', 'w', 'a', 'y', '2', 's'};

/* After each /3/device answer: the faults that follow the Nth answer on a connection. */
static void after_answer(conn_t *c) {
  uint64_t n = ++c->answered;
  if (opt.lower_after && n == (uint64_t)opt.lower_after && !c->lowered) {
    c->lowered = 1;
    nghttp2_settings_entry e = {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, (uint32_t)opt.lower_to};
    nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, &e, 1);
    fprintf(stderr, "mock-apns: SETTINGS_MAX_CONCURRENT_STREAMS %u -> %ld on connection %llu (%u open)\n",
            c->advertised, opt.lower_to, (unsigned long long)c->ordinal, c->open);
    c->advertised = (uint32_t)opt.lower_to;
    st.settings_lowered++;
  }
  if (goaway_ahead(c) && c->goaway == GOAWAY_NONE && n == (uint64_t)opt.goaway_after) {
    if (opt.goaway_two_step) {
      /* RFC 9113 §6.8: 2^31-1 first; the real last-stream-id one round trip later. */
      c->goaway = GOAWAY_NOTICE;
      nghttp2_submit_shutdown_notice(c->session);
      nghttp2_submit_ping(c->session, NGHTTP2_FLAG_NONE, two_step_ping);
      deadline_set(c, DEADLINE_GOAWAY, 1000);
    } else {
      goaway_decide(c);
    }
  }
  if (!c->frozen && opt.tcp_reset_after && n == (uint64_t)opt.tcp_reset_after &&
      first_connections(c, opt.tcp_reset_connections))
    c->frozen = FROZEN_ABORT;
  if (!c->frozen && opt.stall_after && n == (uint64_t)opt.stall_after && first_connections(c, opt.stall_connections))
    c->frozen = FROZEN_STALL;
}

/* A /3/device answer is due (at END_STREAM, or --delay-ms later). */
static void answer_device(conn_t *c, stream_t *s) {
  if (c->frozen || s->done || above_goaway(c, s)) return;
  if (!s->counted) process(c, s);
  s->done = 1;
  if (opt.reset_every && s->index && s->index % (uint64_t)opt.reset_every == 0) {
    /* Processed, then reset instead of answered. */
    nghttp2_submit_rst_stream(c->session, NGHTTP2_FLAG_NONE, s->id, opt.reset_code);
    st.reset_after_processing++;
    list_add(&st.reset_tokens, token_of(s));
    mark_dirty(c);
    return;
  }
  submit(c, s);
  s->answered = 1;
  st.answered++;
  after_answer(c);
}

/* A /3/device request has fully arrived. */
static void device_request_ended(conn_t *c, stream_t *s) {
  s->device = 1;
  if (above_goaway(c, s)) return; /* refused by the GOAWAY (goaway_refused), never processed */
  if (c->frozen) {
    process(c, s); /* arrived before the TCP reset or the stall: processed, never answered */
    return;
  }
  s->index = ++st.device_streams;
  if (opt.refuse_every && s->index % (uint64_t)opt.refuse_every == 0) {
    s->done = 1;
    nghttp2_submit_rst_stream(c->session, NGHTTP2_FLAG_NONE, s->id, NGHTTP2_REFUSED_STREAM);
    st.refused_by_script++;
    mark_dirty(c);
    return;
  }
  if (!goaway_ahead(c)) process(c, s); /* else when its answer is due (see --goaway-after) */
  if (opt.never_answer) return;
  if (opt.delay_ms > 0) due_push(c, s->id);
  else answer_device(c, s);
}

/* The tokens processed on a connection and never answered, into a list; returns how many. */
static size_t list_unanswered(conn_t *c, list_t *tokens) {
  size_t n = 0;
  for (stream_t *s = c->streams; s; s = s->next)
    if (s->device && s->counted && !s->done) {
      list_add(tokens, token_of(s));
      n++;
    }
  return n;
}

/* --tcp-reset-after: the TCP RST (SO_LINGER {1, 0}, close). */
static void abort_now(conn_t *c, const char *why) {
  size_t unanswered = list_unanswered(c, &st.reset_connection_tokens);
  st.tcp_resets++;
  fprintf(stderr, "mock-apns: TCP reset of connection %llu after %llu answers%s: %zu processed request(s) unanswered, %u stream(s) open\n",
          (unsigned long long)c->ordinal, (unsigned long long)c->answered, why, unanswered, c->open);
  struct linger lg = {.l_onoff = 1, .l_linger = 0};
  setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
  conn_close(c);
}

/* An abortive close throws away what the socket has not sent yet, and the client would lose
   answers this mock counts as given: the RST waits until the client's kernel has acknowledged
   every byte written (SIOCOUTQ = 0), checked every ms, at most 1 s. */
static void abort_check(conn_t *c) {
  int queued = 1;
  if (c->out.len == c->out_off && ioctl(c->fd, SIOCOUTQ, &queued) != 0) queued = 0;
  if (queued <= 0) abort_now(c, "");
  else if (now_ns() >= c->abort_by) abort_now(c, " (the client had not acknowledged every answer within 1 s)");
  else deadline_set(c, DEADLINE_ABORT, 1);
}

/* --tcp-reset-after, --stall-after: what was submitted has been handed to the socket; from now on
   the connection is not read or served. A TCP reset follows once the client has it all; a
   stalled connection waits for the client to close it. */
static void freeze(conn_t *c) {
  c->stalled = 1;
  deadline_clear(c);
  conn_events(c);
  if (c->frozen == FROZEN_ABORT) {
    c->abort_by = now_ns() + 1000000000ULL;
    abort_check(c);
    return;
  }
  size_t unanswered = list_unanswered(c, &st.stalled_tokens);
  st.stalled_connections++;
  fprintf(stderr, "mock-apns: stalled connection %llu after %llu answers: %zu processed request(s) unanswered, %u stream(s) open%s\n",
          (unsigned long long)c->ordinal, (unsigned long long)c->answered, unanswered, c->open,
          c->out.len > c->out_off ? " (the socket had not taken every answer)" : "");
}

/* A request has fully arrived. */
static void request_ended(conn_t *c, stream_t *s) {
  const char *path = s->path ? s->path : "";
  if (strncmp(path, "/3/device/", 10) == 0) {
    device_request_ended(c, s);
    return;
  }
  int get = s->method && strcmp(s->method, "GET") == 0, post = s->method && strcmp(s->method, "POST") == 0;
  if (get && (strcmp(path, "/stats") == 0 || strcmp(path, "/stats?per_token=0") == 0)) {
    s->status = 200;
    stats_json(&s->response, strcmp(path, "/stats") == 0);
  } else if (post && strcmp(path, "/control/reset") == 0) {
    reset_counts();
    s->status = 200;
    buf_printf(&s->response, "{\"ok\": true}");
  } else {
    s->status = 404, s->reason = "BadPath";
  }
  submit(c, s);
}

/* ---------- nghttp2 callbacks ---------- */

static int on_begin_headers(nghttp2_session *session, const nghttp2_frame *frame, void *user) {
  conn_t *c = user;
  if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
  stream_t *s = calloc(1, sizeof(stream_t));
  if (!s) die("out of memory");
  s->id = frame->hd.stream_id;
  s->next = c->streams;
  if (c->streams) c->streams->prev = s;
  c->streams = s;
  nghttp2_session_set_stream_user_data(session, s->id, s);
  c->open++;
  if (c->open > st.max_concurrent_streams) st.max_concurrent_streams = c->open;
  if (++st.open_streams > st.peak_open_streams) st.peak_open_streams = st.open_streams;
  return 0;
}

static void set_header(stream_t *s, char **field, const uint8_t *value, size_t len) {
  if (*field) {
    s->duplicate_header = 1;
    return;
  }
  *field = xstrndup((const char *)value, len);
}

static int on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name, size_t namelen,
                     const uint8_t *value, size_t valuelen, uint8_t flags, void *user) {
  (void)flags;
  (void)user;
  if (frame->hd.type != NGHTTP2_HEADERS) return 0;
  stream_t *s = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
  if (!s) return 0;
#define IS(n) (namelen == sizeof(n) - 1 && memcmp(name, n, namelen) == 0)
  if (IS(":method")) set_header(s, &s->method, value, valuelen);
  else if (IS(":path")) set_header(s, &s->path, value, valuelen);
  else if (IS("authorization")) set_header(s, &s->auth, value, valuelen);
  else if (IS("apns-topic")) set_header(s, &s->topic, value, valuelen);
  else if (IS("apns-id")) set_header(s, &s->apns_id, value, valuelen);
  else if (IS("apns-collapse-id")) set_header(s, &s->collapse, value, valuelen);
  else if (IS("apns-push-type")) set_header(s, &s->push_type, value, valuelen);
#undef IS
  return 0;
}

static int on_data_chunk(nghttp2_session *session, uint8_t flags, int32_t stream_id, const uint8_t *data, size_t len,
                         void *user) {
  (void)flags;
  (void)data;
  (void)user;
  stream_t *s = nghttp2_session_get_stream_user_data(session, stream_id);
  if (s) s->body_len += len;
  return 0;
}

static int on_frame_recv(nghttp2_session *session, const nghttp2_frame *frame, void *user) {
  conn_t *c = user;
  if (frame->hd.type == NGHTTP2_RST_STREAM) {
    st.resets_received++;
    if (getenv("MOCK_APNS_DEBUG"))
      fprintf(stderr, "mock-apns: RST_STREAM %d error %u\n", frame->hd.stream_id, frame->rst_stream.error_code);
  }
  if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
      (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
    stream_t *s = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
    if (s) request_ended(c, s);
  }
  if (frame->hd.type == NGHTTP2_PING && (frame->hd.flags & NGHTTP2_FLAG_ACK) && c->goaway == GOAWAY_NOTICE &&
      memcmp(frame->ping.opaque_data, two_step_ping, sizeof two_step_ping) == 0)
    goaway_decide(c); /* the client has seen the first GOAWAY (2^31-1): now the real one */
  return 0;
}

/* Every frame header: counts the streams opened above a scripted GOAWAY's last-stream-id (nghttp2
   ignores them once the GOAWAY is sent; before, device_request_ended drops them). */
static int on_begin_frame(nghttp2_session *session, const nghttp2_frame_hd *hd, void *user) {
  conn_t *c = user;
  (void)session;
  if (hd->type != NGHTTP2_HEADERS || hd->stream_id <= c->highest_seen) return 0;
  c->highest_seen = hd->stream_id;
  if (c->goaway == GOAWAY_SENT && hd->stream_id > c->goaway_last) st.goaway_refused++;
  return 0;
}

static int on_frame_send(nghttp2_session *session, const nghttp2_frame *frame, void *user) {
  (void)session;
  (void)user;
  if (frame->hd.type == NGHTTP2_GOAWAY) {
    st.goaways_sent++;
    fprintf(stderr, "mock-apns: GOAWAY sent (last-stream-id %d, error %u)\n", frame->goaway.last_stream_id,
            frame->goaway.error_code);
  }
  return 0;
}

static int on_invalid_frame(nghttp2_session *session, const nghttp2_frame *frame, int lib_error, void *user) {
  conn_t *c = user;
  if (frame->hd.type != NGHTTP2_HEADERS) return 0;
  /* A new stream past the limit: refused (the client has not acknowledged the SETTINGS that set
     it yet) or a connection error, GOAWAY (it has). */
  uint32_t acked = nghttp2_session_get_local_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
  if (lib_error == NGHTTP2_ERR_REFUSED_STREAM || (lib_error == NGHTTP2_ERR_PROTO && c->open >= acked)) {
    st.stream_limit_violations++;
    if (lib_error == NGHTTP2_ERR_REFUSED_STREAM) st.refused_streams++;
    fprintf(stderr, "mock-apns: stream %d opened past the limit of %u (%d open): %s\n", frame->hd.stream_id,
            c->advertised, c->open, lib_error == NGHTTP2_ERR_REFUSED_STREAM ? "REFUSED_STREAM" : "GOAWAY");
  }
  return 0;
}

static int on_stream_close(nghttp2_session *session, int32_t stream_id, uint32_t error_code, void *user) {
  conn_t *c = user;
  (void)error_code;
  stream_t *s = nghttp2_session_get_stream_user_data(session, stream_id);
  if (!s) return 0;
  if (s->prev) s->prev->next = s->next;
  else c->streams = s->next;
  if (s->next) s->next->prev = s->prev;
  c->open--;
  st.open_streams--;
  stream_free(s);
  return 0;
}

static nghttp2_session_callbacks *callbacks;
static nghttp2_option *session_option;

static void start_session(conn_t *c) {
  nghttp2_session_server_new2(&c->session, callbacks, c, session_option);
  c->preface_left = 24; /* "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" */
  c->advertised = opt.initial_streams ? opt.initial_streams : opt.max_streams;
  nghttp2_settings_entry e[2] = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, c->advertised},
                                 {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20}};
  nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, e, 2);
  nghttp2_session_set_local_window_size(c->session, NGHTTP2_FLAG_NONE, 0, 1 << 24);
  c->handshaken = 1;
}

/* ---------- socket events ---------- */

/* Follows the frame headers in what the client sent (--goaway-after). Once draining, a HEADERS
   frame opening a stream above the GOAWAY's last-stream-id is counted in goaway_refused (before,
   on_begin_frame counts them). */
static void follow_frames(conn_t *c, const uint8_t *p, size_t n) {
  while (n) {
    size_t k;
    if (c->preface_left || c->frame_left) {
      uint32_t *left = c->preface_left ? &c->preface_left : &c->frame_left;
      k = n < *left ? n : *left;
      *left -= (uint32_t)k;
    } else {
      k = n < 9u - c->frame_hd_len ? n : 9u - c->frame_hd_len;
      memcpy(c->frame_hd + c->frame_hd_len, p, k);
      c->frame_hd_len += (uint8_t)k;
      if (c->frame_hd_len == 9) {
        const uint8_t *h = c->frame_hd;
        c->frame_hd_len = 0;
        c->frame_left = (uint32_t)h[0] << 16 | (uint32_t)h[1] << 8 | h[2];
        int32_t id = (int32_t)(((uint32_t)h[5] << 24 | (uint32_t)h[6] << 16 | (uint32_t)h[7] << 8 | h[8]) & 0x7fffffffu);
        if (c->draining && h[3] == NGHTTP2_HEADERS && id > c->highest_seen) {
          c->highest_seen = id;
          if (c->goaway == GOAWAY_SENT && id > c->goaway_last) st.goaway_refused++;
        }
      }
    }
    p += k;
    n -= k;
  }
}

static void conn_read(conn_t *c) {
  static uint8_t in[READ_CHUNK];
  if (c->draining) {
    /* Read and drop until the client closes. A stream the client opened meanwhile (it had not
       seen the GOAWAY yet) is counted in goaway_refused, never processed. TLS: decrypted until
       the client's close_notify or a TLS error, raw (not followed) after that. */
    for (;;) {
      ssize_t n;
      int plain = 1;
      if (c->ssl && !c->raw_drain) {
        int r = SSL_read(c->ssl, in, sizeof in);
        if (r <= 0) {
          if (SSL_get_error(c->ssl, r) == SSL_ERROR_WANT_READ) return;
          ERR_clear_error();
          c->raw_drain = 1;
          continue;
        }
        n = r;
      } else {
        n = recv(c->fd, in, sizeof in, 0);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (n <= 0) {
          conn_close(c);
          return;
        }
        plain = !c->ssl;
      }
      if (plain) follow_frames(c, in, (size_t)n);
    }
  }
  if (c->ssl && !c->handshaken) {
    int r = SSL_do_handshake(c->ssl);
    if (r != 1) {
      int e = SSL_get_error(c->ssl, r);
      if (e == SSL_ERROR_WANT_READ) return;
      if (e == SSL_ERROR_WANT_WRITE) {
        set_epollout(c, 1);
        return;
      }
      ERR_clear_error();
      conn_close(c);
      return;
    }
    start_session(c);
  }
  for (;;) {
    ssize_t n;
    if (c->ssl) {
      int r = SSL_read(c->ssl, in, sizeof in);
      if (r <= 0) {
        int e = SSL_get_error(c->ssl, r);
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) break;
        ERR_clear_error();
        conn_close(c);
        return;
      }
      n = r;
    } else {
      n = recv(c->fd, in, sizeof in, 0);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (n <= 0) {
        conn_close(c);
        return;
      }
    }
    if (opt.goaway_after) follow_frames(c, in, (size_t)n);
    if (nghttp2_session_mem_recv(c->session, in, (size_t)n) < 0) {
      conn_close(c);
      return;
    }
    if (c->frozen) break; /* reset or stalled at the end of this round: read no more */
  }
  mark_dirty(c);
}

static void on_accept(int lfd) {
  for (;;) {
    int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    if (fd >= MAX_FDS) {
      close(fd);
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    conn_t *c = calloc(1, sizeof(conn_t));
    if (!c) die("out of memory");
    c->fd = fd;
    c->id = next_conn_id++;
    conns[fd] = c;
    c->ordinal = ++st.connections;
    c->events = EPOLLIN;
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
    epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
    if (tls) {
      c->ssl = SSL_new(tls);
      SSL_set_fd(c->ssl, fd);
      SSL_set_accept_state(c->ssl);
    } else {
      start_session(c);
      mark_dirty(c);
    }
  }
}

static void on_timer(void) {
  uint64_t expirations;
  if (read(timerfd_fd, &expirations, sizeof expirations) < 0 && errno != EAGAIN) return;
  uint64_t now = now_ns();
  while (due_len && dueq[due_head].due_ns <= now) {
    due_t d = dueq[due_head];
    due_head = (due_head + 1) % due_cap;
    due_len--;
    conn_t *c = conns[d.fd];
    if (!c || c->id != d.conn_id) continue;
    stream_t *s = nghttp2_session_get_stream_user_data(c->session, d.stream_id);
    if (s) answer_device(c, s);
  }
  if (due_len) arm_timer(dueq[due_head].due_ns);
}

/* The drain after a scripted GOAWAY has lasted 1 s: what the client sent is read (and dropped),
   so the close sends no RST, and the connection ends. */
static void drain_end(conn_t *c) {
  static uint8_t in[READ_CHUNK];
  while (recv(c->fd, in, sizeof in, 0) > 0) {
  }
  fprintf(stderr, "mock-apns: connection %llu closed 1 s after its GOAWAY (the client had not closed it)\n",
          (unsigned long long)c->ordinal);
  conn_close(c);
}

static void on_tick(void) {
  uint64_t expirations;
  if (read(tick_fd, &expirations, sizeof expirations) < 0 && errno != EAGAIN) return;
  uint64_t now = now_ns();
  for (conn_t *c = deadlines, *next; c; c = next) {
    next = c->dl_next;
    if (c->deadline_ns > now) continue;
    int kind = c->deadline_kind;
    deadline_clear(c);
    if (kind == DEADLINE_GOAWAY) goaway_decide(c); /* no PING ACK within 1 s */
    else if (kind == DEADLINE_DRAIN) drain_end(c);
    else if (kind == DEADLINE_ABORT) abort_check(c);
  }
  tick_arm();
}

/* ---------- TLS: a throwaway CA and a server certificate for 127.0.0.1 ---------- */

static void add_ext(X509 *cert, X509 *issuer, int nid, const char *value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
  X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
  if (!ext || !X509_add_ext(cert, ext, -1)) die("cannot add a certificate extension");
  X509_EXTENSION_free(ext);
}

static X509 *make_cert(EVP_PKEY *key, const char *cn, X509 *issuer, EVP_PKEY *issuer_key, long serial) {
  X509 *cert = X509_new();
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), serial);
  X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert), 7 * 86400);
  X509_set_pubkey(cert, key);
  X509_NAME *name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, (const unsigned char *)"RichPush mock APNs", -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
  X509_set_issuer_name(cert, issuer ? X509_get_subject_name(issuer) : name);
  X509 *signer = issuer ? issuer : cert;
  add_ext(cert, signer, NID_subject_key_identifier, "hash");
  if (issuer) {
    add_ext(cert, signer, NID_authority_key_identifier, "keyid:always");
    add_ext(cert, signer, NID_basic_constraints, "critical,CA:FALSE");
    add_ext(cert, signer, NID_key_usage, "critical,digitalSignature,keyEncipherment");
    add_ext(cert, signer, NID_ext_key_usage, "serverAuth");
    add_ext(cert, signer, NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost");
  } else {
    add_ext(cert, signer, NID_basic_constraints, "critical,CA:TRUE");
    add_ext(cert, signer, NID_key_usage, "critical,keyCertSign,cRLSign");
  }
  if (!X509_sign(cert, issuer_key ? issuer_key : key, EVP_sha256())) die("cannot sign a certificate");
  return cert;
}

static int select_alpn(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
                       unsigned int inlen, void *arg) {
  (void)ssl;
  (void)arg;
  /* h2 if offered; a client that offers no h2 (or no ALPN) still gets the TLS session. */
  for (unsigned int i = 0; i < inlen; i += 1u + in[i]) {
    if (in[i] == 2 && i + 3 <= inlen && memcmp(in + i + 1, "h2", 2) == 0) {
      *out = in + i + 1;
      *outlen = 2;
      return SSL_TLSEXT_ERR_OK;
    }
  }
  return SSL_TLSEXT_ERR_NOACK;
}

static void setup_tls(void) {
  EVP_PKEY *ca_key = EVP_EC_gen("P-256"), *server_key = EVP_EC_gen("P-256");
  if (!ca_key || !server_key) die("cannot generate keys");
  X509 *ca = make_cert(ca_key, "RichPush mock APNs CA", NULL, NULL, 1);
  X509 *server = make_cert(server_key, "127.0.0.1", ca, ca_key, 2);
  const char *path = opt.ca_out ? opt.ca_out : "mock-apns-ca.pem";
  FILE *f = fopen(path, "w");
  if (!f || !PEM_write_X509(f, ca) || fclose(f) != 0) die("cannot write --ca-out");
  tls = SSL_CTX_new(TLS_server_method());
  SSL_CTX_set_min_proto_version(tls, TLS1_2_VERSION);
  SSL_CTX_set_options(tls, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_set_mode(tls, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (SSL_CTX_use_certificate(tls, server) != 1 || SSL_CTX_add1_chain_cert(tls, ca) != 1 ||
      SSL_CTX_use_PrivateKey(tls, server_key) != 1)
    die("cannot configure TLS");
  SSL_CTX_set_alpn_select_cb(tls, select_alpn, NULL);
  X509_free(server);
  X509_free(ca);
  EVP_PKEY_free(ca_key);
  EVP_PKEY_free(server_key);
}

/* ---------- main ---------- */

static void usage(void) {
  fprintf(stderr,
          "usage: mock-apns --key AuthKey.p8 --key-id KEYID --team-id TEAMID [--topic T] [--ca-out CA.pem]\n"
          "                 [--no-tls] [--port 0] [--max-streams 1000] [--initial-streams N] [--delay-ms 0]\n"
          "                 [--stream-reset-limit N]\n"
          "  faults:        [--goaway-after N [--goaway-keep K] [--goaway-connections M] [--goaway-two-step]]\n"
          "                 [--refuse-every N] [--reset-every N [--reset-code CODE]]\n"
          "                 [--lower-streams-after N --lower-to M] [--tcp-reset-after N [--tcp-reset-connections M]]\n"
          "                 [--never-answer] [--stall-after N [--stall-connections M]]\n"
          "  (what each does and which /stats counters it moves: the comment at the top of mock_apns.c)\n");
  exit(2);
}

static void bad_options(const char *why) {
  fprintf(stderr, "mock-apns: %s\n", why);
  exit(2);
}

/* An HTTP/2 error code (RFC 9113 §7): a number or its name. */
static uint32_t error_code(const char *s) {
  static const char *names[] = {"NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR",
                                "SETTINGS_TIMEOUT", "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM",
                                "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
                                "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED"};
  for (uint32_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcasecmp(s, names[i]) == 0) return i;
  char *end;
  unsigned long long v = strtoull(s, &end, 0);
  if (*s == 0 || *end != 0 || *s == '-' || v > UINT32_MAX) {
    fprintf(stderr, "mock-apns: --reset-code wants an HTTP/2 error code (a number, or a name such as CANCEL), got '%s'\n", s);
    exit(2);
  }
  return (uint32_t)v;
}

static long number(const char *s, const char *name) {
  char *end;
  long v = strtol(s, &end, 10);
  if (*s == 0 || *end != 0 || v < 0) {
    fprintf(stderr, "mock-apns: %s wants a number >= 0, got '%s'\n", name, s);
    exit(2);
  }
  return v;
}

int main(int argc, char **argv) {
  static const struct option longs[] = {
      {"key", 1, 0, 'k'},        {"key-id", 1, 0, 'i'},          {"team-id", 1, 0, 't'},
      {"topic", 1, 0, 'p'},      {"ca-out", 1, 0, 'c'},          {"no-tls", 0, 0, 'n'},
      {"port", 1, 0, 'P'},       {"max-streams", 1, 0, 'm'},     {"initial-streams", 1, 0, 's'},
      {"delay-ms", 1, 0, 'd'},   {"stream-reset-limit", 1, 0, 'r'}, {"help", 0, 0, 'h'},
      {"goaway-after", 1, 0, 256}, {"goaway-keep", 1, 0, 257}, {"goaway-connections", 1, 0, 258},
      {"goaway-two-step", 0, 0, 259}, {"refuse-every", 1, 0, 260}, {"reset-every", 1, 0, 261},
      {"reset-code", 1, 0, 262}, {"lower-streams-after", 1, 0, 263}, {"lower-to", 1, 0, 264},
      {"tcp-reset-after", 1, 0, 265}, {"tcp-reset-connections", 1, 0, 266}, {"never-answer", 0, 0, 267},
      {"stall-after", 1, 0, 268}, {"stall-connections", 1, 0, 269},
      {0, 0, 0, 0}};
  int reset_code_given = 0;
  int ch;
  while ((ch = getopt_long(argc, argv, "", longs, NULL)) != -1) {
    switch (ch) {
    case 'k': opt.key = optarg; break;
    case 'i': opt.key_id = optarg; break;
    case 't': opt.team_id = optarg; break;
    case 'p': opt.topic = optarg; break;
    case 'c': opt.ca_out = optarg; break;
    case 'n': opt.no_tls = 1; break;
    case 'P': opt.port = (int)number(optarg, "--port"); break;
    case 'm': opt.max_streams = (uint32_t)number(optarg, "--max-streams"); break;
    case 's': opt.initial_streams = (uint32_t)number(optarg, "--initial-streams"); break;
    case 'd': opt.delay_ms = number(optarg, "--delay-ms"); break;
    case 'r': opt.reset_burst = number(optarg, "--stream-reset-limit"); break;
    case 256: opt.goaway_after = number(optarg, "--goaway-after"); break;
    case 257: opt.goaway_keep = number(optarg, "--goaway-keep"); break;
    case 258: opt.goaway_connections = number(optarg, "--goaway-connections"); break;
    case 259: opt.goaway_two_step = 1; break;
    case 260: opt.refuse_every = number(optarg, "--refuse-every"); break;
    case 261: opt.reset_every = number(optarg, "--reset-every"); break;
    case 262: opt.reset_code = error_code(optarg), reset_code_given = 1; break;
    case 263: opt.lower_after = number(optarg, "--lower-streams-after"); break;
    case 264: opt.lower_to = number(optarg, "--lower-to"); break;
    case 265: opt.tcp_reset_after = number(optarg, "--tcp-reset-after"); break;
    case 266: opt.tcp_reset_connections = number(optarg, "--tcp-reset-connections"); break;
    case 267: opt.never_answer = 1; break;
    case 268: opt.stall_after = number(optarg, "--stall-after"); break;
    case 269: opt.stall_connections = number(optarg, "--stall-connections"); break;
    default: usage();
    }
  }
  if (optind != argc || opt.max_streams == 0) usage();
  if (!opt.goaway_after && (opt.goaway_keep || opt.goaway_connections || opt.goaway_two_step))
    bad_options("--goaway-keep, --goaway-connections and --goaway-two-step go with --goaway-after N (N >= 1)");
  if (!opt.reset_every && reset_code_given) bad_options("--reset-code goes with --reset-every N (N >= 1)");
  if (!opt.tcp_reset_after && opt.tcp_reset_connections)
    bad_options("--tcp-reset-connections goes with --tcp-reset-after N (N >= 1)");
  if (!opt.stall_after && opt.stall_connections) bad_options("--stall-connections goes with --stall-after N (N >= 1)");
  if (!opt.lower_after != (opt.lower_to < 0))
    bad_options("--lower-streams-after N (N >= 1) and --lower-to M go together");
  if (opt.lower_after && opt.lower_to >= (long)opt.max_streams)
    bad_options("--lower-to must be lower than --max-streams (the limit it lowers)");
  if (opt.never_answer && (opt.goaway_after || opt.reset_every || opt.lower_after || opt.tcp_reset_after || opt.stall_after))
    bad_options("--never-answer answers nothing, so --goaway-after, --reset-every, --lower-streams-after, "
                "--tcp-reset-after and --stall-after (which act on answers) would never happen");
  signal(SIGPIPE, SIG_IGN);
  if (opt.key) {
    FILE *f = fopen(opt.key, "r");
    if (!f) die("cannot open --key");
    public_key = PEM_read_PrivateKey(f, NULL, NULL, NULL);
    fclose(f);
    if (!public_key) die("--key is not a PEM private key (an APNs .p8)");
  }
  if (!opt.no_tls) setup_tls();

  nghttp2_option_new(&session_option);
  if (opt.reset_burst == 0) nghttp2_option_set_stream_reset_rate_limit(session_option, UINT64_MAX / 2, UINT64_MAX / 2);
  else if (opt.reset_burst > 0) nghttp2_option_set_stream_reset_rate_limit(session_option, (uint64_t)opt.reset_burst, 33);
  nghttp2_session_callbacks_new(&callbacks);
  nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, on_begin_headers);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, on_data_chunk);
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, on_frame_recv);
  nghttp2_session_callbacks_set_on_begin_frame_callback(callbacks, on_begin_frame);
  nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(callbacks, on_invalid_frame);
  nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, on_frame_send);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_stream_close);

  int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)opt.port)};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t alen = sizeof addr;
  if (bind(lfd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(lfd, 1024) != 0 ||
      getsockname(lfd, (struct sockaddr *)&addr, &alen) != 0)
    die("cannot listen on 127.0.0.1");
  epfd = epoll_create1(EPOLL_CLOEXEC);
  timerfd_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  tick_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (epfd < 0 || timerfd_fd < 0 || tick_fd < 0 || timerfd_fd >= MAX_FDS || tick_fd >= MAX_FDS || lfd >= MAX_FDS)
    die("cannot create epoll/timerfd");
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = lfd};
  epoll_ctl(epfd, EPOLL_CTL_ADD, lfd, &ev);
  ev.data.fd = timerfd_fd;
  epoll_ctl(epfd, EPOLL_CTL_ADD, timerfd_fd, &ev);
  ev.data.fd = tick_fd;
  epoll_ctl(epfd, EPOLL_CTL_ADD, tick_fd, &ev);
  printf("PORT %d\n", ntohs(addr.sin_port));
  if (!opt.no_tls) printf("CA %s\n", opt.ca_out ? opt.ca_out : "mock-apns-ca.pem");
  fflush(stdout);

  struct epoll_event events[256];
  for (;;) {
    int n = epoll_wait(epfd, events, 256, -1);
    if (n < 0 && errno != EINTR) die("epoll_wait failed");
    for (int i = 0; i < n; i++) {
      int fd = events[i].data.fd;
      if (fd == lfd) on_accept(lfd);
      else if (fd == timerfd_fd) on_timer();
      else if (fd == tick_fd) on_tick();
      else if (conns[fd] && conns[fd]->stalled) {
        /* Not served any more: only its end is watched (and the writes before a TCP reset). */
        conn_t *c = conns[fd];
        if (events[i].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
          if (c->frozen == FROZEN_ABORT) abort_now(c, " (the client closed first)");
          else conn_close(c);
        } else if (events[i].events & EPOLLOUT) {
          conn_flush(c);
        }
      } else if (conns[fd]) {
        conn_t *c = conns[fd];
        if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) conn_read(c);
        if (conns[fd] == c && (events[i].events & EPOLLOUT)) {
          if (!c->handshaken) conn_read(c);
          else mark_dirty(c);
        }
      }
    }
    /* Everything the events and the timer produced: one write per connection. */
    for (int i = 0; i < dirty_count; i++) {
      conn_t *c = dirty_list[i];
      c->dirty = 0;
      if (c->closed) free(c);
      else if (conn_flush(c) == 0 && c->frozen && !c->stalled) freeze(c);
    }
    dirty_count = 0;
  }
}
