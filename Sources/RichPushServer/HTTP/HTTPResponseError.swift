import Foundation
import RichPushCore

/// Every refusal the server answers with: the HTTP status, a stable code, the field at fault
/// when one is, what was wrong and what to do, and extra headers. Endpoints and admission throw
/// it; `response` renders it, the one place error bodies are written:
/// `{"error":{"code":…,"field"?:…,"message":…,"findings"?:[…]}}` (keys sorted, one line), or the
/// HTML `page` for the dashboard's own pages.
public struct HTTPResponseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status (400, 401, 403, 404, 405, 409, 413, 415, 429, 501, 502, 503…).
    public var status: Int
    /// A stable code (`missing_field`, `invalid_field`, `too_large`, `unauthorized`, …).
    public var code: String
    /// The request field at fault (`push_id`, `tokens`, `body`, `Content-Type`…), if any.
    public var field: String?
    /// What was wrong and what to send instead.
    public var message: String
    /// Extra headers (`Retry-After`, `Allow`, `WWW-Authenticate`, `Connection: close`…).
    public var headers: [Header]
    /// The lint findings when a push payload failed the checks.
    public var findings: [RichPushLintFinding]
    /// An HTML page answered instead of the JSON body (the login form, a push page's 404).
    public var page: String?

    /// One extra header.
    public struct Header: Sendable, Equatable {
        /// The header name.
        public var name: String
        /// Its value.
        public var value: String
    }

    /// Makes an error.
    ///
    /// - Parameters:
    ///   - status: the HTTP status (default 400).
    ///   - code: the stable code (default `invalid_request`).
    ///   - field: the field at fault.
    ///   - message: what was wrong and what to do.
    ///   - headers: extra headers.
    ///   - findings: lint findings.
    ///   - page: an HTML page to answer instead of JSON.
    public init(
        status: Int = 400, code: String = "invalid_request", field: String? = nil, message: String, headers: [(name: String, value: String)] = [],
        findings: [RichPushLintFinding] = [], page: String? = nil
    ) {
        self.status = status
        self.code = code
        self.field = field
        self.message = message
        self.headers = headers.map { Header(name: $0.name, value: $0.value) }
        self.findings = findings
        self.page = page
    }

    public var description: String { field.map { "\($0): \(message)" } ?? message }

    /// The response: the HTML page when there is one, else the JSON error body.
    public var response: ServerResponse {
        let headers = self.headers.map { (name: $0.name, value: $0.value) }
        if let page { return .html(status, page, headers: headers) }
        return ServerResponse(status: status, contentType: "application/json", body: jsonBody, headers: headers)
    }

    /// `{"error":{"code","field"?,"message","findings"?}}` and a newline.
    public var jsonBody: Data {
        var error: [String: RichPushJSONValue] = ["code": .string(code), "message": .string(message)]
        if let field { error["field"] = .string(field) }
        if !findings.isEmpty {
            error["findings"] = .array(
                findings.map { f in
                    .object([
                        "severity": .string(f.severity.rawValue), "code": .string(f.code.rawValue),
                        "key_path": f.keyPath.map(RichPushJSONValue.string) ?? .null, "message": .string(f.message),
                        "fixable": .bool(f.fixable),
                    ])
                })
        }
        return RichPushJSONValue.object(["error": .object(error)]).jsonData(sortedKeys: true) + Data("\n".utf8)
    }

    /// `405 Method Not Allowed` with the `Allow` header.
    ///
    /// - Parameter allowed: the methods the path takes.
    /// - Returns: the error.
    static func methodNotAllowed(_ allowed: [String]) -> HTTPResponseError {
        HTTPResponseError(
            status: 405, code: "method_not_allowed", message: "use \(allowed.joined(separator: " or ")) on this path",
            headers: [("Allow", allowed.joined(separator: ", "))])
    }

    /// `503 store_error` naming the store's problem (for the admin, or an app whose write
    /// failed: they may retry after a second).
    ///
    /// - Parameters:
    ///   - error: what the store threw.
    ///   - retry: whether to add `Retry-After: 1`.
    /// - Returns: the error.
    static func store(_ error: any Error, retry: Bool) -> HTTPResponseError {
        HTTPResponseError(
            status: 503, code: "store_error", message: (error as? RichPushError)?.message ?? String(describing: error),
            headers: retry ? [("Retry-After", "1")] : [])
    }
}
