import Foundation
import RichPushCore
import RichPushServer

/// How `richpush record-send --results` splits per-token results into
/// `POST /v1/pushes/{push_id}/sends` bodies the server accepts: at most
/// `RecordedSendRequest.maximumBodyBytes` (1 MB) and `PushSendRequest.maximumTokens` (10,000
/// results) each.
///
/// The split depends on the results alone (never on `--source` or `--title`: a fixed
/// `envelopeBytes` is kept for them), so the same file always gives the same batches and the same
/// batch ids — `ID` for one batch, `ID-1`, `ID-2`, … for several — and re-running a recording is
/// idempotent batch by batch. Results are taken in file order, each batch as many as fit; a file
/// that fitted the older count-only split (10,000 a batch) is split exactly as before.
struct RecordedSendBatches {
    /// Bytes kept for the body around the results array: `batch_id` (≤ 128 bytes of printable text
    /// plus `-N`, quotes and backslashes escaped), `source` (≤ 32), `title` (≤ 256 bytes, escaped
    /// at most 6×) and the keys.
    static let envelopeBytes = 4_096

    /// One batch: its id and its results.
    struct Batch {
        var batchID: String
        var results: [JSONValue]
    }

    /// The batches, in order.
    var batches: [Batch]

    /// Splits results into batches.
    ///
    /// - Parameters:
    ///   - results: the per-token result objects, in file order.
    ///   - batchID: the `--batch-id` (used as is for a single batch).
    ///   - maximumBodyBytes: the largest body the server reads, in bytes.
    ///   - maximumResults: the most results one body may hold.
    /// - Throws: `RichPushError` `invalid_payload` when one result alone would not fit a body.
    init(
        results: [JSONValue], batchID: String, maximumBodyBytes: Int = RecordedSendRequest.maximumBodyBytes,
        maximumResults: Int = PushSendRequest.maximumTokens
    ) throws {
        // `{…"results":[` + items joined by `,` + `]…}`: the room for items and their commas.
        let room = maximumBodyBytes - Self.envelopeBytes
        var groups: [[JSONValue]] = []
        var current: [JSONValue] = []
        var used = 0
        for (index, result) in results.enumerated() {
            let size = result.jsonData().count
            guard size <= room else {
                throw RichPushError(
                    code: .invalidPayload,
                    message: "result \(index + 1) is \(size) bytes as JSON; a sends body is at most \(maximumBodyBytes) bytes: shorten its fields")
            }
            let added = current.isEmpty ? size : size + 1
            if current.count == maximumResults || used + added > room {
                groups.append(current)
                current = []
                used = 0
            }
            used += current.isEmpty ? size : size + 1
            current.append(result)
        }
        if !current.isEmpty { groups.append(current) }
        batches = groups.enumerated().map { index, group in
            Batch(batchID: groups.count == 1 ? batchID : "\(batchID)-\(index + 1)", results: group)
        }
    }
}
