/// Sends HTTP requests for the APNs and FCM clients; `CurlHTTP2Transport` on Linux.
public protocol HTTPTransport: Sendable {
    /// Sends one request and waits for its whole response.
    ///
    /// - Parameter request: the request.
    /// - Returns: the response, whatever its status.
    /// - Throws: `RichPushError` with code `transport` when no response arrived (DNS, TCP, TLS,
    ///   HTTP/2 failure, timeout).
    func send(_ request: HTTPRequest) async throws -> HTTPResponse

    /// How many connections the transport has opened so far (1 when everything was multiplexed).
    var connectionsOpened: Int { get }

    /// Closes connections and stops the transport's thread without waiting for it (never blocks
    /// the caller, which may be on the cooperative pool); later sends fail.
    func shutdown()
}
