import Foundation

/// An HTTP response: status, content type, body and extra headers.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The `Content-Type`, sent when the body is not empty.
    public var contentType: String?
    /// The body bytes.
    public var body: Data
    /// Extra headers (`Allow`, `Location`, `Set-Cookie`…).
    public var headers: [(name: String, value: String)]

    /// Makes a response.
    public init(status: Int, contentType: String? = nil, body: Data = Data(), headers: [(name: String, value: String)] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    /// A response with no body.
    public static func empty(_ status: Int, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers)
    }

    /// A JSON response from an `Encodable` value (keys sorted).
    public static func json(_ status: Int, _ value: some Encodable) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let body = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return HTTPResponse(status: status, contentType: "application/json", body: body + Data("\n".utf8))
    }

    /// A JSON error `{"error":{"code":…,"message":…}}`.
    public static func error(_ status: Int, code: String, message: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        let object: [String: Any] = ["error": ["code": code, "message": message]]
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return HTTPResponse(status: status, contentType: "application/json", body: body + Data("\n".utf8), headers: headers)
    }

    /// An HTML page.
    public static func html(_ status: Int, _ page: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/html; charset=utf-8", body: Data(page.utf8), headers: headers)
    }

    /// `405 Method Not Allowed` with the `Allow` header.
    public static func methodNotAllowed(_ allowed: [String]) -> HTTPResponse {
        error(
            405, code: "method_not_allowed", message: "use \(allowed.joined(separator: " or ")) on this path",
            headers: [("Allow", allowed.joined(separator: ", "))]
        )
    }
}
