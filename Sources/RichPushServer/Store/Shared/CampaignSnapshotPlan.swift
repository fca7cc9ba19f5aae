import Foundation

/// How a campaign's audience snapshot is numbered, as SQL expressions both stores put in their
/// one `INSERT … SELECT` (over rows `r` with `r.rn`, the target's number in token order from 1,
/// and a test size): the targets of the test (the whole audience without one) come first, split
/// into the variants in contiguous blocks of their weights, in chunks of `chunkSize`; the rest
/// (with a test) follow in chunks of their own, with no variant: they get the winner.
///
/// Only integers of the campaign's own settings are written into the SQL (chunk size, weights),
/// never request text.
struct CampaignSnapshotPlan: Sendable {
    /// Targets per chunk (≥ 1).
    let chunkSize: Int
    /// The test's share of the audience, percent; 100 without a test.
    let testPercent: Int
    /// Whether a test comes first (the rest waits for the winner).
    let hasTest: Bool
    /// The variants' names and weights (percent, adding up to 100), in order; empty for one content.
    let variants: [(name: String, weight: Int)]

    /// The plan of `draft`.
    ///
    /// - Parameter draft: the campaign.
    init(_ draft: CampaignDraft) {
        chunkSize = max(1, draft.chunkSize)
        hasTest = !draft.variants.isEmpty && draft.testSharePercent != nil
        testPercent = hasTest ? min(100, max(1, draft.testSharePercent ?? 100)) : 100
        variants = draft.variants.map { ($0.name, max(0, $0.weight)) }
    }

    /// The chunk of row `r`, given the test's size `test` (an SQL expression).
    ///
    /// - Parameter test: the number of targets in the test (all of them without a test).
    /// - Returns: the SQL expression.
    func chunkExpression(test: String) -> String {
        let size = String(chunkSize)
        return "CASE WHEN r.rn <= \(test) THEN (r.rn - 1) / \(size) ELSE (\(test) + \(size) - 1) / \(size) + (r.rn - \(test) - 1) / \(size) END"
    }

    /// The variant of row `r` (`NULL` for one content, and for the rest after a test).
    ///
    /// - Parameter test: the number of targets in the test.
    /// - Returns: the SQL expression.
    func variantExpression(test: String) -> String {
        guard let last = variants.last else { return "NULL" }
        var cases = "CASE WHEN r.rn > \(test) THEN NULL"
        var cumulative = 0
        for variant in variants.dropLast() {
            cumulative += variant.weight
            cases += " WHEN (r.rn - 1) * 100 < \(test) * \(cumulative) THEN '\(variant.name)'"
        }
        return cases + " ELSE '\(last.name)' END"
    }

    /// The phase of a chunk, over its targets grouped by chunk: `test` and `rest` with a test,
    /// else `main`.
    var phaseExpression: String {
        hasTest ? "CASE WHEN MIN(variant) IS NULL THEN 'rest' ELSE 'test' END" : "'main'"
    }
}
