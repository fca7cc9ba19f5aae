import Foundation

/// What an endpoint answers: status, content type, body and extra headers. Refusals are thrown
/// as `HTTPResponseError` and rendered by it.
public struct ServerResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The `Content-Type`, sent when the body is not empty.
    public var contentType: String?
    /// The body bytes.
    public var body: Data
    /// Extra headers (`Allow`, `Location`, `Set-Cookie`…).
    public var headers: [(name: String, value: String)]
    /// A body in a file instead of `body` (a large export), sent from the file as the client reads it.
    public var file: ResponseFile?

    /// Makes a response.
    ///
    /// - Parameters:
    ///   - status: the status code.
    ///   - contentType: the body's type.
    ///   - body: the body bytes.
    ///   - headers: extra headers.
    public init(status: Int, contentType: String? = nil, body: Data = Data(), headers: [(name: String, value: String)] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    /// A response with no body.
    ///
    /// - Parameters:
    ///   - status: the status code.
    ///   - headers: extra headers.
    /// - Returns: the response.
    public static func empty(_ status: Int, headers: [(name: String, value: String)] = []) -> ServerResponse {
        ServerResponse(status: status, headers: headers)
    }

    /// A JSON response from an `Encodable` value (keys sorted, pretty-printed).
    ///
    /// - Parameters:
    ///   - status: the status code.
    ///   - value: the value to encode.
    /// - Returns: the response.
    public static func json(_ status: Int, _ value: some Encodable) -> ServerResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let body = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return ServerResponse(status: status, contentType: "application/json", body: body + Data("\n".utf8))
    }

    /// An HTML page.
    ///
    /// - Parameters:
    ///   - status: the status code.
    ///   - page: the page's text.
    ///   - headers: extra headers.
    /// - Returns: the response.
    public static func html(_ status: Int, _ page: String, headers: [(name: String, value: String)] = []) -> ServerResponse {
        ServerResponse(status: status, contentType: "text/html; charset=utf-8", body: Data(page.utf8), headers: headers)
    }

    /// The response with `Cache-Control: no-store` added (admin figures and pages).
    var notStored: ServerResponse {
        var out = self
        out.headers.append(("Cache-Control", "no-store"))
        return out
    }
}
