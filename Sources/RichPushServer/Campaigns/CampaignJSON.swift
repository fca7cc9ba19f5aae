import Foundation
import RichPushCore

/// A campaign as the API shows it: `{campaign_id, push_id, state, targets, sent, accepted,
/// skipped, failed, in_flight, pending, resent_after_crash, rate_per_minute, queue_priority,
/// media, test, variants, …}`.
enum CampaignJSON {
    /// The campaign's JSON object.
    ///
    /// - Parameters:
    ///   - c: the campaign.
    ///   - nowMs: now, ms since 1970 (for the rate of a running campaign).
    ///   - variants: its variants (for `variants`; left out when empty and the campaign has none).
    ///   - funnels: their funnels (sent → accepted → displayed → opened → converted), when read.
    /// - Returns: the object.
    static func object(_ c: CampaignRecord, nowMs: Int, variants: [CampaignVariant] = [], funnels: [VariantFunnel] = []) -> RichPushJSONValue {
        func time(_ ms: Int?) -> RichPushJSONValue { ms.map { .string(SQLiteStore.iso8601($0)) } ?? .null }
        let done = c.sent + c.skipped + c.failed
        // Sends per minute since the start (to the finish, or now while it runs).
        var rate: RichPushJSONValue = .null
        if let started = c.startedAtMs {
            let end = c.finishedAtMs ?? nowMs
            let minutes = Double(max(end - started, 1)) / 60_000
            rate = .int(Int((Double(c.sent) / minutes).rounded()))
        }
        var object: [String: RichPushJSONValue] = [
            "campaign_id": .string(c.id), "push_id": .string(c.pushID), "state": .string(c.state), "title": c.title.map(RichPushJSONValue.string) ?? .null,
            "audience": .string(c.audience), "provider": c.provider.map(RichPushJSONValue.string) ?? .null, "collapse_id": .string(c.collapseID),
            "targets": .int(c.targets), "sent": .int(c.sent), "accepted": .int(c.accepted), "skipped": .int(c.skipped), "failed": .int(c.failed),
            "in_flight": .int(c.inFlight), "pending": .int(max(0, c.targets - done - c.inFlight)), "resent_after_crash": .int(c.resentAfterCrash),
            "per_minute": c.perMinute.map(RichPushJSONValue.int) ?? .null, "rate_per_minute": rate, "send_at": time(c.sendAtMs),
            "created_at": time(c.createdAtMs), "started_at": time(c.startedAtMs), "finished_at": time(c.finishedAtMs),
            "last_error": c.lastError.map(RichPushJSONValue.string) ?? .null, "queue_priority": .int(c.queuePriority), "media": media(c.mediaReport),
            "attribution_hours": c.attributionMs.map { .int($0 / 3_600_000) } ?? .null,
        ]
        if let share = c.testSharePercent {
            var test: [String: RichPushJSONValue] = [
                "share": .int(share), "window_minutes": .int((c.testWindowMs ?? 0) / 60_000), "winner_by": .string(c.winnerBy ?? "display_to_open"),
                "winner": c.winner.map(RichPushJSONValue.string) ?? .null, "winner_at": time(c.winnerAtMs),
            ]
            test["ends_at"] = c.startedAtMs.map { .string(SQLiteStore.iso8601($0 + (c.testWindowMs ?? 0))) } ?? .null
            object["test"] = .object(test)
        } else {
            object["test"] = .null
        }
        if c.hasVariants || !variants.isEmpty {
            object["variants"] = .array(
                variants.map { v in
                    var o: [String: RichPushJSONValue] = [
                        "variant": .string(v.name), "push_id": .string(v.pushID), "title": v.title.map(RichPushJSONValue.string) ?? .null,
                        "weight": .int(v.weight), "media": media(v.mediaReport),
                    ]
                    if let f = funnels.first(where: { $0.variant == v.name }) {
                        func rate(_ r: Double?) -> RichPushJSONValue {
                            r.flatMap { RichPushJSONNumber((($0 * 10_000).rounded() / 10_000)) }.map(RichPushJSONValue.number) ?? .null
                        }
                        o["sent"] = .int(f.sent)
                        o["accepted"] = .int(f.accepted)
                        o["displayed"] = .int(f.displayed)
                        o["displayed_with_media"] = .int(f.displayedWithMedia)
                        o["opened"] = .int(f.opened)
                        o["converted"] = .int(f.converted)
                        o["conversion_value"] = RichPushJSONNumber(f.conversionValue).map(RichPushJSONValue.number) ?? .int(0)
                        o["display_rate"] = rate(f.displayRate)
                        o["display_to_open"] = rate(f.displayToOpen)
                        o["conversion_rate"] = rate(f.conversionRate)
                    }
                    return .object(o)
                })
        }
        return .object(object)
    }

    /// A stored media report (a JSON array) as JSON, `null` when none.
    static func media(_ report: String?) -> RichPushJSONValue {
        report.flatMap { try? RichPushJSONValue.parse(Data($0.utf8)) } ?? .null
    }

    /// A JSON answer.
    static func response(_ status: Int, _ value: RichPushJSONValue) -> ServerResponse {
        ServerResponse(status: status, contentType: "application/json", body: value.jsonData(sortedKeys: true) + Data("\n".utf8))
    }
}
