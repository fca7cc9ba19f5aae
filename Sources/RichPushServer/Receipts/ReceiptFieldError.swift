import Foundation

/// A receipt the server refuses (`400`, or `415` for a body type it does not read): which
/// field, and why.
public struct ReceiptFieldError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable code: `missing_field`, `invalid_field`, `too_long`, `out_of_range`,
    /// `not_printable` (an id breaking `IdentifierRule`), `duplicate_field`, `invalid_body`,
    /// `unsupported_media_type`.
    public let code: String
    /// The HTTP status to answer: `400`, or `415` for `unsupported_media_type`.
    public let status: Int
    /// The field name (`push_id`, `elapsed_ms`…), `body` for the body as a whole, or
    /// `Content-Type` for the header.
    public let field: String
    /// What was wrong and what to send instead.
    public let message: String

    /// Makes an error.
    ///
    /// - Parameters:
    ///   - code: the stable code.
    ///   - field: the field at fault.
    ///   - message: what was wrong.
    ///   - status: the HTTP status, `400` unless the body's type is the problem (`415`).
    public init(code: String, field: String, message: String, status: Int = 400) {
        self.code = code
        self.status = status
        self.field = field
        self.message = message
    }

    public var description: String { "\(field): \(message)" }

    /// The JSON body of the `400` / `415`: `{"error":{"code":…,"field":…,"message":…}}`.
    public var jsonBody: Data {
        let object: [String: Any] = ["error": ["code": code, "field": field, "message": message]]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }
}
