import Foundation
@_spi(RichPushInternal) import RichPushCore

/// Bounds the distinct `outcome` and `reason` codes a store keeps: a code this version does not
/// know (a newer client's, or an attacker's `[a-z0-9_]{1,64}`) is kept as it is while it fits
/// under two bounds, and is stored as `other` past them, so no view grows with what anonymous
/// clients post.
///
/// - Store-wide: at most `storeWideLimit` (64) unknown codes per kind (outcome, reason). The
///   design has 14 reasons and 3 outcomes (`RichPushReasonCode.known`, `RichPushOutcome.known`); a release of
///   the extension adds one or two, so 64 leaves room for years of newer clients while the
///   summaries (`reason_totals`) and the dashboard's reason table stay at most 14 + 64 + 1 rows.
/// - Per push: at most `perPushLimit` (8) unknown codes per kind. One push is answered by the
///   app versions installed at the time (a handful), so 8 is several releases' worth; it bounds a
///   push's `push_counts` rows to 2 events × (3 + 8 + 2) outcomes × (12 + 8 + 2) reasons = 572
///   and its `reasons`/`outcomes` maps in the JSON views to 21 and 12 entries (≤ 64-byte keys).
///
/// The known codes and `other` itself are never folded and never counted. Which unknown codes
/// are admitted is kept in the store (`admitted_codes`: scope `""` = store-wide, else the push
/// id), so the bounds hold across restarts and, on PostgreSQL, across instances (admissions are
/// decided under one advisory lock). `CodeAdmissions` caches what it has read, so a batch without
/// unknown codes (the normal case) costs a set lookup per receipt and no query.
enum CodeFolding {
    /// The code an unknown code past a bound is stored as.
    static let other = "other"
    /// Unknown codes per kind the whole store keeps (see the type's discussion).
    static let storeWideLimit = 64
    /// Unknown codes per kind one push keeps (see the type's discussion).
    static let perPushLimit = 8

    /// Which field a code is in.
    enum Kind: String, Sendable, CaseIterable {
        case outcome, reason
    }

    /// One admitted code: `scope` is `""` (store-wide) or a push id.
    struct Admission: Hashable, Sendable {
        var scope: String
        var kind: Kind
        var code: String
    }

    /// The admitted codes read from a store: store-wide, and for some pushes.
    struct Admitted: Sendable {
        var storeWide: [Kind: Set<String>] = [:]
        var perPush: [String: [Kind: Set<String>]] = [:]

        mutating func add(_ admission: Admission) {
            if admission.scope.isEmpty {
                storeWide[admission.kind, default: []].insert(admission.code)
            } else {
                perPush[admission.scope, default: [:]][admission.kind, default: []].insert(admission.code)
            }
        }
    }

    private static let knownOutcomes = Set(RichPushOutcome.known.map(\.rawValue) + [other])
    private static let knownReasons = Set(RichPushReasonCode.known.map(\.rawValue) + [other])

    /// Whether a code is one of the design's (or `other`): never folded, never counted.
    static func isKnown(_ code: String, _ kind: Kind) -> Bool {
        kind == .outcome ? knownOutcomes.contains(code) : knownReasons.contains(code)
    }

    /// The unknown codes of a batch, as (receipt index, kind, code), in arrival order.
    static func unknownCodes(_ receipts: [StoredReceipt]) -> [(index: Int, kind: Kind, code: String)] {
        var found: [(index: Int, kind: Kind, code: String)] = []
        for (index, stored) in receipts.enumerated() {
            if let code = stored.receipt.outcome?.rawValue, !knownOutcomes.contains(code) { found.append((index, .outcome, code)) }
            if let code = stored.receipt.reason?.rawValue, !knownReasons.contains(code) { found.append((index, .reason, code)) }
        }
        return found
    }

    /// What `decide` made of one unknown code.
    enum Decision: Equatable {
        /// Kept: already admitted for its push.
        case kept
        /// Kept, and these admissions must be recorded (the push's, and the store's if new).
        case admit([Admission])
        /// Stored as `other`: a bound is reached.
        case fold
        /// The admitted codes read so far do not tell (read the push's from the store).
        case unknown
    }

    /// Decides one unknown code against what is known to be admitted.
    ///
    /// - Parameters:
    ///   - code: the code.
    ///   - kind: outcome or reason.
    ///   - pushID: the receipt's push.
    ///   - admitted: the admitted codes read (store-wide complete; pushes present are complete).
    ///   - complete: whether `admitted.perPush` holds every push asked about (else `.unknown`
    ///     when the push is absent).
    /// - Returns: the decision.
    static func decide(_ code: String, _ kind: Kind, pushID: String, admitted: Admitted, complete: Bool) -> Decision {
        let storeWide = admitted.storeWide[kind] ?? []
        guard let push = admitted.perPush[pushID] else {
            if !storeWide.contains(code) && storeWide.count >= storeWideLimit { return .fold }
            return complete ? admission(code, kind, pushID: pushID, storeWide: storeWide, push: []) : .unknown
        }
        let pushCodes = push[kind] ?? []
        if pushCodes.contains(code) { return .kept }
        return admission(code, kind, pushID: pushID, storeWide: storeWide, push: pushCodes)
    }

    private static func admission(_ code: String, _ kind: Kind, pushID: String, storeWide: Set<String>, push: Set<String>) -> Decision {
        if push.count >= perPushLimit { return .fold }
        var rows = [Admission(scope: pushID, kind: kind, code: code)]
        if !storeWide.contains(code) {
            if storeWide.count >= storeWideLimit { return .fold }
            rows.append(Admission(scope: "", kind: kind, code: code))
        }
        return .admit(rows)
    }

    /// A receipt with one code replaced by `other`.
    static func folding(_ stored: StoredReceipt, _ kind: Kind) -> StoredReceipt {
        var copy = stored
        switch kind {
        case .outcome: copy.receipt.outcome = RichPushOutcome(rawValue: other)
        case .reason: copy.receipt.reason = RichPushReasonCode(rawValue: other)
        }
        return copy
    }
}
