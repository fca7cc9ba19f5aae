import Foundation
import RichPushCore

/// The events RichPush writes, one constructor per type (their `data` is documented in
/// docs/webhooks.md).
extension WebhookEvent {
    /// `token.inactive` or `token.bad` for a token whose state a send just recorded; `nil` when the
    /// result set no state (accepted, a transient error, a refusal that blames the topic).
    ///
    /// `data`: `{token, provider, push_id, status, reason, inactive_since}` (`inactive_since`:
    /// APNs' timestamp for a 410, RFC 3339, else `null`).
    ///
    /// - Parameters:
    ///   - result: the token's recorded result.
    ///   - provider: `apns`, `fcm`, or the source a recorded send named.
    ///   - pushID: the push the send was for.
    ///   - atMs: when it was recorded, ms since 1970.
    /// - Returns: the event, or `nil`.
    public static func tokenState(_ result: PushSendRecord.TokenResult, provider: String, pushID: String, atMs: Int) -> WebhookEvent? {
        let type: WebhookEventType
        switch result.state {
        case PushSendRecord.TokenState.inactive?: type = .tokenInactive
        case PushSendRecord.TokenState.bad?: type = .tokenBad
        default: return nil
        }
        return WebhookEvent(
            type: type, subject: result.deviceToken, createdAtMs: atMs,
            data: [
                "token": .string(result.deviceToken), "provider": .string(provider), "push_id": .string(pushID),
                "status": result.status.map(RichPushJSONValue.int) ?? .null, "reason": result.reason.map(RichPushJSONValue.string) ?? .null,
                "inactive_since": type == .tokenInactive ? result.inactiveSinceMs.map { .string(rfc3339($0)) } ?? .null : .null,
            ])
    }

    /// `push.sent`: a `POST /v1/pushes` send finished and its batches were recorded.
    ///
    /// `data`: `{push_id, title, sent, accepted, skipped, providers: {apns|fcm: {sent, accepted,
    /// skipped}}}`, the counts as the send's answer gives them.
    ///
    /// - Parameters:
    ///   - records: the send's batches (one per provider).
    ///   - atMs: when it finished, ms since 1970.
    /// - Returns: the event, or `nil` when there are no batches.
    public static func pushSent(_ records: [PushSendRecord], atMs: Int) -> WebhookEvent? {
        guard let first = records.first else { return nil }
        var total = PushSendRecord.Counts(sent: 0, accepted: 0, skipped: 0)
        var providers: [String: RichPushJSONValue] = [:]
        for record in records {
            let c = record.counts
            total.sent += c.sent
            total.accepted += c.accepted
            total.skipped += c.skipped
            providers[record.source] = .object(["sent": .int(c.sent), "accepted": .int(c.accepted), "skipped": .int(c.skipped)])
        }
        return WebhookEvent(
            type: .pushSent, subject: first.pushID, createdAtMs: atMs,
            data: [
                "push_id": .string(first.pushID), "title": first.title.map(RichPushJSONValue.string) ?? .null, "sent": .int(total.sent),
                "accepted": .int(total.accepted), "skipped": .int(total.skipped), "providers": .object(providers),
            ])
    }

    /// `media.refused`: a media URL of a push was refused at send.
    ///
    /// `data`: `{push_id, url, reason, message}` (`reason`: the extension's reason code the probe
    /// found, e.g. `too_large`, `unsupported_format`).
    ///
    /// - Parameters:
    ///   - pushID: the push.
    ///   - url: the media URL as the request gave it.
    ///   - reason: the reason code.
    ///   - message: what the `422` answer said, if anything.
    ///   - atMs: when, ms since 1970.
    /// - Returns: the event.
    public static func mediaRefused(pushID: String, url: String, reason: String, message: String?, atMs: Int) -> WebhookEvent {
        WebhookEvent(
            type: .mediaRefused, subject: pushID, createdAtMs: atMs,
            data: [
                "push_id": .string(pushID), "url": .string(url), "reason": .string(reason), "message": message.map(RichPushJSONValue.string) ?? .null,
            ])
    }

    /// `campaign.finished`: a campaign sent its last batch.
    ///
    /// `data`: `{campaign_id}` plus the fields given (counts, push ids, as the campaign keeps them).
    ///
    /// - Parameters:
    ///   - campaignID: the campaign.
    ///   - fields: more fields for `data` (`campaign_id` is set from `campaignID`).
    ///   - atMs: when, ms since 1970.
    /// - Returns: the event.
    public static func campaignFinished(campaignID: String, fields: [String: RichPushJSONValue], atMs: Int) -> WebhookEvent {
        var data = fields
        data["campaign_id"] = .string(campaignID)
        return WebhookEvent(type: .campaignFinished, subject: campaignID, createdAtMs: atMs, data: data)
    }
}
