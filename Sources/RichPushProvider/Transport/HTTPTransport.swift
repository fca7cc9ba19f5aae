import RichPushCore

/// Sends HTTP requests for the APNs and FCM clients: `HTTP2Client` (libnghttp2) on Linux for the
/// sends, `CurlHTTPTransport` (libcurl) for FCM's OAuth2 token requests.
public protocol HTTPTransport: Sendable {
    /// Sends one request and waits for its whole response.
    ///
    /// - Parameter request: the request.
    /// - Returns: the response, whatever its status.
    /// - Throws: `RichPushError` with code `transport` when no response arrived (DNS, TCP, TLS,
    ///   HTTP/2 failure, timeout).
    func send(_ request: TransportRequest) async throws -> TransportResponse

    /// Sends many requests at once (as concurrent streams, within the transport's bounds) and
    /// waits until every one has its response or its error: one suspension for the whole batch
    /// instead of one per request.
    ///
    /// - Parameter requests: the requests, in order.
    /// - Returns: one result per request, in the same order; `.failure` holds a `RichPushError`
    ///   with code `transport` when no response arrived for that request.
    func send(batch requests: [TransportRequest]) async -> [Result<TransportResponse, any Error>]

    /// How many connections the transport has opened so far (1 when everything was multiplexed).
    var connectionsOpened: Int { get }

    /// What the transport's HTTP/2 connections went through (GOAWAYs, requests sent again because
    /// the server had not processed them, answers lost), when it counts that (`HTTP2Client`);
    /// `nil` for a transport that does not.
    var connectionStatistics: HTTP2ClientStatistics? { get }

    /// Closes connections and stops the transport's thread without waiting for it (never blocks
    /// the caller, which may be on the cooperative pool); later sends fail.
    func shutdown()

    /// Shuts the transport down and returns once nothing of it runs any more (its thread has
    /// freed its connections and libraries' state); call it before the process exits.
    func close() async
}

extension HTTPTransport {
    /// `nil`: this transport does not count.
    public var connectionStatistics: HTTP2ClientStatistics? { nil }

    /// `shutdown()`, for transports without a thread of their own to wait for.
    public func close() async { shutdown() }

    /// Sends the requests concurrently, one `send(_:)` each (transports without a native batch path).
    ///
    /// - Parameter requests: the requests, in order.
    /// - Returns: one result per request, in the same order.
    public func send(batch requests: [TransportRequest]) async -> [Result<TransportResponse, any Error>] {
        await withTaskGroup(of: (Int, Result<TransportResponse, any Error>).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask {
                    do { return (index, .success(try await self.send(request))) } catch { return (index, .failure(error)) }
                }
            }
            var results = [Result<TransportResponse, any Error>?](repeating: nil, count: requests.count)
            for await (index, result) in group { results[index] = result }
            return results.map { $0 ?? .failure(RichPushError(code: .transport, message: "no result for the request")) }
        }
    }
}
