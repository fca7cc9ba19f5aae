import Foundation
@_spi(RichPushInternal) import RichPushCore

/// Counters and the request latency histogram, rendered in the Prometheus text format
/// (version 0.0.4) at `GET /metrics`.
public final class ServerMetrics: Sendable {
    /// Every counter, behind one lock.
    private struct Counters {
        var accepted = 0
        var duplicates = 0
        var unverifiedDevices = 0
        var rejected: [String: Int] = [:]
        var batches = 0
        var batchedReceipts = 0
        var responses: [Int: Int] = [:]
        var latency = LatencyHistogram()
        var refused: [String: Int] = [:]
        var connections: @Sendable () -> (open: Int, slowHeaders: Int, slowBodies: Int) = { (0, 0, 0) }
    }

    private let counters = Locked(Counters())

    /// Makes empty metrics.
    public init() {}

    /// A receipt was committed as new.
    public func receiptAccepted() { counters.withLock { $0.accepted += 1 } }
    /// A receipt was a duplicate (answered 202, not stored again).
    public func receiptDuplicate() { counters.withLock { $0.duplicates += 1 } }
    /// A receipt named a device whose HMAC did not verify (stored anonymously).
    public func receiptUnverifiedDevice() { counters.withLock { $0.unverifiedDevices += 1 } }
    /// A receipt was refused; `reason` is `bad_request`, `too_large` or `store_error`.
    public func receiptRejected(_ reason: String) { counters.withLock { $0.rejected[reason, default: 0] += 1 } }
    /// A batch of `size` receipts was committed.
    public func batchCommitted(size: Int) {
        counters.withLock {
            $0.batches += 1
            $0.batchedReceipts += size
        }
    }

    /// A request was refused before its body was read; `reason` is `busy`, `unauthorized`,
    /// `throttled`, `cross_origin`, `framing`, `too_large`, `media_type`.
    public func requestRefused(_ reason: String) { counters.withLock { $0.refused[reason, default: 0] += 1 } }

    /// Where the connection gauges come from (the HTTP server, once it runs).
    ///
    /// - Parameter read: returns open connections and the slow clients closed so far (headers, bodies).
    public func connections(_ read: @escaping @Sendable () -> (open: Int, slowHeaders: Int, slowBodies: Int)) {
        counters.withLock { $0.connections = read }
    }

    /// A response was sent.
    ///
    /// - Parameters:
    ///   - status: the HTTP status.
    ///   - seconds: from the request's headers to the response being queued.
    public func observe(status: Int, seconds: Double) {
        counters.withLock {
            $0.responses[status, default: 0] += 1
            $0.latency.observe(seconds)
        }
    }

    /// The Prometheus text exposition.
    ///
    /// - Returns: `# HELP`/`# TYPE` lines and samples, newline-terminated.
    public func render() -> String {
        let c = counters.withLock { $0 }
        var out = ""
        func counter(_ name: String, _ help: String, _ samples: [(labels: String, value: Int)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) counter\n"
            for s in samples { out += "\(name)\(s.labels) \(s.value)\n" }
        }
        counter("richpush_receipts_accepted_total", "Receipts answered 202 and committed as new.", [("", c.accepted)])
        counter("richpush_receipts_duplicate_total", "Receipts answered 202 whose receipt_id was already stored.", [("", c.duplicates)])
        counter(
            "richpush_receipts_unverified_device_total",
            "Receipts naming a device (device_id) whose HMAC did not verify with its secret: stored anonymously.", [("", c.unverifiedDevices)])
        let reasons = Set(c.rejected.keys).union(["bad_request", "too_large", "store_error", "over_budget"]).sorted()
        counter(
            "richpush_receipts_rejected_total", "Receipts refused (400 bad_request, 413 too_large, 429 over_budget, 503 store_error).",
            reasons.map { ("{reason=\"\($0)\"}", c.rejected[$0] ?? 0) }
        )
        counter("richpush_store_commits_total", "Group-commit transactions committed.", [("", c.batches)])
        counter("richpush_store_committed_receipts_total", "Receipts written through group commit (new and duplicate).", [("", c.batchedReceipts)])
        counter(
            "richpush_http_responses_total", "HTTP responses by status code.",
            c.responses.keys.sorted().map { ("{code=\"\($0)\"}", c.responses[$0] ?? 0) }
        )
        let refusals = Set(c.refused.keys).union(["busy", "unauthorized", "throttled", "cross_origin"]).sorted()
        counter(
            "richpush_http_refused_total", "Requests refused from their headers alone, before any body was read.",
            refusals.map { ("{reason=\"\($0)\"}", c.refused[$0] ?? 0) }
        )
        let gauges = c.connections()
        counter(
            "richpush_http_slow_clients_closed_total", "Connections closed for missing the header deadline or falling behind the minimum body rate.",
            [("{phase=\"headers\"}", gauges.slowHeaders), ("{phase=\"body\"}", gauges.slowBodies)]
        )
        out += "# HELP richpush_http_open_connections Connections open now.\n# TYPE richpush_http_open_connections gauge\n"
        out += "richpush_http_open_connections \(gauges.open)\n"
        out += c.latency.render(name: "richpush_http_request_duration_seconds", help: "Time from request headers to response, in seconds.")
        return out
    }
}
