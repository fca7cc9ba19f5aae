import Foundation
import RichPushCore

extension APNsNotification {
    /// The topic suffix of ActivityKit pushes: `apns-topic` is `<bundle id>.push-type.liveactivity` (Apple).
    public static let liveActivityTopicSuffix = ".push-type.liveactivity"

    /// An ActivityKit push notification to a device (an update token or a push-to-start token):
    /// `apns-push-type: liveactivity`, `apns-topic: <bundle id>.push-type.liveactivity`.
    ///
    /// - Parameters:
    ///   - payload: the payload.
    ///   - bundleID: the app's bundle id (the suffix is added when missing).
    ///   - priority: 10 (immediately; counts against the hourly budget) or 5 (Apple: "consider
    ///     this lower priority first"); `nil` sends no header (APNs uses 10).
    /// - Returns: the notification.
    public static func liveActivity(_ payload: LiveActivityPayload, bundleID: String, priority: APNsPriority? = nil) -> APNsNotification {
        var notification = APNsNotification(payload: payload.jsonData(), topic: liveActivityTopic(bundleID), pushType: .liveactivity)
        notification.priority = priority
        return notification
    }

    /// `<bundle id>.push-type.liveactivity` (unchanged when it already ends so).
    /// - Parameter bundleID: the app's bundle id.
    /// - Returns: the topic.
    public static func liveActivityTopic(_ bundleID: String) -> String {
        bundleID.hasSuffix(liveActivityTopicSuffix) ? bundleID : bundleID + liveActivityTopicSuffix
    }

    /// The checks of an ActivityKit push before it is sent: the topic's suffix, then
    /// `LiveActivityLinter` (no activity shapes: give the linter yours to check the content).
    ///
    /// - Parameter checkingTopic: whether the topic is checked (the server fills it in later when not).
    /// - Returns: the findings (warnings).
    /// - Throws: `RichPushError` `invalid_request` (topic) or `payload_rejected` (a lint error).
    func validateLiveActivity(checkingTopic: Bool) throws -> [RichPushLintFinding] {
        guard !checkingTopic || (topic.hasSuffix(Self.liveActivityTopicSuffix) && topic.count > Self.liveActivityTopicSuffix.count) else {
            throw RichPushError(
                code: .invalidRequest,
                message: "an ActivityKit push goes to the topic <bundle id>\(Self.liveActivityTopicSuffix) (Apple), not \"\(topic)\"",
                setting: Setting.topic.rawValue)
        }
        let findings = LiveActivityLinter(destination: .device(priority: priority?.rawValue)).lint(payload)
        let errors = findings.filter { $0.severity == .error }
        if !errors.isEmpty {
            throw RichPushError(code: .payloadRejected, message: "the payload was not sent: " + errors.map(\.description).joined(separator: "; "))
        }
        return findings
    }

    /// Whether sending this notification twice shows nothing twice, so a request whose answer
    /// was lost may be sent again: it carries an `apns-collapse-id`, or it is an ActivityKit
    /// update or end without an alert (the second copy carries the same content and timestamp).
    var resendsSafely: Bool {
        if collapseID != nil { return true }
        guard pushType == .liveactivity, let aps = (try? RichPushJSONValue.parse(payload))?["aps"] else { return false }
        return aps["alert"] == nil && aps["event"]?.stringValue != LiveActivityEvent.start.rawValue
    }
}
