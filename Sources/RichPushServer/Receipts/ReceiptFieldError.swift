import Foundation

/// A receipt the server refuses (`400`): which field, and why.
public struct ReceiptFieldError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable code: `missing_field`, `invalid_field`, `too_long`, `out_of_range`,
    /// `duplicate_field`, `invalid_body`.
    public let code: String
    /// The field name (`push_id`, `elapsed_ms`…), or `body` for the body as a whole.
    public let field: String
    /// What was wrong and what to send instead.
    public let message: String

    /// Makes an error.
    ///
    /// - Parameters:
    ///   - code: the stable code.
    ///   - field: the field at fault.
    ///   - message: what was wrong.
    public init(code: String, field: String, message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    public var description: String { "\(field): \(message)" }

    /// The JSON body of the `400`: `{"error":{"code":…,"field":…,"message":…}}`.
    public var jsonBody: Data {
        let object: [String: Any] = ["error": ["code": code, "field": field, "message": message]]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }
}
