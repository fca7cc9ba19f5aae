/// Thrown by a `start(…, validate:)` hook to refuse a downloaded file, with the reason to report.
///
/// The iOS bridge throws it when `UNNotificationAttachment(identifier:url:options:)` rejects the
/// file. Any other error thrown by the hook is reported as `unsupported_format`.
public struct RichPushMediaValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reason code for the result and the receipt, e.g. `unsupported_format`.
    public var reason: RichPushReasonCode
    /// What the validator said.
    public var message: String

    /// Makes a validation error.
    /// - Parameters:
    ///   - reason: the reason code to report.
    ///   - message: what was wrong.
    public init(reason: RichPushReasonCode, message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(reason): \(message)" }
}
