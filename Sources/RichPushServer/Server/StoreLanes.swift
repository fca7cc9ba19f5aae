import Foundation

/// The one door store work goes through: three lanes built once per server, instead of a queue
/// per caller. Each lane is a `BlockingQueue` (store calls block on SQLite's fsync or a
/// PostgreSQL round trip, so none runs on Swift's cooperative pool or a server thread):
///
/// - `read` (concurrent): the admin's reads (lists, pages, exports), lookups before a send.
/// - `write` (one at a time): what requests write — device registrations, recorded sends,
///   idempotency claims, a campaign's cancel — in arrival order.
/// - `background` (concurrent): the background services' work (campaign workers, the webhook
///   dispatcher, purges) and long writes a request starts (a campaign's audience snapshot), so
///   that neither waits behind the other nor holds up the request writes.
///
/// A store failure is the caller's to turn into an answer (`ServerContext.read`/`write` make it
/// a `503 store_error`).
public final class StoreLanes: Sendable {
    /// The lanes.
    public enum Lane: String, Sendable, CaseIterable {
        /// Concurrent reads.
        case read
        /// Request writes, one at a time.
        case write
        /// Background work and long writes, concurrent.
        case background
    }

    private let read = BlockingQueue(label: "richpush.store.read", concurrent: true)
    private let write = BlockingQueue(label: "richpush.store.write", concurrent: false)
    private let background = BlockingQueue(label: "richpush.store.background", concurrent: true)

    /// Makes the three lanes.
    public init() {}

    /// Runs `work` on `lane` and returns its result.
    ///
    /// - Parameters:
    ///   - lane: where it runs.
    ///   - work: the store work (blocking).
    /// - Returns: what `work` returned.
    /// - Throws: what `work` threw.
    public func run<T: Sendable>(_ lane: Lane, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        switch lane {
        case .read: try await read.run(work)
        case .write: try await write.run(work)
        case .background: try await background.run(work)
        }
    }
}
