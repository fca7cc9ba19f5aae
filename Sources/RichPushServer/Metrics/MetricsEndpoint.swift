import Foundation
import RichPushMedia

/// `GET /metrics` (open): the counters in Prometheus' text format, plus `richpush_store_up` for a
/// store that can lose its database (PostgreSQL), the store's growth (`StoreGrowthGauge`, cached
/// 30 s), the codes folded to `other`, the requests refused past the per-address budget and the
/// provider connections' events (`PushSender.renderConnectionMetrics()`).
struct MetricsEndpoint: Endpoint {
    let context: ServerContext
    /// The APNs/FCM sender, when one is configured.
    let sender: PushSender?
    /// The growth figures, read at most every 30 s.
    let gauge = StoreGrowthGauge()

    var access: EndpointAccess { .open }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        var text = context.metrics.render()
        if context.store.reportsHealth {
            // 1 while the database answers, for alerts.
            let up = context.store.health().isAvailable ? 1 : 0
            text += "# HELP richpush_store_up Whether the database answers (1) or not (0).\n# TYPE richpush_store_up gauge\nrichpush_store_up \(up)\n"
        }
        let context = self.context
        if let growth = await gauge.growth({ try? await context.read({ try $0.growth() }) }) {
            text += StoreGrowthGauge.render(growth)
        }
        text += """
            # HELP richpush_receipt_codes_folded_total Unknown outcome/reason codes stored as other past their bounds (this instance).
            # TYPE richpush_receipt_codes_folded_total counter
            richpush_receipt_codes_folded_total \(context.store.foldedCodes)
            # HELP richpush_over_budget_total Requests refused 429 over_budget: new rows past the client address's budget.
            # TYPE richpush_over_budget_total counter
            richpush_over_budget_total \(context.creationBudget.refusals)

            """
        if context.configuration.mediaEdge != nil {
            let cache = context.mediaCache.usage
            text += """
                # HELP richpush_media_cache_bytes Bytes of the media edge's files this instance holds in memory (--media-cache-bytes).
                # TYPE richpush_media_cache_bytes gauge
                richpush_media_cache_bytes \(cache.bytes)
                # HELP richpush_media_cache_requests_total GET /m/ answered from this instance's memory (hit) or read from the store (miss).
                # TYPE richpush_media_cache_requests_total counter
                richpush_media_cache_requests_total{result="hit"} \(cache.hits)
                richpush_media_cache_requests_total{result="miss"} \(cache.misses)

                """
        }
        if let workers = context.mediaWorkers {
            let s = workers.statistics
            text += """
                # HELP richpush_media_conversions_total Conversions in the media workers, by result (answered: a copy or the optimiser's refusal; timed_out: stopped past --media-timeout; died: the worker crashed or ran out of memory; queue_timeout: no worker came free in time).
                # TYPE richpush_media_conversions_total counter
                richpush_media_conversions_total{result="answered"} \(s.answered)
                richpush_media_conversions_total{result="timed_out"} \(s.timedOut)
                richpush_media_conversions_total{result="died"} \(s.died)
                richpush_media_conversions_total{result="queue_timeout"} \(s.queueTimeouts)
                # HELP richpush_media_workers_started_total Media worker processes started (at start, and to replace one that died or was stopped).
                # TYPE richpush_media_workers_started_total counter
                richpush_media_workers_started_total \(s.started)
                # HELP richpush_media_worker_peak_bytes The highest resident memory a media worker reported after a conversion, bytes.
                # TYPE richpush_media_worker_peak_bytes gauge
                richpush_media_worker_peak_bytes \(s.peakBytes)

                """
        }
        if let webhooks = context.webhooks { text += await webhooks.renderMetrics() }
        if let sender { text += sender.renderConnectionMetrics() }
        return ServerResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: Data(text.utf8))
    }
}
