import Foundation

/// One HTTP request for a provider transport (`HTTPTransport`): to APNs, FCM or an OAuth2 token endpoint.
public struct TransportRequest: Sendable {
    /// `GET`, `POST`, …
    public var method: String
    /// The absolute URL.
    public var url: String
    /// Header fields in order (names as sent; HTTP/2 lower-cases them).
    public var headers: [(name: String, value: String)]
    /// The body; empty for none.
    public var body: Data

    /// Makes a request.
    /// - Parameters:
    ///   - method: the method.
    ///   - url: the absolute URL.
    ///   - headers: header fields.
    ///   - body: the body bytes.
    public init(method: String = "POST", url: String, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}
