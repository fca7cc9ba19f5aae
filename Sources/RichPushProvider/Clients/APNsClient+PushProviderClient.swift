import RichPushCore

extension APNsClient: PushProviderClient {
    /// `.apns`.
    public var provider: PushProvider { .apns }

    /// Sends as `send(_:tokens:onResult:)`, each result as `any PushTokenResult`.
    ///
    /// - Parameters:
    ///   - notification: the payload and headers; linted once, before any request.
    ///   - tokens: where the hex tokens come from.
    ///   - onResult: called once per token as results become known, with its 0-based position.
    /// - Returns: the totals; `stoppedBy` when the batch stopped (later tokens: `not_sent`).
    /// - Throws: `RichPushError` with code `payload_rejected` or `invalid_request` (nothing sent).
    public func send(
        _ notification: APNsNotification, to tokens: any DeviceTokenSource, reporting onResult: (_ index: Int, _ result: any PushTokenResult) -> Void
    ) async throws -> PushBatchSummary {
        try await send(notification, tokens: tokens) { index, result in onResult(index, result) }
    }
}
