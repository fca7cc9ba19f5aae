/// Why an avatar could not be handed over: the media reason (`http_status`, `timeout`,
/// `unsupported_format`, …) and what happened. The pipeline reports `avatar_failed`, with this
/// as its detail.
@_spi(RichPushInternal)
public struct AvatarFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The media reason.
    public var reason: RichPushReasonCode
    /// What happened.
    public var message: String

    /// Makes a failure.
    /// - Parameters:
    ///   - reason: the media reason.
    ///   - message: what happened.
    public init(_ reason: RichPushReasonCode, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(reason): \(message)" }
}
