/// Why media could not be fetched or attached: a reason code, the last HTTP status, and a message.
@_spi(RichPushInternal)
public struct FetchFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reason code reported in the result and the receipt.
    public var reason: RichPushReasonCode
    /// The status of the last response, when the server answered (e.g. 404 for `http_status`).
    public var httpStatus: Int?
    /// What happened, for logs and the command line.
    public var message: String
    /// The format the first bytes showed, when the body got that far (e.g. WebP for an
    /// `unsupported_format`), for provider-side reports.
    public var format: RichPushMediaFormat?

    /// Makes a failure.
    /// - Parameters:
    ///   - reason: the reason code.
    ///   - message: what happened.
    ///   - httpStatus: the last HTTP status, if any.
    public init(_ reason: RichPushReasonCode, _ message: String, httpStatus: Int? = nil) {
        self.reason = reason
        self.message = message
        self.httpStatus = httpStatus
    }

    public var description: String { "\(reason): \(message)" }
}

extension RichPushReasonCode {
    /// The media could not be written to disk (full disk, no permission to the attachments directory).
    ///
    /// Not in the architecture's list; a RichPush extension reports it instead of misreporting a
    /// network failure. Statistics keep unknown codes as they are.
    public static let storage = RichPushReasonCode(rawValue: "storage")

    /// The file's bytes name an attachable format but it is cut short or broken (`RichPushMediaIntegrity`):
    /// iOS would drop it after the extension handed it over.
    ///
    /// Not in the architecture's list (it was `not_media` before); statistics keep unknown codes.
    public static let corruptMedia = RichPushReasonCode(rawValue: "corrupt_media")
}
