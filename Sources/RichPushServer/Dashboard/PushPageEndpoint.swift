import Foundation
import RichPushCore

/// `GET /pushes/{push_id}` (admin, as the dashboard): one push's page; `400` / `404` as pages,
/// `503` when the store failed.
struct PushPageEndpoint: AdminPageEndpoint {
    let context: ServerContext

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        let pushID = request.pathParameter
        guard !pushID.isEmpty, pushID.utf8.count <= RichPushReceipt.Limits.identifierBytes else {
            let message = "A push id is 1…\(RichPushReceipt.Limits.identifierBytes) bytes."
            throw HTTPResponseError(code: "invalid_push_id", message: message, page: PushDetailPage.notFound(pushID, message: message))
        }
        let (found, media) = try await context.read { (try $0.pushDetail(pushID), try $0.pushMedia(pushID)) }
        // A push the media check refused (422) has no sends or receipts, but its page says why.
        guard let detail = found ?? (media.isEmpty ? nil : PushDetail.unsent(pushID)) else {
            let message = "No receipts or sends are recorded for this push id."
            throw HTTPResponseError(status: 404, code: "unknown_push", message: message, page: PushDetailPage.notFound(pushID, message: message))
        }
        let recipients = try await RecipientsPanel.section(request, pushID: pushID, base: "/pushes/" + HTML.urlComponent(pushID), context: context)
        return .html(200, PushDetailPage.render(detail, media: media, recipients: recipients, generatedAtMs: ServerContext.nowMs))
    }
}

extension PushDetail {
    /// The page of a push that was never sent (the media check refused it): no figures.
    ///
    /// - Parameter pushID: the push.
    /// - Returns: an empty detail.
    static func unsent(_ pushID: String) -> PushDetail {
        PushDetail(
            statistics: PushStatistics(
                pushID: pushID, sent: nil, accepted: nil, delivered: 0, opened: 0, outcomes: [:], reasons: [:], mediaBytes: 0,
                elapsedMs: .init(count: 0, p50: nil, p95: nil), firstSeen: nil, lastSeen: nil),
            title: nil, firstSentMs: nil, lastSentMs: nil, tokenOutcomes: [], reasons: [], timing: DashboardSnapshot.timingHistogram([]))
    }
}
