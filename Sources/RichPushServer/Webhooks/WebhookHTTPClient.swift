#if canImport(CCurl) && os(Linux)
import Foundation
@_spi(RichPushInternal) import RichPushCore
import RichPushProvider

/// The HTTP client of ONE webhook endpoint: a `CurlHTTPTransport` (libcurl's multi interface on a
/// thread of its own) with its own connections (at most `connections`: HTTP/1.1 receivers get
/// that many requests at once, HTTP/2 ones share them as streams), so a receiver that hangs holds
/// only its own endpoint's deliveries: other endpoints, on the same host or not, have their own
/// client.
///
/// Redirects are not followed. Each result says whether the request was sent (libcurl wrote the
/// request, or an answer came): a delivery that never left (no connection, the client shut down
/// before it went out) is not an attempt. Error texts name the endpoint by its redacted URL
/// (`WebhookEndpoint.displayURL`: no user, password or query), never the configured one.
final class WebhookHTTPClient: Sendable {
    /// One request's outcome.
    enum Outcome: Sendable {
        /// An HTTP answer: status, the `Location` header, up to 4 KB of the body.
        case answered(status: Int, location: String?, body: Data)
        /// No answer: why (built from the redacted URL), and whether the request went out.
        case failed(message: String, sent: Bool)
    }

    /// One request to send.
    struct Request: Sendable {
        var headers: [(name: String, value: String)]
        var body: Data
    }

    /// The most response body bytes kept (for the error text).
    static let maximumBodyBytes = 4_096

    private let url: String
    private let transport: CurlHTTPTransport

    /// Starts the client's thread.
    ///
    /// - Parameters:
    ///   - endpoint: the receiver (its URL; `displayURL` for messages).
    ///   - timeoutSeconds: one delivery's whole time (connect included; the connection itself
    ///     within at most 10 s).
    ///   - connections: the most connections to the receiver.
    /// - Throws: `RichPushError` `transport` when libcurl cannot start.
    init(endpoint: WebhookEndpoint, timeoutSeconds: Double, connections: Int) throws {
        url = endpoint.url
        var configuration = TransportConfiguration()
        configuration.requestTimeout = timeoutSeconds
        configuration.connectTimeout = min(timeoutSeconds, 10)
        configuration.maxConnectionsPerHost = max(1, connections)
        configuration.maximumResponseBodyBytes = Self.maximumBodyBytes
        let displayURL = endpoint.displayURL
        transport = try CurlHTTPTransport(configuration: configuration, describe: { _ in displayURL }, hints: false)
    }

    /// POSTs the requests at once and returns each outcome, in order.
    ///
    /// - Parameter requests: the requests.
    /// - Returns: one outcome per request.
    func post(_ requests: [Request]) async -> [Outcome] {
        let outcomes = await transport.perform(requests.map { TransportRequest(method: "POST", url: url, headers: $0.headers, body: $0.body) })
        return outcomes.map { outcome in
            switch outcome {
            case .answered(let response): return .answered(status: response.status, location: response.headers["location"], body: response.body)
            case .failed(let error, let sent): return .failed(message: error.message, sent: sent)
            }
        }
    }

    /// Cuts the requests in flight (their connections closed: a hanging receiver does not hold a
    /// shutdown) and stops the thread; returns once nothing of libcurl runs on it any more.
    func close() async {
        await transport.close()
    }
}
#endif
