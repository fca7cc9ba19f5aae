import Foundation
import RichPushCore

/// `GET /pushes/{push_id}` (admin, as the dashboard): one push's page; `400` / `404` as pages,
/// `503` when the store failed.
struct PushPageEndpoint: AdminPageEndpoint {
    let context: ServerContext

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        let pushID = request.pathParameter
        guard !pushID.isEmpty, pushID.utf8.count <= Receipt.Limits.identifierBytes else {
            let message = "A push id is 1…\(Receipt.Limits.identifierBytes) bytes."
            throw HTTPResponseError(code: "invalid_push_id", message: message, page: PushDetailPage.notFound(pushID, message: message))
        }
        guard let detail = try await context.read({ try $0.pushDetail(pushID) }) else {
            let message = "No receipts or sends are recorded for this push id."
            throw HTTPResponseError(status: 404, code: "unknown_push", message: message, page: PushDetailPage.notFound(pushID, message: message))
        }
        return .html(200, PushDetailPage.render(detail, generatedAtMs: ServerContext.nowMs))
    }
}
