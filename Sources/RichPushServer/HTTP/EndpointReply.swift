/// What an endpoint handler gives back: an answer now (a refused request), or store work whose
/// answer is sent later from a queue (the connection waits, suspended).
enum EndpointReply {
    /// Answer at once.
    case now(HTTPResponse)
    /// Run this off the server's threads and answer with its result.
    case later(@Sendable () -> HTTPResponse)
}
