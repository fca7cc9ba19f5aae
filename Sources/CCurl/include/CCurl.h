#ifndef RICHPUSH_CCURL_H
#define RICHPUSH_CCURL_H

// A thin, typed shim over libcurl (Debian: libcurl4-openssl-dev).
// curl_easy_setopt / curl_easy_getinfo are variadic and cannot be called from Swift;
// these wrappers fix the argument type per call site.

#ifdef __linux__
#include <curl/curl.h>

typedef size_t (*richpush_curl_data_cb)(char *ptr, size_t size, size_t nmemb, void *userdata);
typedef int (*richpush_curl_xferinfo_cb)(void *clientp, curl_off_t dltotal, curl_off_t dlnow,
                                         curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode richpush_curl_setopt_long(CURL *h, CURLoption o, long v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode richpush_curl_setopt_off(CURL *h, CURLoption o, curl_off_t v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode richpush_curl_setopt_string(CURL *h, CURLoption o, const char *v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode richpush_curl_setopt_pointer(CURL *h, CURLoption o, void *v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode richpush_curl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode richpush_curl_setopt_write_cb(CURL *h, richpush_curl_data_cb cb) {
    return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, cb);
}
static inline CURLcode richpush_curl_setopt_header_cb(CURL *h, richpush_curl_data_cb cb) {
    return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, cb);
}
static inline CURLcode richpush_curl_setopt_read_cb(CURL *h, richpush_curl_data_cb cb) {
    return curl_easy_setopt(h, CURLOPT_READFUNCTION, cb);
}
static inline CURLcode richpush_curl_setopt_xferinfo_cb(CURL *h, richpush_curl_xferinfo_cb cb) {
    return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, cb);
}
static inline CURLcode richpush_curl_getinfo_long(CURL *h, CURLINFO i, long *out) {
    return curl_easy_getinfo(h, i, out);
}
static inline CURLcode richpush_curl_getinfo_off(CURL *h, CURLINFO i, curl_off_t *out) {
    return curl_easy_getinfo(h, i, out);
}
static inline CURLcode richpush_curl_getinfo_string(CURL *h, CURLINFO i, char **out) {
    return curl_easy_getinfo(h, i, out);
}
// CURLOPT_OPENSOCKETFUNCTION: lets the caller refuse an address before any packet is sent
// (provider-side media probe: no request to loopback, private or link-local addresses).
typedef curl_socket_t (*richpush_curl_opensocket_cb)(void *clientp, curlsocktype purpose,
                                                      struct curl_sockaddr *address);
static inline CURLcode richpush_curl_setopt_opensocket_cb(CURL *h, richpush_curl_opensocket_cb cb) {
    return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, cb);
}
// The numeric host of a curl_sockaddr (getnameinfo NI_NUMERICHOST); 0 on success.
int richpush_curl_sockaddr_text(const struct curl_sockaddr *address, char *buffer, size_t length);
// socket(2) for a curl_sockaddr, as libcurl's default open does.
curl_socket_t richpush_curl_socket_open(const struct curl_sockaddr *address);
static inline CURLMcode richpush_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) {
    return curl_multi_setopt(m, o, v);
}
/* The running libcurl's version as 0xXXYYZZ (8.0.0 = 0x080000), and as text. */
static inline unsigned int richpush_curl_version_num(void) {
    return curl_version_info(CURLVERSION_NOW)->version_num;
}
static inline const char *richpush_curl_version_text(void) {
    return curl_version_info(CURLVERSION_NOW)->version;
}
#endif

#endif
