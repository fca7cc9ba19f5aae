import Foundation

/// `GET /metrics` (open): the counters in Prometheus' text format, plus `richpush_store_up` for a
/// store that can lose its database (PostgreSQL).
struct MetricsEndpoint: Endpoint {
    let context: ServerContext

    var access: EndpointAccess { .open }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        var text = context.metrics.render()
        if context.store.reportsHealth {
            // 1 while the database answers, for alerts.
            let up = context.store.health().isAvailable ? 1 : 0
            text += "# HELP richpush_store_up Whether the database answers (1) or not (0).\n# TYPE richpush_store_up gauge\nrichpush_store_up \(up)\n"
        }
        if let webhooks = context.webhooks { text += await webhooks.renderMetrics() }
        return ServerResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: Data(text.utf8))
    }
}
