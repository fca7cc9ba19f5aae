import Foundation

/// The events of recorded sends: written with the batch, in its transaction.
extension WebhookSettings {
    /// The batches of a send with their webhook deliveries attached: `token.inactive` /
    /// `token.bad` for each token the batch marks, and (when `pushSent`) one `push.sent` with the
    /// whole send's counts, on the last batch (recorded last).
    ///
    /// - Parameters:
    ///   - records: the send's batches, in the order they are recorded.
    ///   - pushSent: whether to add `push.sent` (`POST /v1/pushes`; not for sends recorded from
    ///     another system).
    ///   - atMs: now, ms since 1970.
    /// - Returns: the batches, deliveries attached.
    public func attaching(to records: [PushSendRecord], pushSent: Bool, atMs: Int) -> [PushSendRecord] {
        var out = records
        let tokenEvents = wants(.tokenInactive) || wants(.tokenBad)
        for index in out.indices {
            var events: [WebhookEvent] = []
            if tokenEvents {
                let record = out[index]
                // The last result per token is the one the store keeps.
                var seen = Set<String>()
                for result in record.tokens.reversed() where seen.insert(result.deviceToken).inserted {
                    if let event = WebhookEvent.tokenState(result, provider: record.source, pushID: record.pushID, atMs: atMs) {
                        events.append(event)
                    }
                }
                events.reverse()
            }
            if pushSent, index == out.indices.last, wants(.pushSent), let event = WebhookEvent.pushSent(records, atMs: atMs) {
                events.append(event)
            }
            out[index].webhookDeliveries += deliveries(for: events)
        }
        return out
    }
}
