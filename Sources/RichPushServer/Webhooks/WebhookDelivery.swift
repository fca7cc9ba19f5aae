/// One row to write to the outbox: an event for one endpoint. An event subscribed by two
/// endpoints is two deliveries with the same event id, each retried and ordered on its own.
public struct WebhookDelivery: Sendable, Equatable {
    /// The endpoint's `key`.
    public var endpoint: String
    /// The event.
    public var event: WebhookEvent

    /// Makes a delivery.
    ///
    /// - Parameters:
    ///   - endpoint: the endpoint's key.
    ///   - event: the event.
    public init(endpoint: String, event: WebhookEvent) {
        self.endpoint = endpoint
        self.event = event
    }
}
