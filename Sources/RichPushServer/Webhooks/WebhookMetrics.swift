import Foundation
@_spi(RichPushInternal) import RichPushCore

/// This instance's delivery counters per endpoint, for `/metrics` (the outbox's own figures,
/// over every instance, come from the store: `WebhookOutboxStore.webhookStatus()`).
public final class WebhookMetrics: Sendable {
    private struct Counters {
        var delivered: [String: Int] = [:]
        var retried: [String: Int] = [:]
        var gaveUp: [String: Int] = [:]
        var storeErrors = 0
    }

    private let counters = Locked(Counters())

    /// Makes empty counters.
    public init() {}

    /// Counts the attempts of one batch.
    ///
    /// - Parameters:
    ///   - attempts: the outcomes.
    ///   - endpoint: the endpoint's key.
    func record(_ attempts: [WebhookAttempt], endpoint: String) {
        counters.withLock { c in
            for a in attempts {
                switch a.outcome {
                case .delivered: c.delivered[endpoint, default: 0] += 1
                // A try that never went out is no attempt (it is retried all the same).
                case .retry: if a.sent { c.retried[endpoint, default: 0] += 1 }
                case .gaveUp: c.gaveUp[endpoint, default: 0] += 1
                }
            }
        }
    }

    /// Counts a store failure of the dispatcher (a claim or a finish that did not commit).
    func storeFailed() { counters.withLock { $0.storeErrors += 1 } }

    /// Attempts this instance made to `endpoint` that ended `delivered`, `retry` or `gave_up`.
    ///
    /// - Parameter endpoint: the endpoint's key.
    /// - Returns: the three counts.
    public func attempts(_ endpoint: String) -> (delivered: Int, retried: Int, gaveUp: Int) {
        counters.withLock { ($0.delivered[endpoint] ?? 0, $0.retried[endpoint] ?? 0, $0.gaveUp[endpoint] ?? 0) }
    }

    /// The Prometheus text for the endpoints: this instance's attempts, and the outbox's figures.
    ///
    /// - Parameters:
    ///   - endpoints: the configured endpoints.
    ///   - status: the outbox's figures per endpoint key (`nil` when the store could not be read).
    ///   - nowMs: now, ms since 1970.
    /// - Returns: `# HELP`/`# TYPE` lines and samples.
    func render(_ endpoints: [WebhookEndpoint], status: [String: WebhookEndpointStatus]?, nowMs: Int) -> String {
        let c = counters.withLock { $0 }
        // The endpoint's key, never its URL: /metrics is open, and Slack, Discord and Teams put
        // the webhook's secret in the URL's path.
        func label(_ e: WebhookEndpoint) -> String { "endpoint=\"\(e.key)\"" }
        var out =
            "# HELP richpush_webhook_attempts_total Webhook delivery attempts by this instance, by result (delivered: 2xx; retry: failed, tried again later; gave_up: failed past the give-up time).\n# TYPE richpush_webhook_attempts_total counter\n"
        for e in endpoints {
            out += "richpush_webhook_attempts_total{\(label(e)),result=\"delivered\"} \(c.delivered[e.key] ?? 0)\n"
            out += "richpush_webhook_attempts_total{\(label(e)),result=\"retry\"} \(c.retried[e.key] ?? 0)\n"
            out += "richpush_webhook_attempts_total{\(label(e)),result=\"gave_up\"} \(c.gaveUp[e.key] ?? 0)\n"
        }
        out +=
            "# HELP richpush_webhook_store_errors_total Outbox claims or updates of this instance that failed (retried on the next poll).\n# TYPE richpush_webhook_store_errors_total counter\n"
        out += "richpush_webhook_store_errors_total \(c.storeErrors)\n"
        guard let status else { return out }
        func gauge(_ name: String, _ help: String, _ value: (WebhookEndpointStatus) -> String) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n"
            for e in endpoints { out += "\(name){\(label(e))} \(value(status[e.key] ?? WebhookEndpointStatus()))\n" }
        }
        gauge("richpush_webhook_pending", "Webhook deliveries waiting in the outbox (all instances).") { String($0.pending) }
        gauge("richpush_webhook_retrying", "Pending webhook deliveries that failed at least once.") { String($0.retrying) }
        gauge("richpush_webhook_oldest_pending_seconds", "Age of the oldest pending webhook event, seconds (0 when none).") { s in
            String(s.oldestPendingMs.map { max(0, nowMs - $0) / 1000 } ?? 0)
        }
        gauge("richpush_webhook_delivered", "Webhook deliveries answered 2xx (all instances, since the outbox was made).") { String($0.delivered) }
        gauge("richpush_webhook_failed", "Webhook deliveries given up (all instances, since the outbox was made).") { String($0.failed) }
        return out
    }
}
