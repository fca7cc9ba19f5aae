import Foundation
import RichPushCore

/// `GET /pushes/{push_id}` (admin, as the dashboard): one push's page; `400` / `404` as pages,
/// `503` when the store failed.
struct PushPageEndpoint: Endpoint {
    let context: ServerContext

    var access: EndpointAccess { .admin }
    var noStore: Bool { true }
    var isPage: Bool { true }

    func respond(to request: ServerRequest) async throws -> ServerResponse {
        let pushID = request.pathParameter
        guard !pushID.isEmpty, pushID.utf8.count <= Receipt.Limits.identifierBytes else {
            let message = "A push id is 1…\(Receipt.Limits.identifierBytes) bytes."
            throw HTTPResponseError(code: "invalid_push_id", message: message, page: PushDetailPage.notFound(pushID, message: message))
        }
        let store = context.store
        let detail: PushDetail?
        do {
            detail = try await context.storeReads.run { try store.pushDetail(pushID) }
        } catch {
            throw HTTPResponseError.store(error, retry: false)
        }
        guard let detail else {
            let message = "No receipts or sends are recorded for this push id."
            throw HTTPResponseError(status: 404, code: "unknown_push", message: message, page: PushDetailPage.notFound(pushID, message: message))
        }
        return .html(200, PushDetailPage.render(detail, generatedAtMs: ServerContext.nowMs))
    }
}
