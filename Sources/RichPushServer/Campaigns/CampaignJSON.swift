import Foundation
import RichPushCore

/// A campaign as the API shows it: `{campaign_id, push_id, state, targets, sent, accepted,
/// skipped, failed, in_flight, pending, resent_after_crash, rate_per_minute, …}`.
enum CampaignJSON {
    /// The campaign's JSON object.
    ///
    /// - Parameters:
    ///   - c: the campaign.
    ///   - nowMs: now, ms since 1970 (for the rate of a running campaign).
    /// - Returns: the object.
    static func object(_ c: CampaignRecord, nowMs: Int) -> RichPushJSONValue {
        func time(_ ms: Int?) -> RichPushJSONValue { ms.map { .string(SQLiteStore.iso8601($0)) } ?? .null }
        let done = c.sent + c.skipped + c.failed
        // Sends per minute since the start (to the finish, or now while it runs).
        var rate: RichPushJSONValue = .null
        if let started = c.startedAtMs {
            let end = c.finishedAtMs ?? nowMs
            let minutes = Double(max(end - started, 1)) / 60_000
            rate = .int(Int((Double(c.sent) / minutes).rounded()))
        }
        return .object([
            "campaign_id": .string(c.id), "push_id": .string(c.pushID), "state": .string(c.state), "title": c.title.map(RichPushJSONValue.string) ?? .null,
            "audience": .string(c.audience), "provider": c.provider.map(RichPushJSONValue.string) ?? .null, "collapse_id": .string(c.collapseID),
            "targets": .int(c.targets), "sent": .int(c.sent), "accepted": .int(c.accepted), "skipped": .int(c.skipped), "failed": .int(c.failed),
            "in_flight": .int(c.inFlight), "pending": .int(max(0, c.targets - done - c.inFlight)), "resent_after_crash": .int(c.resentAfterCrash),
            "per_minute": c.perMinute.map(RichPushJSONValue.int) ?? .null, "rate_per_minute": rate, "send_at": time(c.sendAtMs),
            "created_at": time(c.createdAtMs), "started_at": time(c.startedAtMs), "finished_at": time(c.finishedAtMs),
            "last_error": c.lastError.map(RichPushJSONValue.string) ?? .null,
        ])
    }

    /// A JSON answer.
    static func response(_ status: Int, _ value: RichPushJSONValue) -> ServerResponse {
        ServerResponse(status: status, contentType: "application/json", body: value.jsonData(sortedKeys: true) + Data("\n".utf8))
    }
}
