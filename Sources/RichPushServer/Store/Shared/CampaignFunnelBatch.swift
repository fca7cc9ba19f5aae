import Foundation

/// The push's funnel record of one batch of a campaign (`CampaignStore.recordCampaignResults`):
/// written in the commit that records the results, for exactly the targets that commit gives a
/// result. A target with a result already (recorded by a worker that took the chunk over) is
/// not counted again, so the funnel's `sent` is the number of tokens sent to, however many
/// times a crash made a token be sent; the resends are the campaign's `resent_after_crash`.
public struct CampaignFunnelBatch: Sendable, Equatable {
    /// The batch's name within the claim (unique per lease owner), e.g. `3` or `skipped`.
    public var name: String
    /// When it was sent, ms since 1970.
    public var sentAtMs: Int

    /// Makes a funnel batch.
    ///
    /// - Parameters:
    ///   - name: the batch's name within the claim.
    ///   - sentAtMs: when it was sent, ms since 1970.
    public init(name: String, sentAtMs: Int) {
        self.name = name
        self.sentAtMs = sentAtMs
    }

    /// The send records for the results whose tokens are in `recorded` (those the commit gave a
    /// result), one per provider, with batch ids unique per campaign, chunk, owner, batch and
    /// provider (`campaign:<id>:<chunk>:<owner>:<name>:<provider>`).
    ///
    /// - Parameters:
    ///   - results: the results, with their funnel records.
    ///   - recorded: the tokens the commit gave a result.
    ///   - chunk: the leased chunk.
    /// - Returns: the records, empty when none has a funnel record.
    func sends(_ results: [CampaignTargetResult], recorded: Set<String>, chunk: CampaignChunk) -> [PushSendRecord] {
        var byProvider: [String: [PushSendRecord.TokenResult]] = [:]
        for result in results where recorded.contains(result.token) {
            guard let send = result.send else { continue }
            byProvider[result.provider ?? "apns", default: []].append(send)
        }
        let campaign = chunk.campaign
        return byProvider.keys.sorted().compactMap { provider in
            guard let tokens = byProvider[provider] else { return nil }
            return PushSendRecord(
                pushID: campaign.pushID, sentAtMs: sentAtMs, title: campaign.title, tokens: tokens, source: provider,
                batchID: "campaign:\(campaign.id):\(chunk.chunk):\(chunk.owner):\(name):\(provider)")
        }
    }
}
