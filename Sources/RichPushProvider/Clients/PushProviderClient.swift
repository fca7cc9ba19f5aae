import RichPushCore

/// A client of one push provider (`APNsClient`, `FCMClient`): sends one notification to the
/// device tokens of a source, reports each token's result as it is known, and closes.
///
/// What a caller that serves both providers (`richpush send`, `POST /v1/pushes`) holds instead
/// of switching on the provider.
public protocol PushProviderClient: AnyObject, Sendable {
    /// Which provider it sends through.
    var provider: PushProvider { get }

    /// Connections opened so far (1 when every request was multiplexed on one connection).
    var connectionsOpened: Int { get }

    /// What its connections went through (GOAWAYs, resends of requests the server had not
    /// processed, answers lost), when its transport counts that.
    var connectionStatistics: HTTP2ClientStatistics? { get }

    /// Sends one notification to a stream of device tokens, reading them only as room frees
    /// up, and reports each result as soon as it is known (memory stays flat for any count).
    ///
    /// - Parameters:
    ///   - notification: the APNs payload and headers (FCM passes them on as `message.apns`);
    ///     linted once, before any request.
    ///   - tokens: where the device tokens come from (APNs: hex; FCM: registration tokens).
    ///   - onResult: called once per token, in the order results become known, with the
    ///     token's 0-based position in the source.
    /// - Returns: the totals; `stoppedBy` says why the batch stopped early (configuration error,
    ///   unreachable host, unreadable source), and every later token is reported `not_sent`.
    /// - Throws: `RichPushError` with code `payload_rejected` or `invalid_request` when the
    ///   notification fails the checks (nothing is sent).
    func send(
        _ notification: APNsNotification, to tokens: any DeviceTokenSource,
        reporting onResult: (_ index: Int, _ result: any PushTokenResult) -> Void
    ) async throws -> PushBatchSummary

    /// Closes the connections and stops the transport thread without waiting (sends in flight
    /// fail soon after).
    func shutdown()

    /// Shuts down, then waits until the transport's thread has freed its connections and its
    /// libcurl and OpenSSL state; call it before the process exits.
    func close() async
}

extension PushProviderClient {
    /// `nil`: not counted.
    public var connectionStatistics: HTTP2ClientStatistics? { nil }

    /// Sends one notification to a list of device tokens and returns one result per token, in
    /// the list's order.
    ///
    /// - Parameters:
    ///   - notification: the APNs payload and headers; linted once, before any request.
    ///   - tokens: the device tokens.
    /// - Returns: the results in the tokens' order (`not_sent` after a stop) and the totals.
    /// - Throws: `RichPushError` with code `payload_rejected` or `invalid_request` (nothing sent).
    public func sendInOrder(_ notification: APNsNotification, to tokens: [String]) async throws -> (
        results: [any PushTokenResult], summary: PushBatchSummary
    ) {
        try await InOrderResults.collect(
            tokens, progress: nil,
            notSent: { token -> any PushTokenResult in
                switch provider {
                case .apns: APNsResult(deviceToken: token, outcome: .notSent, attempts: 0, message: InOrderResults.notSentMessage)
                case .fcm: FCMSendResult(deviceToken: token, outcome: .notSent, attempts: 0, message: InOrderResults.notSentMessage)
                }
            },
            send: { source, onResult in
                try await send(notification, to: source, reporting: onResult)
            }
        )
    }
}
