import Foundation

/// `richpush serve --webhook-url …`: the endpoints and how deliveries are retried.
///
/// Defaults: a 10 s delivery timeout; a failed delivery is retried after 5 s, then twice as long
/// each time up to 5 min (each wait drawn between half and all of it: jitter), and given up 24 h
/// after the event was written. So a receiver down for an hour gets every event within about
/// 5 minutes of being back, in order per subject.
public struct WebhookSettings: Sendable {
    /// The receivers.
    public var endpoints: [WebhookEndpoint]
    /// One delivery's whole time (connect, send, answer), seconds.
    public var timeoutSeconds: Double = 10
    /// The wait before the first retry, seconds; doubled after each failure.
    public var retryBaseSeconds: Double = 5
    /// The longest wait between two attempts, seconds.
    public var retryMaxSeconds: Double = 300
    /// How long after an event was written its delivery is given up, seconds (24 h).
    public var giveUpSeconds: Double = 86_400
    /// How often each instance looks for due deliveries when it has none, seconds (events
    /// written by another instance are seen within this time).
    public var pollSeconds: Double = 0.25
    /// On PostgreSQL, where a new event wakes the loops of every instance (`NOTIFY`), the
    /// slow poll of an idle loop, seconds (default 1): how late a retry or a delivery whose
    /// lease ran out can be seen.
    public var notifiedPollSeconds: Double = 1
    /// The most deliveries of one endpoint in flight at once (each of another subject).
    public var concurrency: Int = 8
    /// How long a given-up delivery stays in the outbox for inspection, seconds (7 days).
    public var failedRetentionSeconds: Double = 7 * 86_400

    /// Makes settings with the default timing.
    ///
    /// - Parameter endpoints: the receivers.
    public init(endpoints: [WebhookEndpoint]) {
        self.endpoints = endpoints
    }

    /// The outbox rows for `events`: one per event and endpoint subscribed to its type.
    ///
    /// - Parameter events: the events.
    /// - Returns: the deliveries, in event order.
    public func deliveries(for events: [WebhookEvent]) -> [WebhookDelivery] {
        var out: [WebhookDelivery] = []
        for event in events {
            for endpoint in endpoints where endpoint.receives(event.type) {
                out.append(WebhookDelivery(endpoint: endpoint.key, event: event))
            }
        }
        return out
    }

    /// The give-up time as text: `24 h`, `1.5 h`, `36 s`.
    public var giveUpText: String {
        let hours = giveUpSeconds / 3600
        if hours < 1 { return "\(Int(giveUpSeconds.rounded())) s" }
        return hours == hours.rounded() ? "\(Int(hours)) h" : "\(hours) h"
    }

    /// Whether any endpoint gets events of `type` (so producers skip building the others).
    ///
    /// - Parameter type: the event type.
    /// - Returns: `true` when subscribed somewhere.
    public func wants(_ type: WebhookEventType) -> Bool { endpoints.contains { $0.receives(type) } }

    /// The wait after the `attempt`-th failed attempt (1-based), in seconds: `retryBaseSeconds ×
    /// 2^(attempt−1)`, at most `retryMaxSeconds`, then drawn uniformly between half and all of it.
    ///
    /// - Parameter attempt: how many attempts failed so far (≥ 1).
    /// - Returns: seconds.
    public func retryDelay(afterAttempt attempt: Int) -> Double {
        let exponent = Double(min(max(attempt - 1, 0), 40))
        let full = min(retryMaxSeconds, retryBaseSeconds * pow(2, exponent))
        return Double.random(in: (full / 2)...max(full / 2, full))
    }
}
