import Foundation

/// Idempotency keys (`Idempotency-Key` on `POST /v1/pushes`), kept in the store so they hold
/// across instances and restarts.
///
/// A key is claimed before anything is sent, in a transaction of its own that is committed
/// before the claim returns (PostgreSQL: `INSERT … ON CONFLICT DO NOTHING`; SQLite: under the
/// write lock), so of several requests with one key — on one instance or on several sharing a
/// database — exactly one is told `.claimed`. The row then holds the state `in_progress` with a
/// lease; the claimer stores the answer (`completeIdempotencyKey`) or gives the key up when
/// nothing was sent (`releaseIdempotencyKey`). A claim finds a stored answer expired (older than
/// the window) or a lease run out (the instance died mid-send) and takes the key over.
public protocol IdempotencyStore: AnyObject, Sendable {
    /// Claims `key` for a request whose canonical body hashes to `bodySHA256`, or says why not.
    ///
    /// - Parameters:
    ///   - key: the `Idempotency-Key` value (printable ASCII, 1…255 bytes).
    ///   - scope: the route it was given on, e.g. `POST /v1/pushes`.
    ///   - bodySHA256: lowercase hex SHA-256 of the canonical request body.
    ///   - nowMs: now, ms since 1970.
    ///   - leaseMs: how long the claim holds without an answer before another request may take it
    ///     over (ms).
    ///   - windowMs: how long a stored answer is replayed, from the claim (ms).
    /// - Returns: what the key's row says.
    /// - Throws: `RichPushError` `store`.
    func claimIdempotencyKey(_ key: String, scope: String, bodySHA256: String, nowMs: Int, leaseMs: Int, windowMs: Int) throws -> IdempotencyClaim

    /// Stores the answer of a claimed key (the state becomes `done`).
    ///
    /// - Parameters:
    ///   - key: the key.
    ///   - scope: its route.
    ///   - bodySHA256: the hash it was claimed with.
    ///   - status: the HTTP status answered.
    ///   - response: the body answered (UTF-8 JSON).
    /// - Throws: `RichPushError` `store`.
    func completeIdempotencyKey(_ key: String, scope: String, bodySHA256: String, status: Int, response: String) throws

    /// Gives a claimed key up (nothing was sent): the next request with it runs afresh.
    ///
    /// - Parameters:
    ///   - key: the key.
    ///   - scope: its route.
    ///   - bodySHA256: the hash it was claimed with.
    /// - Throws: `RichPushError` `store`.
    func releaseIdempotencyKey(_ key: String, scope: String, bodySHA256: String) throws

    /// Deletes the keys whose window has passed and that no request holds.
    ///
    /// - Parameter nowMs: now, ms since 1970.
    /// - Returns: how many were deleted.
    /// - Throws: `RichPushError` `store`.
    func purgeIdempotencyKeys(nowMs: Int) throws -> Int
}
