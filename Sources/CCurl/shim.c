// Most wrappers are static inline in include/CCurl.h; these two need system headers of their own.
#ifdef __linux__
#include "CCurl.h"
#include <netdb.h>
#include <sys/socket.h>

int richpush_curl_sockaddr_text(const struct curl_sockaddr *address, char *buffer, size_t length) {
    if (address == NULL || buffer == NULL || length == 0) return -1;
    return getnameinfo(&address->addr, address->addrlen, buffer, (socklen_t)length, NULL, 0, NI_NUMERICHOST);
}

curl_socket_t richpush_curl_socket_open(const struct curl_sockaddr *address) {
    return socket(address->family, address->socktype, address->protocol);
}
#endif
