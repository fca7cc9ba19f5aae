import Foundation

extension SQLiteStore {
    /// Unavailable while another connection or process holds the write lock past
    /// `SQLiteBusyWatch.busySeconds` (a write is waiting, or the latest one was busy); while so,
    /// at most one probe at a time (`BEGIN IMMEDIATE` + `ROLLBACK` on the writer, when no write
    /// holds it) tells when the lock is gone, so recovery needs no receipt.
    ///
    /// - Returns: the health for `/healthz`.
    public func health() -> StoreHealth {
        if writer.busyWatch.isStalled, writeLock.try() {
            defer { writeLock.unlock() }
            if (try? writer.execute("BEGIN IMMEDIATE")) != nil { try? writer.execute("ROLLBACK") }
        }
        if let reason = writer.busyWatch.stallReason {
            return StoreHealth(isAvailable: false, reason: "\(reason); receipts get 503 until it is released")
        }
        return .available
    }
}
