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
        var results: [RichPushJSONValue]
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
        results: [RichPushJSONValue], batchID: String, maximumBodyBytes: Int = RecordedSendRequest.maximumBodyBytes,
        maximumResults: Int = PushSendRequest.maximumTokens
    ) throws {
        var splitter = Splitter(maximumBodyBytes: maximumBodyBytes, maximumResults: maximumResults)
        var groups: [[RichPushJSONValue]] = []
        for result in results {
            if let full = try splitter.add(result) { groups.append(full) }
        }
        if let last = splitter.finish() { groups.append(last) }
        batches = groups.enumerated().map { index, group in
            Batch(batchID: Self.batchID(batchID, number: index + 1, of: groups.count), results: group)
        }
    }

    /// The batch id of batch `number` (1-based) out of `count`: `ID` alone, `ID-1`, `ID-2`, … for several.
    ///
    /// - Parameters:
    ///   - batchID: the `--batch-id`.
    ///   - number: the batch's position, from 1.
    ///   - count: how many batches there are (only whether it is 1 matters).
    /// - Returns: the id the batch is recorded under.
    static func batchID(_ batchID: String, number: Int, of count: Int) -> String {
        count == 1 ? batchID : "\(batchID)-\(number)"
    }

    /// The split, one result at a time, so that a results file of any size is batched as it is
    /// read (`SendResultsFile`) with the very batches `init(results:batchID:)` makes of the whole.
    struct Splitter {
        /// The largest body, in bytes.
        let maximumBodyBytes: Int
        /// The most results one body may hold.
        let maximumResults: Int
        /// The batch being filled.
        private var current: [RichPushJSONValue] = []
        /// Bytes of `current` as JSON items joined by commas.
        private var used = 0
        /// Results added so far.
        private var added = 0

        /// A splitter for bodies of at most `maximumBodyBytes` bytes and `maximumResults` results.
        ///
        /// - Parameters:
        ///   - maximumBodyBytes: the largest body the server reads, in bytes.
        ///   - maximumResults: the most results one body may hold.
        init(maximumBodyBytes: Int = RecordedSendRequest.maximumBodyBytes, maximumResults: Int = PushSendRequest.maximumTokens) {
            self.maximumBodyBytes = maximumBodyBytes
            self.maximumResults = maximumResults
        }

        /// Adds the next result.
        ///
        /// - Parameter result: the next per-token result object, in file order.
        /// - Returns: the batch this result closed (it did not fit, so it starts the next one), or `nil`.
        /// - Throws: `RichPushError` `invalid_payload` when the result alone would not fit a body.
        mutating func add(_ result: RichPushJSONValue) throws -> [RichPushJSONValue]? {
            // `{…"results":[` + items joined by `,` + `]…}`: the room for items and their commas.
            let room = maximumBodyBytes - RecordedSendBatches.envelopeBytes
            added += 1
            let size = result.jsonData().count
            guard size <= room else {
                throw RichPushError(
                    code: .invalidPayload,
                    message: "result \(added) is \(size) bytes as JSON; a sends body is at most \(maximumBodyBytes) bytes: shorten its fields")
            }
            var closed: [RichPushJSONValue]?
            if current.count == maximumResults || used + (current.isEmpty ? size : size + 1) > room {
                closed = current
                current = []
                used = 0
            }
            used += current.isEmpty ? size : size + 1
            current.append(result)
            return closed
        }

        /// Ends the split.
        /// - Returns: the last batch, or `nil` when no result was added.
        mutating func finish() -> [RichPushJSONValue]? {
            defer { current = [] }
            return current.isEmpty ? nil : current
        }
    }
}
