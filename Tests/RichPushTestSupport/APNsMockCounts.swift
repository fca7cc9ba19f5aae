import RichPushCore

/// A mock APNs that counts what it processed: `Tests/Support/mock_apns.py` (Python, with
/// scripts) or `benchmarks/mock-apns` (C, fast, with faults). Both answer `GET /stats` with
/// `per_token`, `collapse_ids`, `requests`, `accepted`, `device_connections`.
public protocol APNsMockCounts: Sendable {
    /// The mock's counters.
    /// - Returns: `GET /stats` parsed.
    /// - Throws: when the mock does not answer.
    func stats() async throws -> RichPushJSONValue
}

extension CMockAPNs: APNsMockCounts {}
