import Foundation
@_spi(RichPushInternal) import RichPushCore

/// One store's cache of admitted unknown codes and the batch step that folds (`CodeFolding`).
///
/// The cache only ever holds what the store holds (admissions are never removed), so a code it
/// finds admitted is admitted and a push (or the store) it finds full is full; a code that would
/// need a new admission sends the batch to the store (`load`, then `record`), once per batch. It is emptied when
/// it holds `maximumPushes` pushes, and by `forget()` after a failed transaction.
final class CodeAdmissions: Sendable {
    /// Pushes whose admitted codes are cached at most.
    static let maximumPushes = 10_000

    private let cache = Locked(CodeFolding.Admitted())
    private let foldedCount = Locked(0)

    /// Codes stored as `other` since the store opened.
    var folded: Int { foldedCount.withLock { $0 } }

    /// Empties the cache (after a failed transaction: what it recorded may not be stored).
    func forget() { cache.withLock { $0 = CodeFolding.Admitted() } }

    /// The batch with every unknown code past a bound replaced by `other`.
    ///
    /// - Parameters:
    ///   - receipts: the batch.
    ///   - load: reads the store-wide admissions and those of the given pushes (complete for each).
    ///   - record: stores new admissions (in the batch's transaction, or one of its own).
    /// - Returns: the batch to store.
    /// - Throws: what `load` or `record` throw.
    func fold(
        _ receipts: [StoredReceipt], load: (_ pushIDs: [String]) throws -> CodeFolding.Admitted,
        record: (_ admissions: [CodeFolding.Admission]) throws -> Void
    ) rethrows -> [StoredReceipt] {
        let unknown = CodeFolding.unknownCodes(receipts)
        if unknown.isEmpty { return receipts }
        var admitted = cache.withLock { $0 }
        var undecided = Set<String>()
        for item in unknown {
            let pushID = receipts[item.index].receipt.pushID
            // A new admission is decided on what the store holds (under its lock on PostgreSQL).
            switch CodeFolding.decide(item.code, item.kind, pushID: pushID, admitted: admitted, complete: false) {
            case .kept, .fold: break
            case .admit, .unknown: undecided.insert(pushID)
            }
        }
        var fromStore = false
        if !undecided.isEmpty {
            let read = try load(undecided.sorted())
            admitted.storeWide = read.storeWide
            for (pushID, codes) in read.perPush { admitted.perPush[pushID] = codes }
            for pushID in undecided where read.perPush[pushID] == nil { admitted.perPush[pushID] = [:] }
            fromStore = true
        }
        var out = receipts
        var newRows: [CodeFolding.Admission] = []
        var folds = 0
        for item in unknown {
            let pushID = receipts[item.index].receipt.pushID
            switch CodeFolding.decide(item.code, item.kind, pushID: pushID, admitted: admitted, complete: true) {
            case .kept, .unknown:
                break
            case .admit(let rows):
                for row in rows { admitted.add(row) }
                newRows += rows
            case .fold:
                out[item.index] = CodeFolding.folding(out[item.index], item.kind)
                folds += 1
            }
        }
        if !newRows.isEmpty { try record(newRows) }
        if fromStore || !newRows.isEmpty {
            let snapshot = admitted
            cache.withLock { cached in
                cached = snapshot.perPush.count > Self.maximumPushes ? CodeFolding.Admitted(storeWide: snapshot.storeWide) : snapshot
            }
        }
        if folds > 0 { foldedCount.withLock { $0 += folds } }
        return out
    }
}
