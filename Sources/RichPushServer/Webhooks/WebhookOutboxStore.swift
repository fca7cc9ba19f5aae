import Foundation

/// The webhook outbox in the store (schema version 8; SQLite and PostgreSQL): deliveries written
/// in the transaction of the change they report, claimed with a lease by one instance at a time,
/// each subject's deliveries to an endpoint strictly in order.
///
/// A delivery is *due* when it is pending, its next attempt time has come, no instance holds an
/// unexpired lease on it, and no earlier delivery of the same endpoint and subject is still
/// pending (the next event of a token waits until the one before is delivered or given up).
/// Delivered rows are deleted (the endpoint's `delivered` counter grows in the same transaction);
/// given-up rows stay, state `failed`, until `pruneWebhooks`.
public protocol WebhookOutboxStore: AnyObject, Sendable {
    /// Writes deliveries in a transaction of their own (events that report no other change of the
    /// store; a change the store makes writes its events in its own transaction instead).
    ///
    /// - Parameter deliveries: the rows, in order (their order is each subject's order).
    /// - Throws: `RichPushError` `store`.
    func enqueueWebhooks(_ deliveries: [WebhookDelivery]) throws

    /// Claims up to `limit` due deliveries of one endpoint for `owner` until `nowMs + leaseMs`; at
    /// most one per subject. A claim is no attempt: `finishWebhooks` counts one for each request
    /// that was sent. (PostgreSQL compares due times and leases on the database's clock.)
    ///
    /// - Parameters:
    ///   - endpoint: the endpoint's key.
    ///   - owner: this instance's id.
    ///   - nowMs: now, ms since 1970.
    ///   - leaseMs: how long the claim holds, ms (longer than a delivery can take).
    ///   - limit: the most to claim.
    /// - Returns: the claimed deliveries, oldest due first.
    /// - Throws: `RichPushError` `store`.
    func claimWebhooks(endpoint: String, owner: String, nowMs: Int, leaseMs: Int, limit: Int) throws -> [WebhookClaim]

    /// Records what the attempts of claimed deliveries came to (only where `owner` still holds
    /// the lease: an expired lease was maybe taken over, and the other instance decides).
    ///
    /// - Parameters:
    ///   - attempts: the outcomes.
    ///   - endpoint: the endpoint's key.
    ///   - owner: the instance that claimed them.
    /// - Throws: `RichPushError` `store`.
    func finishWebhooks(_ attempts: [WebhookAttempt], endpoint: String, owner: String) throws

    /// Each endpoint's figures, for the dashboard and `/metrics` (endpoints with nothing recorded
    /// are absent).
    ///
    /// - Returns: the status per endpoint key.
    /// - Throws: `RichPushError` `store`.
    func webhookStatus() throws -> [String: WebhookEndpointStatus]

    /// Deletes given-up deliveries older than `beforeMs`.
    ///
    /// - Parameter beforeMs: the bound, ms since 1970.
    /// - Returns: how many were deleted.
    /// - Throws: `RichPushError` `store`.
    @discardableResult
    func pruneWebhooks(failedBeforeMs beforeMs: Int) throws -> Int
}

/// A delivery claimed for one attempt.
public struct WebhookClaim: Sendable, Equatable {
    /// The row's sequence number (the outbox's order).
    public var seq: Int
    /// The event's id.
    public var eventID: String
    /// The event's type.
    public var type: WebhookEventType
    /// The event's subject.
    public var subject: String
    /// The JSON body, as written.
    public var body: Data
    /// Requests sent for it before this claim (the receiver may have seen that many); this
    /// attempt is number `attempts + 1`.
    public var attempts: Int
    /// When the event was written, ms since 1970.
    public var createdAtMs: Int
    /// Failed tries before this claim, sent or not (a refused connection too): the backoff's count.
    public var failures = 0
}

/// What one attempt of a claimed delivery came to.
public struct WebhookAttempt: Sendable, Equatable {
    /// What to do with the row.
    public enum Outcome: Sendable, Equatable {
        /// A 2xx answer: the row is deleted and counted delivered.
        case delivered
        /// Failed: try again at `nextAttemptMs`.
        case retry(nextAttemptMs: Int)
        /// Failed past the give-up time: the row is kept as `failed`.
        case gaveUp
    }

    /// The row.
    public var seq: Int
    /// The outcome.
    public var outcome: Outcome
    /// The receiver's HTTP status, `nil` when none came (connection refused, timeout).
    public var status: Int?
    /// Why it failed, `nil` when delivered.
    public var error: String?
    /// When the attempt ended, ms since 1970.
    public var atMs: Int
    /// Whether the request went out (an answer came, or libcurl wrote it): only then is it counted
    /// an attempt (`attempts`); a try that never left (no connection, a shutdown before it went
    /// out) counts only as a failure for the backoff.
    public var sent: Bool

    /// Makes an attempt's record.
    ///
    /// - Parameters:
    ///   - seq: the row.
    ///   - outcome: what to do with it.
    ///   - status: the receiver's HTTP status, if any.
    ///   - error: why it failed, `nil` when delivered.
    ///   - atMs: when it ended, ms since 1970.
    ///   - sent: whether the request went out (default `true`).
    public init(seq: Int, outcome: Outcome, status: Int?, error: String?, atMs: Int, sent: Bool = true) {
        self.seq = seq
        self.outcome = outcome
        self.status = status
        self.error = error
        self.atMs = atMs
        self.sent = sent
    }
}

/// One endpoint's figures, over every instance writing to the store.
public struct WebhookEndpointStatus: Sendable, Equatable {
    /// Deliveries waiting (due, in backoff, or in flight).
    public var pending = 0
    /// Of those, how many failed at least once (a first attempt still in flight has not).
    public var retrying = 0
    /// When the oldest pending event was written, ms since 1970.
    public var oldestPendingMs: Int?
    /// Deliveries answered 2xx, since the outbox was made.
    public var delivered = 0
    /// Deliveries given up, since the outbox was made.
    public var failed = 0
    /// The last 2xx, ms since 1970.
    public var lastDeliveredAtMs: Int?
    /// The last failure's text (status and an excerpt of the answer, or the transport's error).
    public var lastError: String?
    /// When it happened, ms since 1970.
    public var lastErrorAtMs: Int?

    /// Makes empty figures.
    public init() {}
}
