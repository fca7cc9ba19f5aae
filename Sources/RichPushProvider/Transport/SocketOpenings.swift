#if canImport(CCurl) && os(Linux)
/// The hosts a `CurlHTTP2Transport`'s libcurl opened a socket to (a new connection), noted by
/// `CURLOPT_OPENSOCKETFUNCTION` on the transport's loop thread and read by the same thread after
/// `curl_multi_perform`.
final class SocketOpenings {
    var hosts: [String] = []
}
#endif
