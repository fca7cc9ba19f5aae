import Foundation
import RichPushCore

/// `POST /v1/pushes/{push_id}/sends` (admin, Bearer only): records the sends of a push another
/// system sent, so its receipts get a funnel and a display rate.
///
/// Answers `200 {push_id, batch_id, source, sent, accepted, skipped, recorded, duplicate}` (a
/// repeated batch: `recorded: false, duplicate: true`, nothing counted twice), `400` naming the
/// field, `409 batch_conflict` when the batch id was recorded with other figures, `413` over
/// 10,000 results or 1 MB, `503` when the store failed.
struct RecordedSendEndpoint {
    let store: any ReceiptStore & StatisticsStore

    /// Checks the request now; the store write comes back as `.later`.
    func handle(_ request: HTTPRequest, pushID: String) -> EndpointReply {
        guard !pushID.isEmpty, pushID.utf8.count <= Receipt.Limits.identifierBytes else {
            return .now(.error(400, code: "invalid_push_id", message: "push_id must be 1…\(Receipt.Limits.identifierBytes) bytes"))
        }
        if let bad = IdentifierRule.firstViolation(in: pushID) {
            return .now(
                .error(
                    400, code: "not_printable",
                    message: "push_id holds \(IdentifierRule.describe(bad.scalar)), \(bad.kind), at character \(bad.position); \(IdentifierRule.summary)"))
        }
        if request.bodyTooLarge {
            return .now(
                PushRequestError(
                    status: 413, code: "too_large",
                    message:
                        "a sends body is at most \(RecordedSendRequest.maximumBodyBytes) bytes (and \(PushSendRequest.maximumTokens) results): send several batches"
                ).response)
        }
        let recorded: RecordedSendRequest
        do {
            recorded = try RecordedSendRequest(pushID: pushID, body: request.body, nowMs: Int(Date().timeIntervalSince1970 * 1000))
        } catch let error as PushRequestError {
            return .now(error.response)
        } catch {
            return .now(.error(400, code: "invalid_request", message: String(describing: error)))
        }
        let store = self.store
        let record = recorded.record
        return .later { Self.record(record, pushID: pushID, in: store) }
    }

    private static func record(_ record: PushSendRecord, pushID: String, in store: any ReceiptStore & StatisticsStore) -> HTTPResponse {
        let counts = record.counts
        let outcome: SendRecording
        do {
            outcome = try store.recordSend(record)
        } catch {
            return .error(503, code: "store_error", message: (error as? RichPushError)?.message ?? String(describing: error), headers: [("Retry-After", "1")])
        }
        var body: [String: JSONValue] = [
            "push_id": .string(pushID), "batch_id": .string(record.batchID ?? ""), "source": .string(record.source),
            "sent": .int(counts.sent), "accepted": .int(counts.accepted), "skipped": .int(counts.skipped),
        ]
        switch outcome {
        case .recorded:
            body["recorded"] = .bool(true)
            body["duplicate"] = .bool(false)
        case .duplicate:
            body["recorded"] = .bool(false)
            body["duplicate"] = .bool(true)
        case .conflict(let source, let sent, let accepted, let skipped):
            return .error(
                409, code: "batch_conflict",
                message:
                    "batch_id '\(record.batchID ?? "")' of push '\(pushID)' was recorded before from \(source) with sent \(sent), accepted \(accepted), skipped \(skipped); nothing was changed: give a new batch_id for another batch"
            )
        }
        return HTTPResponse(status: 200, contentType: "application/json", body: JSONValue.object(body).jsonData() + Data("\n".utf8))
    }
}
