import Foundation

/// What one `NotificationPipeline` does: where it looks in payloads, its content rules, its deadline.
public struct PipelineConfiguration: Sendable {
    /// Where the media URL may be, tried in order; the first non-empty string wins.
    ///
    /// Default `PayloadKeyPath.defaultMediaKeyPaths`: the five articles' keys and Firebase's.
    public var mediaKeyPaths: [PayloadKeyPath] = PayloadKeyPath.defaultMediaKeyPaths
    /// Where the push id may be, tried in order; a string or an integer wins.
    ///
    /// Default `PayloadKeyPath.defaultPushIDKeyPaths`.
    public var pushIDKeyPaths: [PayloadKeyPath] = PayloadKeyPath.defaultPushIDKeyPaths
    /// Rule: the body shown when the payload's body is empty; `nil` turns the rule off.
    ///
    /// Default `"すぐに確認"` ("check it now"), article 000's text for an empty body.
    public var defaultBody: String? = PipelineConfiguration.articleDefaultBody
    /// Rule: the category identifier set when media is attached and the payload names no
    /// category (so a Content Extension for it shows the picture); `nil` turns the rule off.
    ///
    /// Default `"image"`, as article 000 does. A category the payload names is kept: it is the
    /// provider's choice and its actions must not disappear.
    public var mediaCategoryIdentifier: String? = "image"
    /// The pipeline's own stop for media work, in seconds from `start` (default 25).
    ///
    /// - Important: Apple gives a service extension about 30 s before it calls
    ///   `serviceExtensionTimeWillExpire()`; 25 s leaves time to hand the content over.
    public var deadline: Double = 25
    /// Hosts that may be reached over cleartext `http://`: App Transport Security exceptions
    /// (`NSExceptionDomains` in the extension's Info.plist). Everything else must be https.
    public var allowedHTTPHosts: Set<String> = []
    /// Where the receipt is posted (form-encoded, `push_id` first); `nil` = no receipt.
    public var receiptsURL: URL?
    /// How long delivery may wait for the receipt's answer, in seconds (default 2): never past
    /// `deadline`, and `PipelineRun.expire()` ends the wait at once.
    public var receiptWait: Double = 2
    /// The receipt request's own limit, in seconds (default 10); it may go on after delivery.
    public var receiptTimeout: Double = 10
    /// The parent of the fresh per-notification folders media files are written to.
    ///
    /// Default: `RichPush-attachments` in the temporary directory. On iOS use a folder the
    /// extension owns; the system moves an attached file into its own store.
    public var attachmentsDirectory: URL = FileManager.default.temporaryDirectory.appendingPathComponent("RichPush-attachments")

    // MARK: Extension depth (issue 6)

    /// Keys for encrypted payloads (`enc` envelopes); `nil` = an encrypted payload keeps the
    /// server's alert with reason `decrypt_failed` (`unknown_kid`).
    public var keyProvider: (any KeyProvider)?
    /// The shared media cache (App Group container); `nil` = every media is fetched.
    public var mediaCache: MediaCache?
    /// The shared container for the receipt queue, install id, seen pushes and badge counter
    /// (App Group container); `nil` = receipts sent once without a queue, `badge_op` ignored.
    public var stateDirectory: URL?
    /// Where the one log line per notification goes (default: os_log / standard error).
    public var logger: NotificationLogger = .standard

    /// Article 000's text for an empty body: "すぐに確認" ("check it now").
    public static let articleDefaultBody = "すぐに確認"

    /// Makes the default configuration (every convention on, 25 s deadline, no receipt).
    public init() {}
}
