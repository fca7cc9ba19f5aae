import Foundation

/// What the pipeline delivered for one notification.
public struct RichPushResult: Sendable, Equatable {
    /// `media_attached`, `text_only` or `original`.
    public var outcome: RichPushOutcome
    /// Why media was not attached; `nil` when it was.
    public var reason: RichPushReasonCode?
    /// The status of the media server's last response, when it answered (e.g. 200, 404).
    public var httpStatus: Int?
    /// The push id found along `RichPushConfiguration.pushIDKeyPaths`.
    public var pushID: String?
    /// The key path the push id was found at.
    public var pushIDKeyPath: RichPushPayloadKeyPath?
    /// Whose payload it was (`RichPushVendor.recognise`), `nil` for none of the known vendors.
    public var vendor: RichPushVendor?
    /// Milliseconds from `start` to the moment the outcome was decided.
    public var elapsedMs: Int
    /// The content handed to the system; attachments carry file path, UTType and size in bytes.
    public var content: RichPushNotificationContent
    /// The receipt's status when the content was delivered.
    public var receipt: RichPushReceiptReport
    /// The normalised media URL, when the payload named one.
    public var mediaURL: URL?
    /// A sentence on what happened (the failure's message, or what was attached).
    public var message: String
    /// What the extension-depth steps did: decryption, media counts, cache, buttons, thumbnail, badge.
    public var details = RichPushResultDetails()

    /// Makes a result.
    public init(
        outcome: RichPushOutcome, reason: RichPushReasonCode?, httpStatus: Int?, pushID: String?, elapsedMs: Int,
        content: RichPushNotificationContent, receipt: RichPushReceiptReport, mediaURL: URL? = nil, message: String = ""
    ) {
        self.outcome = outcome
        self.reason = reason
        self.httpStatus = httpStatus
        self.pushID = pushID
        self.elapsedMs = elapsedMs
        self.content = content
        self.receipt = receipt
        self.mediaURL = mediaURL
        self.message = message
    }
}
