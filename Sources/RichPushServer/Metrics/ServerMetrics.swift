import Foundation

/// Counters and the request latency histogram, rendered in the Prometheus text format
/// (version 0.0.4) at `GET /metrics`.
// @unchecked: every counter is read and written under `lock`
public final class ServerMetrics: @unchecked Sendable {
    private let lock = NSLock()
    private var accepted = 0
    private var duplicates = 0
    private var rejected: [String: Int] = [:]
    private var failed = 0
    private var batches = 0
    private var batchedReceipts = 0
    private var responses: [Int: Int] = [:]
    private var latency = LatencyHistogram()
    private var refused: [String: Int] = [:]
    private var connections: @Sendable () -> (open: Int, slowHeaders: Int, slowBodies: Int) = { (0, 0, 0) }

    /// Makes empty metrics.
    public init() {}

    /// A receipt was committed as new.
    public func receiptAccepted() { lock.withLock { accepted += 1 } }
    /// A receipt was a duplicate (answered 202, not stored again).
    public func receiptDuplicate() { lock.withLock { duplicates += 1 } }
    /// A receipt was refused; `reason` is `bad_request`, `too_large` or `store_error`.
    public func receiptRejected(_ reason: String) { lock.withLock { rejected[reason, default: 0] += 1 } }
    /// A batch of `size` receipts was committed.
    public func batchCommitted(size: Int) {
        lock.withLock {
            batches += 1
            batchedReceipts += size
        }
    }

    /// A request was refused before its body was read; `reason` is `busy`, `unauthorized`,
    /// `throttled`, `cross_origin`, `framing`, `too_large`, `media_type`.
    public func requestRefused(_ reason: String) { lock.withLock { refused[reason, default: 0] += 1 } }

    /// Where the connection gauges come from (the HTTP server, once it runs).
    ///
    /// - Parameter read: returns open connections and the slow clients closed so far (headers, bodies).
    public func connections(_ read: @escaping @Sendable () -> (open: Int, slowHeaders: Int, slowBodies: Int)) {
        lock.withLock { connections = read }
    }

    /// A response was sent.
    ///
    /// - Parameters:
    ///   - status: the HTTP status.
    ///   - seconds: from the request's headers to the response being queued.
    public func observe(status: Int, seconds: Double) {
        lock.withLock {
            responses[status, default: 0] += 1
            latency.observe(seconds)
        }
    }

    /// The Prometheus text exposition.
    ///
    /// - Returns: `# HELP`/`# TYPE` lines and samples, newline-terminated.
    public func render() -> String {
        lock.lock()
        defer { lock.unlock() }
        var out = ""
        func counter(_ name: String, _ help: String, _ samples: [(labels: String, value: Int)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) counter\n"
            for s in samples { out += "\(name)\(s.labels) \(s.value)\n" }
        }
        counter("richpush_receipts_accepted_total", "Receipts answered 202 and committed as new.", [("", accepted)])
        counter("richpush_receipts_duplicate_total", "Receipts answered 202 whose receipt_id was already stored.", [("", duplicates)])
        let reasons = Set(rejected.keys).union(["bad_request", "too_large", "store_error"]).sorted()
        counter(
            "richpush_receipts_rejected_total", "Receipts refused (400 bad_request, 413 too_large, 503 store_error).",
            reasons.map { ("{reason=\"\($0)\"}", rejected[$0] ?? 0) }
        )
        counter("richpush_store_commits_total", "Group-commit transactions committed.", [("", batches)])
        counter("richpush_store_committed_receipts_total", "Receipts written through group commit (new and duplicate).", [("", batchedReceipts)])
        counter(
            "richpush_http_responses_total", "HTTP responses by status code.",
            responses.keys.sorted().map { ("{code=\"\($0)\"}", responses[$0] ?? 0) }
        )
        let refusals = Set(refused.keys).union(["busy", "unauthorized", "throttled", "cross_origin"]).sorted()
        counter(
            "richpush_http_refused_total", "Requests refused from their headers alone, before any body was read.",
            refusals.map { ("{reason=\"\($0)\"}", refused[$0] ?? 0) }
        )
        let gauges = connections()
        counter(
            "richpush_http_slow_clients_closed_total", "Connections closed for missing the header deadline or falling behind the minimum body rate.",
            [("{phase=\"headers\"}", gauges.slowHeaders), ("{phase=\"body\"}", gauges.slowBodies)]
        )
        out += "# HELP richpush_http_open_connections Connections open now.\n# TYPE richpush_http_open_connections gauge\n"
        out += "richpush_http_open_connections \(gauges.open)\n"
        out += latency.render(name: "richpush_http_request_duration_seconds", help: "Time from request headers to response, in seconds.")
        return out
    }
}
