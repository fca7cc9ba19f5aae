import Foundation

/// One HTTP response from a provider transport (`HTTPTransport`).
public struct TransportResponse: Sendable {
    /// The status code (200, 410, …).
    public var status: Int
    /// Header fields, names lower-cased (the last value wins).
    public var headers: [String: String]
    /// The body bytes.
    public var body: Data
    /// The HTTP version used: 2 for HTTP/2, 1 for HTTP/1.x.
    public var httpVersion: Int
    /// Whether the body was longer than the transport keeps
    /// (`TransportConfiguration.maximumResponseBodyBytes`) and was cut there.
    public var bodyTruncated = false

    /// Makes a response.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data(), httpVersion: Int = 2) {
        self.status = status
        self.headers = headers
        self.body = body
        self.httpVersion = httpVersion
    }
}
