import Foundation
import RichPushCore

/// The media edge's files in the store (SQLite or PostgreSQL, so every instance on one database
/// serves the same bytes), bounded in bytes: storing past the bound evicts the least recently
/// used unreferenced files first (`storedAtMs` is the last time a push stored the file); a file
/// named by a push's record (`recordMedia`) from the last `MediaObject.referenceRetentionMs`
/// (30 days) is not evicted.
public protocol MediaStore: AnyObject, Sendable {
    /// Stores `object` (when its digest is stored already, only its `storedAtMs` moves up: it was
    /// used again), then evicts the least recently used files other than it that no record of
    /// the last 30 days names, until the store holds at most `budgetBytes`.
    ///
    /// - Parameters:
    ///   - object: the file.
    ///   - budgetBytes: the bound (`--media-store-bytes`), in bytes of file content.
    /// - Returns: what was evicted, or that referenced files leave no room.
    /// - Throws: `RichPushError` `store`; `store_unsupported` for a store without media (the default).
    func storeMedia(_ object: MediaObject, budgetBytes: Int) throws -> MediaStoring

    /// A stored file by its SHA-256.
    ///
    /// - Parameter sha256: 64 lowercase hex digits.
    /// - Returns: the file, or `nil`.
    /// - Throws: `RichPushError` `store`; `store_unsupported` for a store without media (the default).
    func media(_ sha256: String) throws -> MediaObject?

    /// Records what the probe found and did for one media URL of a push (the send record keeps
    /// the original URL); a `sha256` set makes that file referenced (never evicted).
    ///
    /// - Parameter record: the push, the URL and the outcome.
    /// - Throws: `RichPushError` `store`; `store_unsupported` for a store without media (the default).
    func recordMedia(_ record: PushMediaRecord) throws

    /// Records the checks of several media URLs and writes webhook deliveries (`media.refused`
    /// for the refused ones), all in one transaction: the events exist exactly when the rows do.
    ///
    /// - Parameters:
    ///   - records: the push's URLs and their outcomes.
    ///   - deliveries: the outbox rows to write with them (may be empty).
    /// - Throws: `RichPushError` `store`; `store_unsupported` for a store without media (the default).
    func recordMedia(_ records: [PushMediaRecord], webhooks deliveries: [WebhookDelivery]) throws

    /// What the probe found and did for each media URL of a push, in URL order.
    ///
    /// - Parameter pushID: the push.
    /// - Returns: the records (empty when none).
    /// - Throws: `RichPushError` `store`.
    func pushMedia(_ pushID: String) throws -> [PushMediaRecord]

    /// What the send-time media check did with the media URLs recorded from `fromMs` to before
    /// `toMs` (`push_media.recorded_at_ms`), per reason and action.
    ///
    /// - Parameters:
    ///   - fromMs: the range's start, ms since 1970; `nil` = from the first.
    ///   - toMs: the range's end (exclusive); `nil` = to the last.
    /// - Returns: the counts (empty for a store without media).
    /// - Throws: `RichPushError` `store`.
    func mediaCheckTotals(fromMs: Int?, toMs: Int?) throws -> MediaCheckTotals

    /// The bytes of file content stored, and how many files.
    ///
    /// - Returns: bytes and count.
    /// - Throws: `RichPushError` `store`; `store_unsupported` for a store without media (the default).
    func mediaUsage() throws -> (bytes: Int, files: Int)
}

/// What `storeMedia` did.
public enum MediaStoring: Sendable, Equatable {
    /// Stored (or already there); the digests evicted to make room, oldest first.
    case stored(evicted: [String])
    /// Not stored: files referenced by recorded sends already take `referencedBytes` of the
    /// bound, so this one does not fit (raise `--media-store-bytes`).
    case full(referencedBytes: Int)
}

extension MediaStore {
    public func storeMedia(_ object: MediaObject, budgetBytes: Int) throws -> MediaStoring { throw Self.noMedia }
    public func media(_ sha256: String) throws -> MediaObject? { throw Self.noMedia }
    public func recordMedia(_ record: PushMediaRecord) throws { throw Self.noMedia }
    public func recordMedia(_ records: [PushMediaRecord], webhooks deliveries: [WebhookDelivery]) throws { throw Self.noMedia }
    public func pushMedia(_ pushID: String) throws -> [PushMediaRecord] { [] }
    public func mediaCheckTotals(fromMs: Int?, toMs: Int?) throws -> MediaCheckTotals { MediaCheckTotals() }
    public func mediaUsage() throws -> (bytes: Int, files: Int) { throw Self.noMedia }

    private static var noMedia: RichPushError {
        RichPushError(code: .storeUnsupported, message: "this store keeps no media files; use the SQLite or PostgreSQL store for the media edge")
    }
}
