import Foundation
import RichPushCore

/// `POST /v1/pushes/{push_id}/sends` (admin, Bearer only): records the sends of a push another
/// system sent, so its receipts get a funnel and a display rate.
///
/// Answers `200 {push_id, batch_id, source, sent, accepted, skipped, recorded, duplicate}` (a
/// repeated batch: `recorded: false, duplicate: true`, nothing counted twice), `400` naming the
/// field, `409 batch_conflict` when the batch id was recorded with other figures, `413` over
/// 10,000 results or 1 MB, `503` when the store failed.
struct RecordedSendEndpoint: Endpoint {
    let context: ServerContext

    var access: EndpointAccess { .adminBearer }
    var maximumBody: Int { RecordedSendRequest.maximumBodyBytes }
    var tooLarge: HTTPResponseError {
        HTTPResponseError(
            status: 413, code: "too_large",
            message:
                "a sends body is at most \(RecordedSendRequest.maximumBodyBytes) bytes (and \(PushSendRequest.maximumTokens) results): send several batches")
    }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        let pushID = request.pathParameter
        guard !pushID.isEmpty, pushID.utf8.count <= RichPushReceipt.Limits.identifierBytes else {
            throw HTTPResponseError(code: "invalid_push_id", message: "push_id must be 1…\(RichPushReceipt.Limits.identifierBytes) bytes")
        }
        if let bad = IdentifierRule.firstViolation(in: pushID) {
            throw HTTPResponseError(
                code: "not_printable",
                message: "push_id holds \(IdentifierRule.describe(bad.scalar)), \(bad.kind), at character \(bad.position); \(IdentifierRule.summary)")
        }
        if request.bodyTooLarge { throw tooLarge }
        let recorded: RecordedSendRequest
        do {
            recorded = try RecordedSendRequest(pushID: pushID, body: request.body, nowMs: ServerContext.nowMs)
        } catch let error as HTTPResponseError {
            throw error
        } catch {
            throw HTTPResponseError(code: "invalid_request", message: String(describing: error))
        }
        let record =
            context.configuration.webhooks?.attaching(to: [recorded.record], pushSent: false, atMs: ServerContext.nowMs).first ?? recorded.record
        let outcome = try await context.write { try $0.recordSend(record) }
        let counts = record.counts
        var body: [String: RichPushJSONValue] = [
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
            throw HTTPResponseError(
                status: 409, code: "batch_conflict",
                message:
                    "batch_id '\(record.batchID ?? "")' of push '\(pushID)' was recorded before from \(source) with sent \(sent), accepted \(accepted), skipped \(skipped); nothing was changed: give a new batch_id for another batch"
            )
        }
        return ServerResponse(status: 200, contentType: "application/json", body: RichPushJSONValue.object(body).jsonData() + Data("\n".utf8))
    }
}
