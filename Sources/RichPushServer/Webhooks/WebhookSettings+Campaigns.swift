import Foundation
import RichPushCore

/// The events of campaigns: `campaign.finished`, written in the transaction that moves the
/// campaign out of `scheduled`/`running` (to `finished` or `cancelled`).
extension WebhookSettings {
    /// The deliveries reporting that `campaigns` ended, as read inside the transaction that ended
    /// them (the state change is the guard: an `UPDATE … WHERE state = 'running'` changes a
    /// campaign's row once, so one event per campaign however many instances finish chunks at once).
    ///
    /// - Parameters:
    ///   - campaigns: the campaigns just moved to `finished` or `cancelled`.
    ///   - atMs: now, ms since 1970.
    /// - Returns: the deliveries (none when no endpoint receives `campaign.finished`).
    public func campaignEndDeliveries(_ campaigns: [CampaignRecord], atMs: Int) -> [WebhookDelivery] {
        guard wants(.campaignFinished) else { return [] }
        return deliveries(for: campaigns.map { WebhookEvent.campaignFinished($0, atMs: atMs) })
    }
}

extension WebhookEvent {
    /// `campaign.finished` for a campaign as the store keeps it.
    ///
    /// `data`: `{campaign_id, push_id, title, state (finished|cancelled), targets, sent, accepted,
    /// failed, skipped, resent_after_crash, started_at, finished_at, last_error}` (times RFC 3339,
    /// `started_at` `null` for a campaign cancelled before it started).
    ///
    /// - Parameters:
    ///   - campaign: the campaign after the change.
    ///   - atMs: when, ms since 1970.
    /// - Returns: the event.
    public static func campaignFinished(_ campaign: CampaignRecord, atMs: Int) -> WebhookEvent {
        campaignFinished(
            campaignID: campaign.id,
            fields: [
                "push_id": .string(campaign.pushID), "title": campaign.title.map(RichPushJSONValue.string) ?? .null, "state": .string(campaign.state),
                "targets": .int(campaign.targets), "sent": .int(campaign.sent), "accepted": .int(campaign.accepted),
                "failed": .int(campaign.failed), "skipped": .int(campaign.skipped), "resent_after_crash": .int(campaign.resentAfterCrash),
                "started_at": campaign.startedAtMs.map { .string(rfc3339($0)) } ?? .null,
                "finished_at": campaign.finishedAtMs.map { .string(rfc3339($0)) } ?? .null,
                "last_error": campaign.lastError.map(RichPushJSONValue.string) ?? .null,
            ], atMs: atMs)
    }
}
