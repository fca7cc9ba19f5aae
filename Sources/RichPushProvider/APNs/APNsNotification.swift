import Foundation
import RichPushCore

/// One notification to send to one or many device tokens: the payload and the APNs headers.
public struct APNsNotification: Sendable {
    /// Apple: `apns-collapse-id` is at most 64 bytes.
    public static let maximumCollapseIDBytes = 64

    /// The notification's settings a `validate` error is about (`RichPushError.setting`), in
    /// plain words: a program maps them to its own names (the command line's flags, a JSON API's
    /// fields).
    public enum Setting: String, Sendable, CaseIterable {
        /// `apns-topic`.
        case topic
        /// `apns-priority`.
        case priority
        /// `apns-push-type`.
        case pushType = "push type"
        /// `apns-collapse-id`.
        case collapseID = "collapse id"
    }

    /// The payload JSON bytes, sent as is.
    public var payload: Data
    /// `apns-topic`: the app's bundle id (plus `.voip`, `.complication`, … for those types).
    public var topic: String
    /// `apns-push-type`; default `alert`.
    public var pushType: APNsPushType = .alert
    /// `apns-priority`; `nil` lets APNs use 10.
    public var priority: APNsPriority?
    /// `apns-expiration`: until when APNs keeps retrying an offline device; `nil` = header not
    /// sent (APNs tries once); `Date(timeIntervalSince1970: 0)` = deliver now or never.
    public var expiration: Date?
    /// `apns-collapse-id`: notifications with the same id replace each other (≤ 64 bytes).
    public var collapseID: String?
    /// `apns-id`: a UUID naming the notification; `nil` lets APNs make one per request.
    public var apnsID: UUID?

    /// Describes a notification.
    /// - Parameters:
    ///   - payload: the payload bytes (use `RichPushPayloadBuilder.jsonData()`).
    ///   - topic: the `apns-topic` (bundle id).
    ///   - pushType: the push type.
    public init(payload: Data, topic: String, pushType: APNsPushType = .alert) {
        self.payload = payload
        self.topic = topic
        self.pushType = pushType
    }

    /// Checks what can be checked before sending, so APNs never sees a request it would refuse.
    ///
    /// - Parameters:
    ///   - linter: the payload linter (its `voip` follows `pushType`).
    ///   - checkingTopic: check `topic` (not for FCM, which sets the topic itself).
    /// - Returns: the lint findings (warnings included).
    /// - Throws: `RichPushError` with code `payload_rejected` (a lint error: too large, wrong
    ///   `mutable-content`, …) or `invalid_request` (collapse id over 64 bytes, empty topic,
    ///   `background` with priority 10), whose `setting` is the `Setting` to change (its message
    ///   names no program's option: the program adds its own name for the setting).
    public func validate(linter: RichPushPayloadLinter = RichPushPayloadLinter(), checkingTopic: Bool = true) throws -> [RichPushLintFinding] {
        if checkingTopic, topic.isEmpty || topic.contains(where: { $0.isWhitespace }) {
            throw RichPushError(
                code: .invalidRequest, message: "the topic \"\(topic)\" is not a bundle id; give the app's bundle id as the topic, e.g. com.example.app",
                setting: Setting.topic.rawValue)
        }
        if let collapseID, collapseID.utf8.count > Self.maximumCollapseIDBytes {
            throw RichPushError(
                code: .invalidRequest, message: "apns-collapse-id is \(collapseID.utf8.count) bytes; Apple allows at most \(Self.maximumCollapseIDBytes) bytes",
                setting: Setting.collapseID.rawValue)
        }
        if pushType == .liveactivity {
            // ActivityKit pushes have their own rules (topic suffix, event, dates, 4 KB of data).
            return try validateLiveActivity(checkingTopic: checkingTopic)
        }
        if pushType == .background, priority == .immediately {
            throw RichPushError(
                code: .invalidRequest, message: "a background push must have apns-priority 5 (Apple); give priority 5 (or none), or push type alert",
                setting: Setting.priority.rawValue)
        }
        var linter = linter
        linter.voip = pushType == .voip
        let findings = linter.lint(payload)
        let errors = findings.filter { $0.severity == .error }
        if !errors.isEmpty {
            throw RichPushError(
                code: .payloadRejected,
                message: "the payload was not sent: " + errors.map(\.description).joined(separator: "; ")
            )
        }
        return findings
    }

    /// The request headers for this notification.
    /// - Parameter bearer: the provider token, or `nil` for certificate auth.
    /// - Returns: the header fields, in a stable order.
    func headers(bearer: String?) -> [(name: String, value: String)] {
        var h: [(String, String)] = [
            ("apns-topic", topic),
            ("apns-push-type", pushType.rawValue),
            ("content-type", "application/json"),
        ]
        if let priority { h.append(("apns-priority", String(priority.rawValue))) }
        if let expiration {
            // Whole seconds, never trapping: a date past Int's range is sent as the largest
            // 32-bit UNIX time APNs documents values in (a date that far is "keep trying").
            let seconds = expiration.timeIntervalSince1970.rounded(.down)
            let value = seconds.isFinite ? Int(exactly: min(max(seconds, 0), 4_294_967_295)) ?? 0 : 0
            h.append(("apns-expiration", String(value)))
        }
        if let collapseID { h.append(("apns-collapse-id", collapseID)) }
        if let apnsID { h.append(("apns-id", apnsID.uuidString.lowercased())) }
        if let bearer { h.append(("authorization", "bearer " + bearer)) }
        return h
    }
}
