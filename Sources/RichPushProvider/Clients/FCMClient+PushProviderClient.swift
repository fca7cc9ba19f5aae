import RichPushCore

extension FCMClient: PushProviderClient {
    /// `.fcm`.
    public var provider: PushProvider { .fcm }

    /// Sends the notification as an FCM message (`FCMMessage(_:)`: its payload as
    /// `message.apns.payload`, its headers as `apns.headers`), as `send(_:tokens:onResult:)`.
    ///
    /// - Parameters:
    ///   - notification: the APNs payload and headers; linted once, before any request.
    ///   - tokens: where the registration tokens come from.
    ///   - onResult: called once per token as results become known, with its 0-based position.
    /// - Returns: the totals; `stoppedBy` when the batch stopped (later tokens: `not_sent`).
    /// - Throws: `RichPushError` `payload_rejected` when the APNs payload fails the checks, or
    ///   what `FCMMessage(_:)` throws.
    public func send(
        _ notification: APNsNotification, to tokens: any DeviceTokenSource, reporting onResult: (_ index: Int, _ result: any PushTokenResult) -> Void
    ) async throws -> PushBatchSummary {
        try await send(try FCMMessage(notification), tokens: tokens) { index, result in onResult(index, result) }
    }
}
