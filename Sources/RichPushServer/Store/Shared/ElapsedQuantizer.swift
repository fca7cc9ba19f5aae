/// Rounds `elapsed_ms` down to 3 significant digits for the dashboard's overall timing figures
/// (exact below 1 s; 10 ms steps to 10 s, 100 ms to 100 s, 1 s above), so the overall
/// distribution has at most ~3,300 rows whatever the receipts send. Per-push figures stay exact.
enum ElapsedQuantizer {
    /// The bucket's lower bound for a value in ms.
    static func bucket(_ ms: Int) -> Int {
        switch ms {
        case ..<1_000: return ms
        case ..<10_000: return ms / 10 * 10
        case ..<100_000: return ms / 100 * 100
        default: return ms / 1_000 * 1_000
        }
    }

    /// The same rounding in SQL, for the schema migration's backfill (integer division).
    static let sql =
        "CASE WHEN elapsed_ms < 1000 THEN elapsed_ms WHEN elapsed_ms < 10000 THEN elapsed_ms / 10 * 10 WHEN elapsed_ms < 100000 THEN elapsed_ms / 100 * 100 ELSE elapsed_ms / 1000 * 1000 END"
}
