import Foundation

/// The push's funnel record of one batch of a campaign (`CampaignStore.recordCampaignResults`):
/// written in the commit that records the results, for exactly the targets that commit gives a
/// result. A target with a result already (recorded by a worker that took the chunk over) is
/// not counted again, so the funnel's `sent` is the number of tokens sent to, however many
/// times a crash made a token be sent; the resends are the campaign's `resent_after_crash`.
public struct CampaignFunnelBatch: Sendable {
    /// The batch's name within the claim (unique per lease owner), e.g. `3` or `skipped`.
    public var name: String
    /// When it was sent, ms since 1970.
    public var sentAtMs: Int
    /// Where `token.inactive` and `token.bad` of the batch's tokens go (written in the same
    /// commit, so once per token however often a crash made it be sent); `nil`: none.
    public var webhooks: WebhookSettings?

    /// Makes a funnel batch.
    ///
    /// - Parameters:
    ///   - name: the batch's name within the claim.
    ///   - sentAtMs: when it was sent, ms since 1970.
    ///   - webhooks: the endpoints of the tokens' events, `nil` for none.
    public init(name: String, sentAtMs: Int, webhooks: WebhookSettings? = nil) {
        self.name = name
        self.sentAtMs = sentAtMs
        self.webhooks = webhooks
    }

    /// The send records for the results whose tokens are in `recorded` (those the commit gave a
    /// result), one per provider and push id (a campaign with variants records each variant in
    /// its own push's funnel), with batch ids unique per campaign, chunk, owner, batch, provider
    /// and variant (`campaign:<id>:<chunk>:<owner>:<name>:<provider>[:<variant>]`), and the
    /// tokens' `token.inactive`/`token.bad` events attached.
    ///
    /// - Parameters:
    ///   - results: the results, with their funnel records.
    ///   - recorded: the tokens the commit gave a result.
    ///   - chunk: the leased chunk.
    /// - Returns: the records, empty when none has a funnel record.
    func sends(_ results: [CampaignTargetResult], recorded: Set<String>, chunk: CampaignChunk) -> [PushSendRecord] {
        var targets: [String: CampaignChunk.Target] = [:]
        for target in chunk.targets { targets[target.token] = target }
        struct Key: Hashable, Comparable {
            var provider: String
            var variant: String
            static func < (a: Key, b: Key) -> Bool { (a.provider, a.variant) < (b.provider, b.variant) }
        }
        var groups: [Key: (pushID: String, title: String?, tokens: [PushSendRecord.TokenResult])] = [:]
        for result in results where recorded.contains(result.token) {
            guard let send = result.send else { continue }
            let target = targets[result.token] ?? CampaignChunk.Target(token: result.token, provider: result.provider ?? "apns", wasInFlight: false)
            let content = chunk.content(for: target)
            let key = Key(provider: result.provider ?? "apns", variant: content.variant ?? "")
            groups[key, default: (content.pushID, content.title, [])].tokens.append(send)
        }
        let campaign = chunk.campaign
        let records = groups.keys.sorted().compactMap { key -> PushSendRecord? in
            guard let group = groups[key] else { return nil }
            let suffix = key.variant.isEmpty ? "" : ":\(key.variant)"
            return PushSendRecord(
                pushID: group.pushID, sentAtMs: sentAtMs, title: group.title, tokens: group.tokens, source: key.provider,
                batchID: "campaign:\(campaign.id):\(chunk.chunk):\(chunk.owner):\(name):\(key.provider)\(suffix)")
        }
        return webhooks?.attaching(to: records, pushSent: false, atMs: sentAtMs) ?? records
    }
}
