/// One problem the payload linter found: severity, a stable code, the key it is about, and a message.
public struct RichPushLintFinding: Sendable, Hashable, CustomStringConvertible {
    /// How bad a finding is.
    public struct Severity: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
        /// The notification will not work as meant (or APNs rejects it): sending stops.
        public static let error = Severity(rawValue: "error")
        /// Probably a mistake, but APNs accepts it.
        public static let warning = Severity(rawValue: "warning")
    }

    /// A stable, machine-readable finding code, e.g. `mutable_content_string`.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Not JSON, or not a JSON object.
        public static let invalidPayload = Code(rawValue: "invalid_payload")
        /// No `aps` dictionary.
        public static let missingAPS = Code(rawValue: "missing_aps")
        /// Over Apple's size limit (4096 bytes; 5120 for VoIP).
        public static let payloadTooLarge = Code(rawValue: "payload_too_large")
        /// `aps["mutable-content"]` is the string `"1"`.
        public static let mutableContentString = Code(rawValue: "mutable_content_string")
        /// `aps["mutable-content"]` is the boolean `true`.
        public static let mutableContentBool = Code(rawValue: "mutable_content_bool")
        /// `mutable_content` with an underscore.
        public static let mutableContentUnderscore = Code(rawValue: "mutable_content_underscore")
        /// `mutable-content` at the top level, outside `aps`.
        public static let mutableContentOutsideAPS = Code(rawValue: "mutable_content_outside_aps")
        /// FCM legacy `notification.mutable_content` sent to APNs as is (article 001).
        public static let fcmLegacyMutableContent = Code(rawValue: "fcm_legacy_mutable_content")
        /// Media is named but `aps["mutable-content"]` is not 1.
        public static let mutableContentMissing = Code(rawValue: "mutable_content_missing")
        /// Media is named but there is no visible alert.
        public static let mediaWithoutAlert = Code(rawValue: "media_without_alert")
        /// A background push (`content-available`, no alert) names media.
        public static let backgroundPushWithMedia = Code(rawValue: "background_push_with_media")
        /// A media URL that is not `https://`.
        public static let insecureMediaURL = Code(rawValue: "insecure_media_url")
        /// A media URL that is not a URL with a host.
        public static let badMediaURL = Code(rawValue: "bad_media_url")
        /// A member of `aps` of the wrong type (badge not an integer, …).
        public static let wrongType = Code(rawValue: "wrong_type")
        /// An `interruption-level` Apple does not document.
        public static let unknownInterruptionLevel = Code(rawValue: "unknown_interruption_level")
        /// A `relevance-score` outside 0…1.
        public static let relevanceScoreRange = Code(rawValue: "relevance_score_range")
        /// `interruption-level` `critical` without a `sound` dictionary (`{"critical": 1, "name", "volume"}`).
        public static let criticalWithoutSoundDictionary = Code(rawValue: "critical_without_sound_dictionary")
        /// A `sound` dictionary's `volume` outside 0…1 (Apple: 0.0 silent … 1.0 full).
        public static let soundVolumeRange = Code(rawValue: "sound_volume_range")
        /// A key in `aps` that Apple does not define (a misspelling, or an app's own key, which
        /// belongs outside `aps`); iOS ignores it.
        public static let unknownAPSKey = Code(rawValue: "unknown_aps_key")
        /// A message's `sender` that cannot be shown as one (missing id or name, wrong type).
        public static let invalidSender = Code(rawValue: "invalid_sender")
        /// A message's `conversation` that is wrong, or probably not what was meant.
        public static let invalidConversation = Code(rawValue: "invalid_conversation")
        /// A message's avatar URL that is not https (App Transport Security blocks it in the extension).
        public static let insecureAvatarURL = Code(rawValue: "insecure_avatar_url")
        /// The RichPush extension would find no media URL along its key paths.
        public static let noMediaURL = Code(rawValue: "no_media_url")
        /// The RichPush extension would find no push id along its key paths (no receipt).
        public static let noPushID = Code(rawValue: "no_push_id")
        /// The payload carries two different push ids along the key paths (OneSignal's `custom.i`
        /// and a `push_id` of the caller's data, say): receipts go to the first, a send recorded
        /// under the other gets none.
        public static let twoPushIDs = Code(rawValue: "two_push_ids")
    }

    /// How bad it is.
    public let severity: Severity
    /// The stable code.
    public let code: Code
    /// The key path the finding is about (`aps.mutable-content`), or `nil` for the whole payload.
    public let keyPath: String?
    /// What is wrong and what to do.
    public let message: String
    /// Whether `RichPushPayloadLinter.fix` rewrites it.
    public let fixable: Bool

    /// Makes a finding.
    /// - Parameters:
    ///   - severity: error or warning.
    ///   - code: the stable code.
    ///   - keyPath: the key it is about.
    ///   - message: what is wrong and what to do.
    ///   - fixable: whether `RichPushPayloadLinter.fix` rewrites it.
    public init(_ severity: Severity, _ code: Code, at keyPath: String?, _ message: String, fixable: Bool = false) {
        self.severity = severity
        self.code = code
        self.keyPath = keyPath
        self.message = message
        self.fixable = fixable
    }

    /// One line: `error mutable_content_string aps.mutable-content: … (fixable)` (`RichPushPayloadLinter.fix`
    /// rewrites it).
    public var description: String { description(fixableWith: nil) }

    /// One line, naming how a program runs `RichPushPayloadLinter.fix` on a fixable finding.
    ///
    /// - Parameter fix: the program's name for the fix (the command line's `--fix`), or `nil`.
    /// - Returns: e.g. `error wrong_type aps: … (fixable with --fix)`.
    public func description(fixableWith fix: String?) -> String {
        var line = "\(severity) \(code)"
        if let keyPath { line += " \(keyPath)" }
        line += ": \(message)"
        if fixable { line += fix.map { " (fixable with \($0))" } ?? " (fixable)" }
        return line
    }
}
